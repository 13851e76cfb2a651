"""catalogs/payloads through its generated ``spark.py``: definitions that tie on everything the
wire carries land in the output of the first whose payload is accepted, as the dispatcher
routes them; a payload that none accepts is dead-lettered with the first one's reason."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_spark_acme import _kafka_row
from test_streaming_and_bindings import _to_landing
from xrgen_runtime import MqttMessage

pytestmark = pytest.mark.spark
CATALOG = Path(__file__).resolve().parents[2] / "catalogs" / "payloads" / "catalog.json"


@pytest.fixture(scope="module")
def pkg(generated: Any) -> ModuleType:
    return generated(CATALOG, package="payload_ties_spark")


def routed(spark: Any, sp: ModuleType, codec: str, rows: list[dict[str, Any]], key: str) -> Any:
    """({message id: [values of ``key``]} of the outputs with ``key`` in their data, and the
    other outputs' row count, [(reason, detail, key value)])."""
    df = spark.createDataFrame(rows, sp.LANDING_SCHEMAS[codec])
    outputs, dead = getattr(sp, f"decode_{codec}")(df)
    got = {
        mid: (
            sorted(r[0] for r in frame.select(f"data.{key}").collect())
            if key in frame.schema["data"].dataType.names
            else frame.count()
        )
        for mid, frame in outputs.items()
    }
    column = "value" if codec == "kafka" else "payload"
    letters = sorted(
        (r["reason"], r["detail"], json.loads(r[column]).get(key) if codec != "kafka" else None)
        for r in dead.collect()
    )
    return got, letters


def test_kafka_rows_land_by_their_payload_constant(spark: Any, pkg: ModuleType) -> None:
    sp = importlib.import_module(pkg.__name__ + ".spark")
    kafka = importlib.import_module(pkg.__name__ + ".bindings.kafka")
    rows = []
    for mode in ("binary", "structured"):
        for message_id, online in (("payloads.lamp.On", True), ("payloads.lamp.Off", False)):
            event = pkg.MESSAGES[message_id].create({"online": online}, lamp="l1")
            rows.append(_kafka_row(kafka.encode(event, mode=mode, topic="lamps"), len(rows)))
    # the same envelope with a payload that neither accepts: the first one's reason
    event = pkg.MESSAGES["payloads.lamp.On"].create({"online": True}, lamp="l1")
    wire = kafka.encode(event, mode="binary", topic="lamps")
    rows.append(_kafka_row(type(wire)(wire.topic, wire.key, b'{"online": "yes"}', wire.headers, None), 9))
    got, dead = routed(spark, sp, "kafka", rows, "online")
    assert got == {
        "payloads.lamp.On": [True, True],
        "payloads.lamp.Off": [False, False],
    }  # the MQTT definitions are not read from Kafka
    assert dead == [("validation-error", "invalid payload", None)]


def state(value: Any, **more: Any) -> dict[str, Any]:
    body = {"state": value, "timestamp": 1700000000000, **more}
    wire = MqttMessage(topic="spBv1.0/STATE/h1", payload=json.dumps(body).encode(), qos=1, retain=True)
    return _to_landing("mqtt", wire)


def test_mqtt_rows_land_by_their_payload_enum(spark: Any, pkg: ModuleType) -> None:
    sp = importlib.import_module(pkg.__name__ + ".spark")
    rows = [state("online"), state("offline"), state("offline"), state("restarting")]
    rows.append({**state("online"), "payload": b'{"state": "online"}'})  # no timestamp
    got, dead = routed(spark, sp, "mqtt", rows, "state")
    assert got == {
        "payloads.lamp.On": 0,
        "payloads.lamp.Off": 0,
        "payloads.host.Death": ["offline", "offline"],
        "payloads.host.Birth": ["online"],
    }
    # the dispatcher's reasons: the first definition (Death) for what none accepts
    assert dead == [
        ("validation-error", "invalid payload", "restarting"),
        ("validation-error", "missing field: timestamp", "online"),
    ]
    d = pkg.consumer.Dispatcher(dead_letter=lambda *_: None)
    for mid in pkg.MESSAGES:
        d.on(mid)(lambda _e, _p: None)
    for row, expected in zip(rows, ["Birth", "Death", "Death", None, None], strict=True):
        wire = MqttMessage(topic=row["topic"], payload=row["payload"], qos=1, retain=True)
        result = d.dispatch(wire)
        if expected is None:
            assert (result.message_id, result.reason) == ("payloads.host.Death", "validation-error")
        else:
            assert result.message_id == f"payloads.host.{expected}"


def test_only_a_decoder_with_ties_has_tie_stages(
    spark: Any, pkg: ModuleType, acme: ModuleType
) -> None:
    sp = importlib.import_module(acme.__name__ + ".spark")
    assert sp.PAYLOAD_CHECKS == {}
    decoder = sp.decoder("kafka")
    ties = importlib.import_module(type(decoder).__module__.rsplit(".", 1)[0] + ".ties")
    assert decoder.plan.ties == () and ties.stages(decoder.plan, ["a"]) == []
    tied = importlib.import_module(pkg.__name__ + ".spark").decoder("mqtt")
    assert [[t.defn.id for t in run] for run in tied.plan.ties] == [
        ["payloads.host.Death", "payloads.host.Birth"],  # bound to MQTT: first
        ["payloads.lamp.On", "payloads.lamp.Off"],
    ]


def test_runs_read_placeholders_by_position_and_leave_out_repeats(spark_rt: ModuleType) -> None:
    from pyspark.sql.types import BooleanType, StructField, StructType
    from xrgen_runtime import AttrDef, MessageDef

    def definition(mid: str, source: str) -> MessageDef:
        attrs = (AttrDef("type", value="t"), AttrDef("source", "uritemplate", value=source))
        return MessageDef(mid, "g", "CloudEvents/1.0", "t", attrs)

    defs = [
        definition("a", "/a/{x}"),
        definition("b", "/a/{y}"),  # the same texts
        definition("c", "/a/{x}"),  # the same payload and checks as a: never taken
        definition("d", "/b/{x}"),
    ]
    online = StructType([StructField("online", BooleanType(), False)])
    checks = {"a": ((("online",), (True,)),), "b": ((("online",), (False,)),)}
    checks["c"] = checks["a"]
    decoder = spark_rt.SparkDecoder(
        defs, dict.fromkeys("abcd", online), "json", payload_checks=checks
    )
    assert [[t.defn.id for t in run] for run in decoder.plan.ties] == [["a", "b"]]
    assert decoder.plan.tie_leader == {1: 0}
