"""The bundled catalog's generated ``spark.py`` decodes what its own producers and codecs
write: every message of catalogs/acme, both content modes, through the decoder of its
protocol's landing shape (Kafka-source rows for Kafka; envelope-only messages over Kafka)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest
from acme_samples import SAMPLES
from test_streaming_and_bindings import _to_landing

pytestmark = pytest.mark.spark
LANDING = {"KAFKA": "kafka", "AMQP/1.0": "amqp", "MQTT/5.0": "mqtt", "NATS": "nats", "HTTP": "http"}


def _kafka_row(msg: Any, offset: int) -> dict[str, Any]:
    return {
        "key": msg.key, "value": msg.value, "topic": msg.topic, "partition": 0, "offset": offset,
        "timestamp": None, "timestampType": 0,
        "headers": [{"key": k, "value": v} for k, v in msg.headers],
    }


@pytest.mark.parametrize("message_id", sorted(SAMPLES))
def test_every_acme_message_decodes_in_spark(spark: Any, acme: ModuleType, message_id: str) -> None:
    sp = importlib.import_module("acme.spark")
    info = acme.MESSAGES[message_id]
    data, kwargs = SAMPLES[message_id]
    landing = LANDING.get(info.definition.protocol or "KAFKA", "kafka")
    codec = importlib.import_module(f"acme.bindings.{landing}")
    route = {} if info.definition.protocol else {"topic": "acme.notes"}
    rows = []
    for i, mode in enumerate(["binary", "structured"]):
        event = info.create(data, **kwargs, id=f"e{i}")
        wire = codec.encode(event, mode=mode, **route)
        rows.append(_kafka_row(wire, i) if landing == "kafka" else _to_landing(landing, wire))
    df = spark.createDataFrame(rows, sp.LANDING_SCHEMAS[landing])
    outputs, dead = getattr(sp, f"decode_{landing}")(df)
    assert dead.count() == 0, [(r["reason"], r["detail"]) for r in dead.collect()]
    if info.definition.envelope is None:  # plain protocol message: routed by its topic template
        got = outputs[message_id].collect()
        assert len(got) == len(rows) and {r["params"]["plant"] for r in got} == {kwargs["plant"]}
        assert {bytes(r["data"]) for r in got} == {data}
        return
    # the first matching definition in catalog order wins (an xref alias shares its target's type)
    winner = next(d.id for d in acme._defs.ALL if d.type == info.type and (d.protocol or None) == (info.definition.protocol or None))
    got = outputs[winner].collect()
    assert sorted(r["id"] for r in got) == ["e0", "e1"]
    assert all(r["type"] == info.type for r in got)
    if "sensor" in kwargs:
        assert {r["params"]["sensor"] for r in got} == {kwargs["sensor"]}
    assert sum(frame.count() for frame in outputs.values()) == 2
