"""Avro and Protobuf payloads in the Spark decoder.

The packages generated from catalogs/avro and catalogs/protobuf produce events whose Kafka rows
(Spark's Kafka-source schema, built directly: the Kafka, Avro and Protobuf connectors cannot
be downloaded here) are decoded into typed DataFrames equal to the producer's values, over
Arrow batches (``payloads="arrow"``), in batch and streaming (``foreachBatch``), with every
Avro framing. The native path (``from_avro`` / ``from_protobuf``) is checked as far as a session
without the connectors allows: its column expressions, and that its absence is reported when a
decoder is built.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import struct
import subprocess
import sys
import warnings
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from format_samples import AVRO_CATALOG as AVRO
from format_samples import ORDER, SHIPMENT
from format_samples import PROTOBUF_CATALOG as PROTO
from format_samples import REPORT as REPORT_DATA

pytestmark = pytest.mark.spark

PLACED = "com.example.shop.OrderPlaced"
SHIPPED = "com.example.shop.OrderShipped"
REPORT = "example.telemetry.DeviceReport"
ALERT = "example.telemetry.Alert"
#: ORDER as Spark's Avro mapping types it (unions of several types: ``memberN`` structs)
ORDER_ROW = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "placedAt": datetime(2024, 5, 1, 10, 0, 0, 123000),
    "deliveryDate": date(2024, 5, 3),
    "total": Decimal("12.50"),
    "status": "PAID",
    "customer": {
        "name": "Ann",
        "email": None,
        "address": {"street": "Main 1", "city": "Berlin", "country": "DE"},
    },
    "lines": [
        {"sku": "a-1", "quantity": 2, "unitPrice": Decimal("6.25")},
        {"sku": "b-2", "quantity": 1, "unitPrice": Decimal("0.00")},
    ],
    "attributes": {"gift": "yes"},
    "payment": {
        "member0": None,
        "member1": {"iban": "DE02120300000000202051", "reference": "r-7"},
    },
    "priority": {"member0": None, "member1": "high"},
}
SHIPMENT_ROW = {**SHIPMENT, "shippedOn": date(2024, 5, 2)}


@pytest.fixture(scope="module")
def shop(generated: Any, spark: Any) -> ModuleType:
    return generated(AVRO, package="spark_shop")  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shop_single(generated: Any, spark: Any) -> ModuleType:
    return generated(AVRO, package="spark_shop_so", avro_framing="single-object")  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shop_confluent(generated: Any, spark: Any) -> ModuleType:
    return generated(AVRO, package="spark_shop_cf", avro_framing="confluent")  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def tele(generated: Any, spark: Any) -> ModuleType:
    return generated(PROTO, package="spark_tele")  # type: ignore[no-any-return]


def sub(pkg: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{pkg.__name__}.{name}")


def rows_of(pkg: ModuleType, events: list[tuple[Any, str]]) -> list[tuple[Any, ...]]:
    """Kafka-source rows of ``(event, mode)`` pairs (topic ``shop.orders`` for events of a
    definition without a Kafka topic)."""
    kafka = sub(pkg, "bindings.kafka")
    rows = []
    for i, (event, mode) in enumerate(events):
        topic = None if event.binding is not None else "shop.orders"
        msg = kafka.encode(event, mode=mode, topic=topic)
        rows.append((msg.key, msg.value, msg.topic, 0, i, None, 0, list(msg.headers)))
    return rows


def replaced(row: tuple[Any, ...], value: bytes) -> tuple[Any, ...]:
    return (row[0], value, *row[2:])


def data_of(frame: Any) -> dict[int, Any]:
    return {r["offset"]: r["data"].asDict(recursive=True) for r in frame.collect()}


def dead_of(frame: Any) -> dict[int, tuple[str, str]]:
    return {r["offset"]: (r["reason"], r["detail"]) for r in frame.collect()}


@pytest.mark.parametrize("udf", [True, False], ids=["arrow_udf", "mapInArrow"])
def test_arrow_decodes_plain_avro_and_routes_mixed_json_topics(
    spark: Any,
    shop: ModuleType,
    catalog: Any,
    kafka_df: Any,
    spark_rt: Any,
    udf: bool,
) -> None:
    """Both Arrow paths: the Arrow UDF (PySpark >= 4.1, only the match and the payload bytes
    cross into Python) and the ``mapInArrow`` step that PySpark 4.0 gets."""
    sp = sub(shop, "spark")
    events = [
        (shop.MESSAGES[PLACED].create(ORDER, shop="s1"), "binary"),
        (shop.MESSAGES[PLACED].create(ORDER, shop="s2"), "structured"),
        (shop.MESSAGES[SHIPPED].create(SHIPMENT, shop="s1"), "binary"),
        (shop.MESSAGES[SHIPPED].create(SHIPMENT, shop="s1"), "structured"),
    ]
    rows = rows_of(shop, events)
    rows.append(replaced(rows[0], rows[0][1][:-3]))  # 4: cut short
    rows.append(replaced(rows[2], b"\xff" * 4))  # 5: not a Shipment
    # JSON events of another catalog on the same topic: routed by type, read with from_json
    reading = catalog.event(
        "com.acme.Reading", {"value": 1.5, "unit": "C"}, "/plants/p/sensors/s", seq=1
    )
    rows.append(catalog.row(catalog.kafka.encode(reading), 6))
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    defs = (*shop._defs.ALL, *catalog.defs)
    schemas = {**sp.SCHEMAS, **catalog.schemas}
    decoder = spark_rt.SparkDecoder(
        defs, schemas, "kafka", payloads="arrow", avro_schemas=sp.AVRO_SCHEMAS
    )
    assert decoder.plan.arrow_udf  # this PySpark has arrow_udf
    decoder.plan = dataclasses.replace(decoder.plan, arrow_udf=udf)
    outputs, dead = decoder.decode(kafka_df(rows))
    plan = outputs[PLACED]._jdf.queryExecution().executedPlan().toString()
    assert ("ArrowEvalPython" in plan) is udf and ("MapInArrow" in plan) is not udf
    assert data_of(outputs[PLACED]) == {0: ORDER_ROW, 1: ORDER_ROW}
    assert data_of(outputs[SHIPPED]) == {2: SHIPMENT_ROW, 3: SHIPMENT_ROW}
    assert data_of(outputs["com.acme.Reading"])[6]["value"] == 1.5
    assert dead_of(dead) == {
        4: ("validation-error", "invalid payload"),
        5: ("validation-error", "invalid payload"),
    }
    # the typed columns are the payload's Spark schema
    assert outputs[PLACED].schema["data"].dataType == sp.SCHEMAS[PLACED]
    # the generated decoder takes the same path
    outputs, dead = sp.decoder("kafka", payloads="arrow").decode(kafka_df(rows[:5]))
    assert sorted(data_of(outputs[PLACED])) == [0, 1] and dead.count() == 1


def test_arrow_single_object_checks_the_fingerprint(
    spark: Any, shop_single: ModuleType, kafka_df: Any
) -> None:
    sp = sub(shop_single, "spark")
    rows = rows_of(
        shop_single, [(shop_single.MESSAGES[PLACED].create(ORDER, shop="s1"), "binary")]
    )
    value = rows[0][1]
    assert value[:2] == b"\xc3\x01"
    rows.append(
        replaced(rows[0], value[:2] + bytes(8) + value[10:])
    )  # another fingerprint
    rows.append(replaced(rows[0], value[10:]))  # no header
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    outputs, dead = sp.decoder("kafka", payloads="arrow").decode(kafka_df(rows))
    assert data_of(outputs[PLACED]) == {0: ORDER_ROW}
    assert dead_of(dead) == {
        1: ("validation-error", "invalid payload"),
        2: ("validation-error", "invalid payload"),
    }


def test_arrow_confluent_routes_by_schema_id(
    spark: Any, shop_confluent: ModuleType, kafka_df: Any
) -> None:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext
    from xrgen_runtime.formats import avro as avro_format

    pkg = shop_confluent
    sp = sub(pkg, "spark")
    registry = SchemaRegistryClient.new_client({"url": "mock://spark-formats"})
    avro_format.use_schema_registry(registry)
    try:
        rows = rows_of(
            pkg,
            [
                (pkg.MESSAGES[PLACED].create(ORDER, shop="s1"), "binary"),
                (pkg.MESSAGES[PLACED].create(ORDER, shop="s2"), "structured"),
            ],
        )
    finally:
        avro_format.use_schema_registry(None)
    (schema_id,) = {struct.unpack(">I", r[1][1:5])[0] for r in rows[:1]}
    # bytes of confluent-kafka's own AvroSerializer, in the same registry
    ser = AvroSerializer(registry, sp.AVRO_SCHEMAS[PLACED])
    record = dict(
        ORDER_ROW, payment=("com.example.shop.BankTransfer", ORDER["payment"])
    )
    record["priority"] = "high"
    record["placedAt"] = datetime.fromisoformat("2024-05-01T10:00:00.123+00:00")
    theirs = ser(record, SerializationContext("shop.orders", MessageField.VALUE))
    assert struct.unpack(">I", theirs[1:5])[0] == schema_id
    rows.append(replaced(rows[0], theirs))  # 2
    rows.append(
        replaced(rows[0], b"\x00" + struct.pack(">I", schema_id + 7) + rows[0][1][5:])
    )
    rows.append(replaced(rows[0], b"\x01" + rows[0][1][1:]))  # 4: no magic byte
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    df = kafka_df(rows)

    # known ids route: a row with another id matches no definition
    by_ids = sp.decoder("kafka", payloads="arrow", schema_ids={PLACED: schema_id})
    assert by_ids.plan.specs[by_ids.plan.by_id[PLACED].index].schema_ids == {schema_id}
    outputs, dead = by_ids.decode(df)
    assert data_of(outputs[PLACED]) == {0: ORDER_ROW, 1: ORDER_ROW, 2: ORDER_ROW}
    assert dead_of(dead) == {
        3: ("no-match", f"type {PLACED}"),
        4: ("no-match", f"type {PLACED}"),
    }
    # the same ids, asked of the registry when the decoder is built
    by_registry = sp.decoder("kafka", payloads="arrow", registry=registry)
    spec = by_registry.plan.specs[by_registry.plan.by_id[PLACED].index]
    assert spec.schema_ids == {schema_id}
    # ids unknown: any id is read with the catalog's schema; a bad header is dead-lettered
    outputs, dead = sp.decoder("kafka", payloads="arrow").decode(df)
    assert sorted(data_of(outputs[PLACED])) == [0, 1, 2, 3]
    assert dead_of(dead) == {4: ("validation-error", "invalid payload")}


def test_arrow_decodes_protobuf(spark: Any, tele: ModuleType, kafka_df: Any) -> None:
    sp = sub(tele, "spark")
    events = [
        (tele.MESSAGES[REPORT].create(REPORT_DATA, device="d1"), "binary"),
        (tele.MESSAGES[REPORT].create(REPORT_DATA, device="d2"), "structured"),
        (tele.MESSAGES[REPORT].create({"device_id": "d-2"}, device="d3"), "binary"),
    ]
    rows = rows_of(tele, events)
    rows.append(replaced(rows[0], b"\x0a\xff\xff"))  # 3: a length past the end
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    assert REPORT in sp.PROTO_DESCRIPTORS and sp.PROTO_DESCRIPTORS[REPORT][0] == REPORT
    outputs, dead = sp.decoder("kafka", payloads="arrow").decode(kafka_df(rows))
    got = data_of(outputs[REPORT])
    # the producer's values, typed by SCHEMAS (enums by name, unset optional fields null)
    first = got[0]
    assert first["device_id"] == "d-1" and first["sequence"] == 12345678901
    assert first["temperature"] == pytest.approx(21.3, rel=1e-6)  # a float field
    assert first["status"] == "DEGRADED"
    assert first["readings"] == [
        {"sensor": "t", "value": 1.25, "quality": 3},
        {"sensor": "h", "value": -0.5, "quality": 0},  # a proto3 default
    ]
    assert first["labels"] == {"site": "berlin"}
    assert first["location"] == {"lat": 52.5, "lon": 13.4, "altitude": None}
    assert first["battery_level"] == 0.75 and first["mains"] is None
    assert first["signature"] == bytearray(b"\x00\x01\xff")
    assert first["codes"] == [-1, 2, -300]
    assert first["latest"] == {"t": {"sensor": "t", "value": 9.0, "quality": 1}}
    assert got[1] == first
    # proto3 scalars without presence read as their defaults, unset messages as null
    assert (
        got[2]["sequence"] == 0
        and got[2]["location"] is None
        and got[2]["readings"] == []
    )
    assert dead_of(dead) == {3: ("validation-error", "invalid payload")}
    assert outputs[REPORT].schema["data"].dataType == sp.SCHEMAS[REPORT]


def test_arrow_payloads_in_structured_streaming(
    spark: Any, shop: ModuleType, tele: ModuleType, kafka_df: Any, tmp_path: Path
) -> None:
    """``foreachBatch`` over a file stream: the Arrow step runs inside each micro-batch."""
    sp = sub(shop, "spark")
    rows = rows_of(
        shop,
        [
            (shop.MESSAGES[PLACED].create(ORDER, shop="s1"), "binary"),
            (shop.MESSAGES[SHIPPED].create(SHIPMENT, shop="s1"), "structured"),
        ],
    )
    rows.append(replaced(rows[0], b"\x00"))
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    landing = sp.LANDING_SCHEMAS["kafka"]
    inbox = tmp_path / "inbox"
    spark.createDataFrame(rows, landing).write.parquet(str(inbox))
    written: dict[str, list[Any]] = {}

    def write(message_id: str | None, frame: Any, batch_id: int) -> None:
        written.setdefault(str(message_id), []).extend(frame.collect())

    decoder = sp.decoder("kafka", payloads="arrow")
    query = (
        spark.readStream.schema(landing)
        .parquet(str(inbox))
        .writeStream.foreachBatch(decoder.foreach_batch(write))
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(180)
    assert query.exception() is None
    assert [r["data"].asDict(recursive=True) for r in written[PLACED]] == [ORDER_ROW]
    assert [r["data"].asDict(recursive=True) for r in written[SHIPPED]] == [
        SHIPMENT_ROW
    ]
    assert [(r["offset"], r["detail"]) for r in written["None"]] == [
        (2, "invalid payload")
    ]
    # Protobuf through ``foreach_batch`` on a static DataFrame (one micro-batch)
    spt = sub(tele, "spark")
    rows = rows_of(
        tele, [(tele.MESSAGES[REPORT].create(REPORT_DATA, device="d1"), "binary")]
    )
    rows.append(replaced(rows[0], b"\x0a\xff\xff"))
    rows = [(*r[:4], i, *r[5:]) for i, r in enumerate(rows)]
    written.clear()
    spt.decoder("kafka", payloads="arrow").foreach_batch(write)(
        spark.createDataFrame(rows, landing), 0
    )
    (report,) = written[REPORT]
    assert report["data"]["status"] == "DEGRADED"
    assert report["data"]["codes"] == [-1, 2, -300]
    assert [(r["offset"], r["detail"]) for r in written["None"]] == [
        (1, "invalid payload")
    ]


def test_connector_absence_is_reported_when_the_decoder_is_built(
    spark: Any, shop: ModuleType, tele: ModuleType, spark_rt: Any
) -> None:
    payloads = importlib.import_module(spark_rt.__name__ + ".payloads")
    if payloads.connector_present(spark, "avro") or payloads.connector_present(
        spark, "protobuf"
    ):
        pytest.skip("this session has a Spark connector (XRGEN_SPARK_JARS)")
    sp, spt = sub(shop, "spark"), sub(tele, "spark")
    with pytest.raises(RuntimeError, match=r"org\.apache\.spark:spark-avro_2\.13:4\."):
        spark_rt.SparkDecoder(
            shop._defs.ALL, sp.SCHEMAS, payloads="native", avro_schemas=sp.AVRO_SCHEMAS
        )
    with pytest.raises(RuntimeError, match=r"spark-protobuf_2\.13"):
        spark_rt.SparkDecoder(
            tele._defs.ALL,
            spt.SCHEMAS,
            payloads="native",
            proto_descriptors=spt.PROTO_DESCRIPTORS,
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        decoder = spark_rt.SparkDecoder(
            shop._defs.ALL, sp.SCHEMAS, avro_schemas=sp.AVRO_SCHEMAS
        )
    assert decoder.plan.payloads == "arrow"
    (warning,) = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    assert "spark-avro_2.13" in str(warning.message) and "over Arrow" in str(
        warning.message
    )
    # ``off``: nothing to check, such rows are dead-lettered as an unsupported format
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        off = spark_rt.SparkDecoder(
            shop._defs.ALL, sp.SCHEMAS, payloads="off", avro_schemas=sp.AVRO_SCHEMAS
        )
    rows = rows_of(shop, [(shop.MESSAGES[PLACED].create(ORDER, shop="s1"), "binary")])
    outputs, dead = off.decode(spark.createDataFrame(rows, sp.LANDING_SCHEMAS["kafka"]))
    assert outputs[PLACED].count() == 0
    assert dead_of(dead) == {0: ("validation-error", "unsupported-format")}
    # a catalog without Avro or Protobuf payloads asks nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert spark_rt.SparkDecoder(shop._defs.ALL, {}, "kafka").plan.payloads is None


def native(decoder: Any, spec: Any) -> Any:
    """The ``from_avro`` / ``from_protobuf`` column of ``spec`` in ``decoder``'s plan."""
    package = type(decoder).__module__.rsplit(".", 1)[0]
    binary = importlib.import_module(package + ".binary")
    payload = importlib.import_module(package + ".payload")
    return binary.parse_native(spec, payload.data_bytes(decoder.plan))


def test_native_column_expressions(
    spark: Any,
    shop_confluent: ModuleType,
    shop_single: ModuleType,
    tele: ModuleType,
    kafka_df: Any,
    spark_rt: Any,
) -> None:
    """The native path: ``from_avro`` on the framing-stripped bytes, ``from_protobuf`` with
    the package's descriptor set; without the connector the plan fails with Spark's own
    "not loaded" error (with it, XRGEN_SPARK_JARS, rows decode)."""
    for pkg, framing in ((shop_confluent, "substring"), (shop_single, "substring")):
        sp = sub(pkg, "spark")
        decoder = spark_rt.SparkDecoder(
            pkg._defs.ALL, sp.SCHEMAS, payloads="arrow", avro_schemas=sp.AVRO_SCHEMAS
        )
        spec = decoder.plan.specs[decoder.plan.by_id[PLACED].index]
        text = str(native(decoder, spec))
        assert "from_avro(" in text and framing in text
        assert json.loads(spec.schema)["name"] == "Order"
    spt = sub(tele, "spark")
    decoder = spark_rt.SparkDecoder(
        tele._defs.ALL,
        spt.SCHEMAS,
        payloads="arrow",
        proto_descriptors=spt.PROTO_DESCRIPTORS,
    )
    spec = decoder.plan.specs[decoder.plan.by_id[REPORT].index]
    column = native(decoder, spec)
    assert "from_protobuf(" in str(column) and REPORT in str(column)
    # the descriptor set is what protoc --include_imports writes: it parses and has the message
    from google.protobuf import descriptor_pb2

    files = descriptor_pb2.FileDescriptorSet.FromString(spec.descriptors).file
    assert "DeviceReport" in [m.name for m in files[-1].message_type]
    # a plan with the native expression names it (and fails at analysis without the jar)
    decoder.plan = dataclasses.replace(decoder.plan, payloads="native")
    rows = rows_of(
        tele, [(tele.MESSAGES[REPORT].create(REPORT_DATA, device="d1"), "binary")]
    )
    with pytest.raises(Exception, match="PROTOBUF_NOT_LOADED"):
        decoder.decode(kafka_df(rows))[0][REPORT].collect()


@pytest.mark.parametrize(
    "module", ["xrgen_runtime.spark.check", "xrgen_runtime._spark_check"]
)
def test_native_path_check_command(module: str) -> None:
    """The command of docs/spark.md starts under either module name."""
    result = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "native Avro/Protobuf Spark decoding" in result.stdout


def test_native_path_check_compares_with_the_arrow_path(
    spark: Any, shop: ModuleType, tele: ModuleType, spark_rt: Any, capsys: Any
) -> None:
    """``python -m xrgen_runtime.spark.check PACKAGE`` (docs/spark.md): without the
    connectors it names the missing package; its comparison reports rows that do not decode
    alike (here the "native" decoder is the Arrow one, then one that decodes nothing).
    """
    check = importlib.import_module(spark_rt.__name__ + ".check")
    payloads = importlib.import_module(spark_rt.__name__ + ".payloads")
    if payloads.connector_present(spark, "avro"):
        pytest.skip("this session has a Spark connector (XRGEN_SPARK_JARS)")
    problems = check.check(spark, shop.__name__, events=2)
    assert len(problems) == 1 and "spark-avro_2.13" in problems[0]
    for pkg in (shop, tele):
        sp = sub(pkg, "spark")
        decoder = sp.decoder

        def arrow_for_native(
            binding: str, payloads: str = "auto", decoder: Any = decoder, **kw: Any
        ) -> Any:
            return decoder(
                binding, payloads="arrow" if payloads == "native" else payloads
            )

        sp.decoder = arrow_for_native
        try:
            assert check.check(spark, pkg.__name__, events=2) == []
            assert "rows decoded alike" in capsys.readouterr().out

            def off_for_native(
                binding: str, payloads: str = "auto", decoder: Any = decoder, **kw: Any
            ) -> Any:
                return decoder(
                    binding, payloads="off" if payloads == "native" else payloads
                )

            sp.decoder = off_for_native
            problems = check.check(spark, pkg.__name__, events=2)
        finally:
            sp.decoder = decoder
        assert any("differ from Arrow rows" in p for p in problems)
        assert any("unsupported-format" in p for p in problems)


def test_arrow_step_builds_the_array_row_by_row_results_would_give(
    spark_rt: ModuleType,
) -> None:
    """decode_array builds its result column by column; the values, the corrupt rows, the
    rows of other definitions and a value that does not fit its Arrow type (that row
    corrupt, found row by row) come out as the per-row build gives them."""
    import io

    import fastavro
    import pyarrow as pa
    from pyspark.sql.types import (
        ArrayType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    payloads = importlib.import_module(spark_rt.__name__ + ".payloads")
    schema = {
        "type": "record",
        "name": "R",
        "fields": [
            {"name": "s", "type": "string"},
            {"name": "n", "type": "long"},
            {"name": "u", "type": ["null", "long"]},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "xs", "type": {"type": "array", "items": "string"}},
        ],
    }
    # ``n`` as a 32-bit int: a long beyond it does not fit the Arrow type
    dtype = StructType(
        [
            StructField("s", StringType(), False),
            StructField("n", IntegerType(), False),
            StructField("u", LongType()),
            StructField("at", TimestampType(), False),
            StructField("xs", ArrayType(StringType(), False), False),
        ]
    )
    value_type = pa.struct(
        [
            pa.field("s", pa.string(), False),
            pa.field("n", pa.int32(), False),
            pa.field("u", pa.int64()),
            pa.field("at", pa.timestamp("us", tz="UTC"), False),
            pa.field("xs", pa.list_(pa.field("element", pa.string(), False)), False),
        ]
    )
    arrow_type = pa.struct(
        [("v", value_type), ("_xr_end", pa.bool_()), ("_xr_corrupt", pa.string())]
    )
    spec = payloads.PayloadSpec("avro", dtype.jsonValue(), schema=json.dumps(schema))
    parsed = fastavro.parse_schema(schema)

    def avro(n: int, u: int | None) -> bytes:
        out = io.BytesIO()
        record = {"s": f"r{n}", "n": n, "u": u, "at": datetime(2024, 5, 1), "xs": ["a"]}
        fastavro.schemaless_writer(out, parsed, record)
        return out.getvalue()

    decode = payloads._decoder(spec)

    def row_by_row(data: list[bytes | None], matched: list[int]) -> Any:
        rows: list[Any] = []
        for m, d in zip(matched, data, strict=True):
            if d is None or m != 7:
                rows.append(None)
                continue
            try:
                rows.append({"v": decode(d), "_xr_end": True})
            except ValueError as exc:
                rows.append({"_xr_corrupt": str(exc)})
        return payloads._arrow(rows, arrow_type, spec.dtype)

    def decoded(batch: list[Any], matched: list[int]) -> list[Any]:
        """The rows of ``decode_array``, checked equal to the row-by-row build."""
        got = payloads.decode_array(
            pa.array(matched, pa.int32()),
            pa.array(batch, pa.binary()),
            frozenset({7}),
            spec,
            arrow_type,
        )
        assert got.equals(row_by_row(batch, matched))
        rows: list[Any] = got.to_pylist()
        return rows

    data = [avro(1, None), avro(2, 5), b"\x01", None, avro(4, -3), avro(5, 6)]
    matched = [7, 3, 7, 7, 7, 7]
    # the last row decodes; in the second batch its ``n`` does not fit the Arrow type
    for batch, last_fits in ((data, True), ([*data[:-1], avro(2**40, 1)], False)):
        rows = decoded(batch, matched)
        assert rows[0]["v"]["s"] == "r1" and rows[0]["_xr_end"] is True
        assert rows[1] is None and rows[3] is None  # another definition, no bytes
        assert rows[2]["v"] is None and "Avro" in rows[2]["_xr_corrupt"]
        assert rows[4]["v"]["u"] == -3
        if last_fits:
            assert rows[5]["v"]["n"] == 5 and rows[5]["_xr_corrupt"] is None
        else:
            assert rows[5]["v"] is None
            assert "does not fit the Spark type" in rows[5]["_xr_corrupt"]
    # a batch without bad bytes (the usual one): rows of other definitions and rows
    # without bytes stay null, the others decode
    rows = decoded([avro(1, None), avro(2, 5), None, avro(4, -3)], [7, 3, 7, 7])
    assert rows[1] is None and rows[2] is None
    assert [r["v"]["s"] for r in (rows[0], rows[3])] == ["r1", "r4"]
    assert rows[0]["_xr_end"] is True and rows[0]["_xr_corrupt"] is None
