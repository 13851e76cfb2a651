"""decode_kafka on a real local SparkSession, with rows encoded by the runtime Kafka codec."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.spark

READING = {
    "value": 21.5,
    "unit": "C",
    "at": "2024-05-01T10:00:00Z",
    "tags": ["a"],
    "location": {"lat": 1.0, "lon": 2.0},
}


def _rows(catalog: Any) -> list[tuple[Any, ...]]:
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s%201"
    good_bin = catalog.event(
        "com.acme.Reading", READING, src, seq=7, urgent=True, id="r1"
    )
    good_str = catalog.event("com.acme.Reading", READING, src, seq=8, id="r2")
    alarm = catalog.event(
        "com.acme.Alarm", {"code": 3, "message": None}, "/alarms", id="a1"
    )
    blob = catalog.event(
        "com.acme.Blob",
        b"\x00\x01raw",
        "/b",
        id="b1",
        datacontenttype="application/octet-stream",
    )
    msgs = [
        kafka.encode(good_bin, mode="binary"),
        kafka.encode(good_str, mode="structured"),
        kafka.encode(alarm, mode="binary"),
        kafka.encode(blob, mode="binary"),
    ]
    return [catalog.row(m, i) for i, m in enumerate(msgs)]


def test_binary_and_structured_rows_are_typed(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    df = kafka_df(_rows(catalog))
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    assert dead.count() == 0, dead.collect()
    readings = {r["id"]: r for r in outputs["com.acme.Reading"].collect()}
    assert set(readings) == {"r1", "r2"}
    r1 = readings["r1"]
    assert r1["type"] == "com.acme.Reading" and r1["specversion"] == "1.0"
    assert r1["seq"] == 7 and r1["urgent"] is True
    assert r1["data"]["value"] == 21.5 and r1["data"]["unit"] == "C"
    assert r1["data"]["at"] == datetime(2024, 5, 1, 10, 0)
    assert r1["data"]["location"]["lon"] == 2.0
    assert r1["params"]["plant"] == "p1" and r1["params"]["sensor"] == "s 1"
    assert r1["topic"] == "readings" and r1["offset"] == 0
    assert readings["r2"]["seq"] == 8 and readings["r2"]["urgent"] is None
    assert readings["r2"]["data"]["tags"] == ["a"]
    (alarm,) = outputs["com.acme.Alarm"].collect()
    assert alarm["data"]["code"] == 3 and alarm["source"] == "/alarms"
    (blob,) = outputs["com.acme.Blob"].collect()
    assert bytes(blob["data"]) == b"\x00\x01raw"
    assert blob["datacontenttype"] == "application/octet-stream"


def _dead_rows(catalog: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """(expected reason, Kafka row) for every dead-letter case."""
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s1"
    ok = catalog.event("com.acme.Reading", READING, src, seq=1)
    good = kafka.encode(ok, mode="binary")
    h = dict(good.headers)

    def with_headers(**changes: bytes | None) -> tuple[tuple[str, bytes | None], ...]:
        merged = {**h, **{k.replace("__", "-"): v for k, v in changes.items()}}
        return tuple((k, v) for k, v in merged.items() if v is not None)

    def msg(value: bytes | None, headers: Any, topic: str = "readings") -> Any:
        if isinstance(headers, dict):
            headers = tuple(headers.items())
        return type(good)(topic, None, value, headers, 0)

    structured_ct = (("content-type", b"application/cloudevents+json"),)
    cases = [
        ("decode-error", msg(b"{not json", structured_ct)),
        ("decode-error", msg(b"[1, 2]", structured_ct)),
        ("decode-error", msg(good.value, with_headers(ce_id=None))),
        ("decode-error", msg(good.value, with_headers(ce_specversion=b"0.3"))),
        ("decode-error", msg(good.value, with_headers(ce_time=b"yesterday"))),
        ("decode-error", msg(good.value, with_headers(ce_seq=b"seven"))),
        ("decode-error", msg(good.value, with_headers(ce_dataschema=b"#/relative"))),
        ("unknown-type", msg(good.value, with_headers(ce_type=b"com.acme.Nope"))),
        ("unknown-type", msg(b"plain bytes", ())),
        ("no-match", msg(good.value, with_headers(ce_source=b"/elsewhere"))),
        ("no-match", msg(good.value, with_headers(ce_seq=None))),
        ("no-match", msg(good.value, h, topic="other-topic")),
        ("validation-error", msg(b'{"value": "hot", "unit": "C"}', h)),
        ("validation-error", msg(b'{"unit": "C"}', h)),
        (
            "validation-error",
            msg(b'{"value": 1, "unit": "C", "location": {"lat": 1}}', h),
        ),
        ("validation-error", msg(b"{broken", h)),
        ("validation-error", msg(None, h)),
        (
            "validation-error",
            msg(good.value, with_headers(content__type=b"text/plain")),
        ),
    ]
    return [(reason, catalog.row(m, i)) for i, (reason, m) in enumerate(cases)]


def test_dead_letters_have_reasons_and_original_columns(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    cases = _dead_rows(catalog)
    df = kafka_df([row for _, row in cases])
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    leaked = {
        k: [(r["offset"], r["data"]) for r in out.collect()]
        for k, out in outputs.items()
    }
    assert all(not rows for rows in leaked.values()), leaked
    got = {r["offset"]: (r["reason"], r["detail"]) for r in dead.collect()}
    expected = {row[4]: reason for reason, row in cases}
    assert {k: v[0] for k, v in got.items()} == expected, sorted(got.items())
    assert dead.columns == [*df.columns, "reason", "detail"]
    details = {v[1] for v in got.values()}
    assert {
        "invalid-json",
        "missing-attribute: id",
        "invalid-specversion",
        "invalid-attribute: time",
        "invalid-attribute: seq",
        "invalid-attribute: dataschema",
        "invalid payload",
        "missing field: value",
        "missing field: location.lon",
        "no data",
        "unsupported-format",
    } <= details


def test_every_row_lands_in_exactly_one_output(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    rows = _rows(catalog) + [row for _, row in _dead_rows(catalog)]
    rows = [r[:4] + (i,) + r[5:] for i, r in enumerate(rows)]  # unique offsets
    df = kafka_df(rows)
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    seen = [
        r["offset"] for out in outputs.values() for r in out.select("offset").collect()
    ]
    seen += [r["offset"] for r in dead.select("offset").collect()]
    assert sorted(seen) == list(range(len(rows)))


def test_output_columns_follow_the_event_schema(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    from pyspark.sql.types import StructType

    from generator.spark_types import event_schema, json_schema_to_spark

    from conftest import READING_SCHEMA

    outputs, _ = spark_rt.decode_kafka(
        kafka_df(_rows(catalog)), catalog.defs, catalog.schemas
    )
    frame = outputs["com.acme.Reading"]
    event = StructType.fromJson(
        event_schema(
            json_schema_to_spark(READING_SCHEMA),
            [("seq", "integer"), ("urgent", "boolean")],
        )
    )
    assert frame.columns == [
        *event.fieldNames(),
        "params",
        "topic",
        "partition",
        "offset",
        "timestamp",
    ]
    for f in event.fields:
        assert frame.schema[f.name].dataType.simpleString() == f.dataType.simpleString()


def test_avro_flag_emits_from_avro(catalog: Any, kafka_df: Any, spark_rt: Any) -> None:
    """With avro=True the plan calls from_avro; this cluster has no spark-avro, so it fails
    with Spark's own 'Avro not loaded' error (the default path never references it)."""
    from dataclasses import replace

    defs = (replace(catalog.defs[1], schemaformat="avro"),)
    avro_schema = (
        '{"type":"record","name":"A","fields":[{"name":"code","type":"long"}]}'
    )
    df = kafka_df(_rows(catalog))
    with pytest.raises(Exception, match="(?i)avro"):
        outputs, _ = spark_rt.decode_kafka(
            df,
            defs,
            catalog.schemas | {defs[0].id: catalog.schemas["com.acme.Alarm"]},
            avro=True,
            avro_schemas={defs[0].id: avro_schema},
        )
        outputs[defs[0].id].collect()
    outputs, dead = spark_rt.decode_kafka(
        df, defs, {defs[0].id: catalog.schemas["com.acme.Alarm"]}
    )
    assert outputs[defs[0].id].count() == 1 and dead.count() == 3
