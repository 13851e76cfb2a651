"""spark_types mappings rebuilt as real pyspark types, compared with hand-written StructTypes."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_json_schema_mapping_equals_hand_written(spark: Any) -> None:
    from pyspark.sql.types import (
        ArrayType,
        DoubleType,
        LongType,
        MapType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    from xrgen.formats.jsonschema import spark_type as json_schema_to_spark

    from conftest import READING_SCHEMA

    mapped = StructType.fromJson(json_schema_to_spark(READING_SCHEMA))
    expected = StructType(
        [
            StructField("value", DoubleType(), False),
            StructField("unit", StringType(), False),
            StructField("at", TimestampType(), True),
            StructField("tags", ArrayType(StringType(), True), True),
            StructField(
                "location",
                StructType(
                    [
                        StructField("lat", DoubleType(), False),
                        StructField("lon", DoubleType(), False),
                    ]
                ),
                True,
            ),
        ]
    )
    assert mapped == expected
    labels = {"type": "object", "additionalProperties": {"type": "integer"}}
    holder = {"type": "object", "properties": {"labels": labels}}
    assert StructType.fromJson(json_schema_to_spark(holder)) == StructType(
        [StructField("labels", MapType(StringType(), LongType(), True))]
    )


def test_avro_and_event_mapping_equal_hand_written(spark: Any, spark_rt: Any) -> None:
    from pyspark.sql.types import (
        BinaryType,
        BooleanType,
        DateType,
        DecimalType,
        IntegerType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    from xrgen.formats.avro import spark_type as avro_to_spark
    from xrgen.spark_types import event_schema

    avro = {
        "type": "record",
        "name": "Pay",
        "fields": [
            {
                "name": "amount",
                "type": {
                    "type": "bytes",
                    "logicalType": "decimal",
                    "precision": 12,
                    "scale": 2,
                },
            },
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "note", "type": ["null", "string"]},
        ],
    }
    payload = StructType(
        [
            StructField("amount", DecimalType(12, 2), False),
            StructField("day", DateType(), False),
            StructField("note", StringType(), True),
        ]
    )
    assert StructType.fromJson(avro_to_spark(avro)) == payload
    event = StructType.fromJson(
        event_schema(
            avro_to_spark(avro),
            [("seq", "integer"), ("ok", "boolean"), ("sig", "binary")],
        )
    )
    s = StringType()
    assert event == StructType(
        [
            StructField("specversion", s, False),
            StructField("id", s, False),
            StructField("source", s, False),
            StructField("type", s, False),
            StructField("time", TimestampType()),
            StructField("datacontenttype", s),
            StructField("dataschema", s),
            StructField("subject", s),
            StructField("seq", IntegerType()),
            StructField("ok", BooleanType()),
            StructField("sig", BinaryType()),
            # the Distributed Tracing extension, kept by every decoder output
            StructField("traceparent", s),
            StructField("tracestate", s),
            StructField("data", payload),
        ]
    )
    assert spark_rt.parse_type(avro_to_spark(avro)) == payload


def test_landing_schemas_cover_every_binding(spark_rt: Any) -> None:
    assert set(spark_rt.LANDING_SCHEMAS) == {
        "kafka",
        "amqp",
        "mqtt",
        "nats",
        "http",
        "pulsar",
        "rocketmq",
    }
    kafka = spark_rt.LANDING_SCHEMAS["kafka"]
    assert kafka.fieldNames() == [
        "key",
        "value",
        "topic",
        "partition",
        "offset",
        "timestamp",
        "timestampType",
        "headers",
    ]
    assert (
        kafka["headers"].dataType.simpleString()
        == "array<struct<key:string,value:binary>>"
    )


def test_template_regex_is_java_and_matches_like_uritemplate(
    spark: Any, spark_rt: Any, runtime_package: Any
) -> None:
    from pyspark.sql import functions as F

    regex, names = spark_rt.template_regex("/plants/{plant}/s/{sensor}.{plant}")
    assert names == ("plant", "sensor")
    texts = [
        "/plants/p1/s/x%201.p1",
        "/plants/p1/s/x.p2",
        "/plants/p1/s/a+b.p1",
        "/other",
    ]
    df = spark.createDataFrame([(t,) for t in texts], "t string")
    got = [r[0] for r in df.select(F.col("t").rlike(regex)).collect()]
    uritemplate = importlib.import_module(runtime_package.__name__ + "._uritemplate")
    tpl = uritemplate.UriTemplate("/plants/{plant}/s/{sensor}.{plant}")
    assert (
        got == [tpl.match(t) is not None for t in texts] == [True, False, False, False]
    )
