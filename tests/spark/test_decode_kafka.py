"""decode_kafka on a real local SparkSession, with rows encoded by the runtime Kafka codec."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.spark

READING = {"value": 21.5, "unit": "C", "at": "2024-05-01T10:00:00Z", "tags": ["a"],
           "location": {"lat": 1.0, "lon": 2.0}}


def _rows(catalog: Any) -> list[tuple[Any, ...]]:
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s%201"
    good_bin = catalog.event("com.acme.Reading", READING, src, seq=7, urgent=True, id="r1")
    good_str = catalog.event("com.acme.Reading", READING, src, seq=8, id="r2")
    alarm = catalog.event("com.acme.Alarm", {"code": 3, "message": None}, "/alarms", id="a1")
    blob = catalog.event("com.acme.Blob", b"\x00\x01raw", "/b", id="b1",
                         datacontenttype="application/octet-stream")
    msgs = [
        kafka.encode(good_bin, mode="binary"),
        kafka.encode(good_str, mode="structured"),
        kafka.encode(alarm, mode="binary"),
        kafka.encode(blob, mode="binary"),
    ]
    return [catalog.row(m, i) for i, m in enumerate(msgs)]


def test_binary_and_structured_rows_are_typed(catalog: Any, kafka_df: Any, spark_rt: Any) -> None:
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
