"""Column helpers of the Spark decoder against the Python runtime they mirror."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.spark

#: content types around the fast paths of ``_media_is_cloudevents``: exact prefixes, other
#: case, leading whitespace, ``application/c...`` that is not CloudEvents, non-ASCII
CONTENT_TYPES = [
    "application/cloudevents+json",
    "application/cloudevents+json; charset=utf-8",
    "application/cloudevents-batch+json",
    "Application/CloudEvents-Batch+JSON",
    " application/cloudevents-batch+json",
    "application/cloudevents+xml",
    "Application/CloudEvents+JSON",
    "APPLICATION/CLOUDEVENTS+JSON",
    "application/Cloudevents+json",
    "application/CLOUDEVENTS",
    " application/cloudevents+json",
    "\t\x1capplication/cloudevents+json",
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/cbor",
    "application/c",
    "application/cloudevent",
    "application/",
    "applicatio",
    "text/plain",
    "",
    "appl\u0130cation/cloudevents+json",
    "application/\u212aloudevents+json",
    "x application/cloudevents+json",
]

#: ``time`` values: RFC 3339 shapes and near misses (``try_cast`` alone accepts some)
TIMES = [
    "2024-05-01T10:00:00Z",
    "2024-05-01t10:00:00z",
    "2024-05-01T10:00:00.123456Z",
    "2024-05-01T10:00:00+02:00",
    "2024-05-01T10:00:00-05:30",
    "2024-05-01T10:00:00",
    "2024-05-01 10:00:00Z",
    "2024-05-01",
    "2024-05-01T10:00Z",
    "2024-13-01T10:00:00Z",
    "T024-05-01T10:00:00Z",
    "2024-05-01T10:00:00 UTC",
    "2024-05-01Tt0:00:00Z",
    "",
]


def _sql(spark_rt: ModuleType) -> ModuleType:
    """The SQL text builder the decoder's helpers take and return."""
    return importlib.import_module(spark_rt.__name__ + ".sql")


def _values(spark_rt: ModuleType) -> ModuleType:
    """How the decoder reads values."""
    return importlib.import_module(spark_rt.__name__ + ".values")


def _spark_values(spark: Any, values: list[str], column: Any) -> list[Any]:
    df = spark.createDataFrame(
        [(i, v) for i, v in enumerate(values)], "i int, v string"
    )
    rows = df.selectExpr("i", column.alias("r").sql).orderBy("i").collect()
    return [r["r"] for r in rows]


def test_structured_mode_detection_matches_the_codecs(
    spark: Any, spark_rt: ModuleType, runtime_package: ModuleType
) -> None:
    """``media_is_cloudevents`` says structured where the codecs' ``content_mode`` does not say
    binary (structured, batch, or an unsupported ``application/cloudevents`` format)."""
    common = importlib.import_module(runtime_package.__name__ + ".bindings._common")
    v = _sql(spark_rt).col("v")

    def python(ct: str) -> bool:
        try:
            return bool(common.content_mode(ct) != common.BINARY)
        except runtime_package.DecodeError:
            return True  # application/cloudevents+xml: a format other than JSON

    got = _spark_values(
        spark, CONTENT_TYPES, _values(spark_rt).media_is_cloudevents(v)
    )
    assert dict(zip(CONTENT_TYPES, got, strict=True)) == {
        ct: python(ct) for ct in CONTENT_TYPES
    }
    assert got.count(True) == 12  # the list covers both verdicts
    # a missing header is binary mode
    null = spark.createDataFrame([(None,)], "v string")
    test = _values(spark_rt).media_is_cloudevents(v).sql
    assert null.selectExpr(test).first()[0] is False


def test_batch_mode_detection_matches_the_codecs(
    spark: Any, spark_rt: ModuleType, runtime_package: ModuleType
) -> None:
    """HTTP's ``unsupported`` (batch mode) holds where the codecs' ``content_mode`` says batch
    (the list has no batch media type in a format other than JSON)."""
    common = importlib.import_module(runtime_package.__name__ + ".bindings._common")

    def python(ct: str) -> bool:
        try:
            return bool(common.content_mode(ct) == common.BATCH)
        except runtime_package.DecodeError:
            return False

    wire = importlib.import_module(
        runtime_package.__name__ + ".bindings.http.spark"
    ).HttpWire()
    wire.content_type = lambda: _sql(spark_rt).col("v")  # the content type under test
    got = _spark_values(spark, CONTENT_TYPES, wire.unsupported())
    assert dict(zip(CONTENT_TYPES, got, strict=True)) == {
        ct: python(ct) for ct in CONTENT_TYPES
    }
    assert got.count(True) == 3


def test_timestamp_attributes_parse_as_the_codecs_do(
    spark: Any, spark_rt: ModuleType, runtime_package: ModuleType
) -> None:
    """``values.typed(raw, "timestamp")`` is set exactly where ``parse_time`` accepts the text, with
    the same instant."""
    core = importlib.import_module(runtime_package.__name__ + "._time")

    def python(text: str) -> Any:
        try:
            return core.parse_time(text)
        except ValueError:
            return None

    v = _sql(spark_rt).col("v")
    got = _spark_values(spark, TIMES, _values(spark_rt).typed(v, "timestamp"))
    expected = [python(t) for t in TIMES]
    assert [g is not None for g in got] == [e is not None for e in expected]
    assert [g.timestamp() for g in got if g] == [e.timestamp() for e in expected if e]
    assert sum(e is not None for e in expected) == 5
