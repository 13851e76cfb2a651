"""Plain protocol messages with Avro payloads (catalogs/windgenerator) in the Spark decoder:
each binding's landing rows of the package's own producers and codecs are decoded by the Avro
path (over Arrow: the connector is not installed here) into the message's typed output, with
the values the producer created."""

from __future__ import annotations

import dataclasses
import importlib
from datetime import datetime
from types import ModuleType
from typing import Any

import pytest
from format_samples import WIND_CATALOG, WIND_MESSAGES, binding
from test_spark_acme import _kafka_row
from test_streaming_and_bindings import _to_landing

pytestmark = pytest.mark.spark

CODEC = {
    None: "kafka", "KAFKA": "kafka", "MQTT/5.0": "mqtt", "AMQP/1.0": "amqp", "NATS": "nats",
    "HTTP": "http", "PULSAR": "pulsar", "ROCKETMQ": "rocketmq",
}


@pytest.fixture(scope="module")
def wind(generated: Any, spark: Any) -> ModuleType:
    return generated(WIND_CATALOG, package="spark_wind")  # type: ignore[no-any-return]


@pytest.mark.parametrize("udf", [True, False], ids=["arrow_udf", "mapInArrow"])
def test_plain_avro_rows_decode_on_every_binding(spark: Any, wind: ModuleType, udf: bool) -> None:
    sp = importlib.import_module(wind.__name__ + ".spark")
    rows: dict[str, list[dict[str, Any]]] = {}
    created: dict[str, Any] = {}
    for message_id, (payload, values) in sorted(WIND_MESSAGES.items()):
        info = wind.MESSAGES[message_id]
        event = info.create(payload, **values)
        created[message_id] = event.data
        name = CODEC[info.definition.protocol]
        route = {"topic": "windgenerator.any"} if info.definition.protocol is None else {}
        wire = binding(wind, name).encode(event, **route)
        batch = rows.setdefault(name, [])
        batch.append(_kafka_row(wire, len(batch)) if name == "kafka" else _to_landing(name, wire))
    assert set(rows) == {"kafka", "mqtt", "amqp", "nats", "http", "pulsar", "rocketmq"}
    seen: set[str] = set()
    for name, batch in sorted(rows.items()):
        decoder = sp.decoder(name, payloads="arrow")
        plan = decoder.plan = dataclasses.replace(decoder.plan, arrow_udf=udf and decoder.plan.arrow_udf)
        # the plain Avro definitions are read as Avro, not with from_json
        avro = {t.defn.id for t in plan.targets if t.index in plan.specs}
        assert {t.defn.id for t in plan.targets if t.defn.id in WIND_MESSAGES} <= avro
        assert all(plan.specs[t.index].format == "avro" for t in plan.targets if t.defn.id in avro)
        df = spark.createDataFrame(batch, sp.LANDING_SCHEMAS[name])
        outputs, dead = decoder.decode(df)
        assert dead.count() == 0, dead.select("reason", "detail").collect()
        for message_id, frame in outputs.items():
            for r in frame.collect():
                seen.add(message_id)
                model = type(created[message_id])
                assert model.model_validate(_python(r["data"].asDict(recursive=True))) == created[message_id]
    assert seen == set(WIND_MESSAGES)


def _python(value: Any) -> Any:
    """A Spark row's value as the payload's Python values (naive timestamps are UTC)."""
    if isinstance(value, dict):
        return {k: _python(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_python(v) for v in value]
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.isoformat() + "Z"
    if isinstance(value, bytearray):
        return bytes(value)
    return value
