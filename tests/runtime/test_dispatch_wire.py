"""Wire-level tests of the dispatch engine with the real codecs of runtime/xrgen_runtime/bindings.

Round trips (encode in binary and structured mode -> dispatch -> handler), plain protocol
messages, decode errors, and a hypothesis fuzz test of the exactly-once rule for every wire
message type.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

READING = "com.acme.Reading"
SOURCE = "/plants/{plant}/sensors/{sensor}"
BINDINGS = ("kafka", "amqp", "mqtt", "nats", "http", "pulsar", "rocketmq")


class Reading(BaseModel):
    value: float
    seq: int
    timestamp: datetime


class Order(BaseModel):
    order: str
    qty: int


@pytest.fixture(scope="module")
def rt(runtime_package: ModuleType) -> ModuleType:
    importlib.import_module(runtime_package.__name__ + "._dispatch")
    for name in BINDINGS:
        importlib.import_module(f"{runtime_package.__name__}.bindings.{name}")
    return runtime_package


def codec(rt: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, dict[str, str]]] = []
        self.dead: list[tuple[object, str, str]] = []

    def handler(self, name: str) -> Any:
        def handle(event: Any, params: dict[str, str]) -> None:
            self.calls.append((name, event, params))

        return handle

    def dead_letter(self, original: object, reason: str, detail: str) -> None:
        self.dead.append((original, reason, detail))


def reading_def(rt: ModuleType) -> Any:
    return rt.MessageDef(
        id=READING,
        group="com.acme",
        envelope="CloudEvents/1.0",
        type=READING,
        attributes=(
            rt.AttrDef("type", "string", True, READING),
            rt.AttrDef("source", "uritemplate", True, SOURCE),
            rt.AttrDef("priority", "integer", False, 5),
        ),
        datacontenttype="application/json",
        schemaformat="json",
        model=Reading,
    )


def reading_event(rt: ModuleType) -> Any:
    model = Reading(
        value=21.5, seq=3, timestamp=datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    )
    attributes = {
        "specversion": "1.0",
        "id": "id-1",
        "source": "/plants/p%201/sensors/s%C3%A9",
        "type": READING,
        "time": datetime(2024, 5, 1, 12, 0, 0, 123000, tzinfo=timezone.utc),
        "datacontenttype": "application/json",
        "subject": "Euro € 😀",
        "priority": 5,
    }
    return rt.Event(attributes, model)


ROUND_TRIPS = [
    ("kafka", "binary", {"topic": "readings"}),
    ("kafka", "structured", {"topic": "readings"}),
    ("amqp", "binary", {"address": "readings"}),
    ("amqp", "structured", {"address": "readings"}),
    ("mqtt", "binary", {"topic": "readings", "version": "5.0"}),
    ("mqtt", "structured", {"topic": "readings", "version": "5.0"}),
    ("mqtt", "structured", {"topic": "readings", "version": "3.1.1"}),
    ("nats", "binary", {"subject": "readings"}),
    ("nats", "structured", {"subject": "readings"}),
    ("http", "binary", {"method": "POST", "path": "/readings"}),
    ("http", "structured", {"method": "POST", "path": "/readings"}),
    ("pulsar", "binary", {"topic": "readings"}),
    ("pulsar", "structured", {"topic": "readings"}),
    ("rocketmq", "binary", {"topic": "readings"}),
    ("rocketmq", "structured", {"topic": "readings"}),
]


def _same_attributes(got: dict[str, Any], sent: dict[str, Any]) -> bool:
    """Equal, except that a wire without an integer type may carry ``priority`` as text."""
    relaxed = dict(got)
    if relaxed.get("priority") == "5":
        relaxed["priority"] = 5
    return relaxed == sent


@pytest.mark.parametrize(("binding", "mode", "options"), ROUND_TRIPS)
def test_round_trip_through_every_binding(
    rt: ModuleType, binding: str, mode: str, options: dict[str, Any]
) -> None:
    rec = Recorder()
    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=rec.dead_letter)
    d.on(READING)(rec.handler("reading"))
    event = reading_event(rt)
    wire = codec(rt, binding).encode(event, mode=mode, **options)
    result = d.dispatch(wire)
    assert rec.dead == [] and result.handled and result.message_id == READING
    _name, got, params = rec.calls[0]
    assert _same_attributes(got.attributes, event.attributes), got.attributes
    assert got.data == event.data and isinstance(got.data, Reading)
    assert params == {"plant": "p 1", "sensor": "sé"}
    assert got.binding is not None


@pytest.mark.parametrize(("binding", "mode", "options"), ROUND_TRIPS[:4])
def test_round_trip_async(
    rt: ModuleType, binding: str, mode: str, options: dict[str, Any]
) -> None:
    rec = Recorder()
    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=rec.dead_letter)
    seen: list[Any] = []

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0)
        seen.append(event.data)

    wire = codec(rt, binding).encode(reading_event(rt), mode=mode, **options)
    assert asyncio.run(d.dispatch_async(wire)).handled
    assert seen == [reading_event(rt).data] and rec.dead == []


def test_decode_errors_are_dead_lettered_with_the_original_message(
    rt: ModuleType,
) -> None:
    rec = Recorder()
    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=rec.dead_letter)
    d.on(READING)(rec.handler("reading"))
    bad = rt.KafkaMessage(
        topic="t",
        key=None,
        value=b"{not json",
        headers=(("content-type", b"application/cloudevents+json"),),
    )
    result = d.dispatch(bad)
    assert result.reason == "decode-error" and rec.calls == []
    original, reason, detail = rec.dead[0]
    assert (
        original is bad
        and reason == "decode-error"
        and detail.startswith("invalid-json")
    )
    missing = rt.HttpMessage(
        method="POST", path="/", headers=(("ce-specversion", "1.0"),)
    )
    assert d.dispatch(missing).reason == "decode-error"
    assert "missing-attribute" in rec.dead[1][2]
    assert asyncio.run(d.dispatch_async(bad)).reason == "decode-error"
    assert len(rec.dead) == 3


def test_wire_level_dead_letter_reasons(rt: ModuleType) -> None:
    rec = Recorder()
    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=rec.dead_letter)
    kafka = codec(rt, "kafka")
    event = reading_event(rt)
    wire = kafka.encode(event, topic="t")
    assert d.dispatch(wire).reason == "no-handler"
    d.on(READING)(rec.handler("reading"))
    event.attributes["source"] = "/elsewhere"
    assert d.dispatch(kafka.encode(event, topic="t")).reason == "no-match"
    event.attributes["type"] = "com.acme.Unknown"
    assert d.dispatch(kafka.encode(event, topic="t")).reason == "unknown-type"
    bad_payload = rt.KafkaMessage(
        topic="t",
        key=None,
        value=b'{"value": 1, "seq": 1.5, "timestamp": "x"}',
        headers=wire.headers,
    )
    assert d.dispatch(bad_payload).reason == "validation-error"
    assert [r for _o, r, _d in rec.dead] == [
        "no-handler",
        "no-match",
        "unknown-type",
        "validation-error",
    ]
    assert all(isinstance(o, rt.KafkaMessage) for o, _r, _d in rec.dead)


def plain_defs(rt: ModuleType) -> tuple[Any, ...]:
    o = rt.OptionDef

    def plain(id_: str, protocol: str, *options: Any, model: Any = None) -> Any:
        return rt.MessageDef(
            id=id_,
            group="plain",
            envelope=None,
            type=None,
            protocol=protocol,
            options=options,
            schemaformat="json" if model else None,
            model=model,
        )

    return (
        plain(
            "amqp.Order", "AMQP/1.0", o(("properties", "subject"), "order"), model=Order
        ),
        plain(
            "mqtt.Telemetry",
            "MQTT/5.0",
            o(("topic",), "sites/{site}/telemetry", True),
            model=Order,
        ),
        plain("kafka.Audit", "KAFKA", o(("topic",), "audit")),
        plain(
            "http.Create",
            "HTTP",
            o(("method",), "POST"),
            o(("path",), "/orders/{order}", True),
            model=Order,
        ),
        plain("nats.Ping", "NATS", o(("subject",), "svc.{name}.ping", True)),
    )


def test_plain_wire_messages_matched_by_protocol_discriminators(rt: ModuleType) -> None:
    rec = Recorder()
    defs = plain_defs(rt)
    d = rt._dispatch.DispatcherBase(defs, dead_letter=rec.dead_letter)
    for defn in defs:
        d.on(defn.id)(rec.handler(defn.id))
    body = json.dumps({"order": "o-1", "qty": 2}).encode()
    messages = [
        rt.AmqpMessage(body=body, properties={"subject": "order"}),
        rt.MqttMessage(topic="sites/berlin/telemetry", payload=body),
        rt.MqttMessage(topic="sites/paris/telemetry", payload=body, version="3.1.1"),
        rt.KafkaMessage(topic="audit", key=b"k", value=b"\x00raw"),
        rt.HttpMessage(method="POST", path="/orders/o-1?dry=1", body=body),
        rt.NatsMessage(subject="svc.billing.ping", payload=b""),
    ]
    for message in messages:
        assert d.dispatch(message).handled, (message, rec.dead)
    assert [(n, p) for n, _e, p in rec.calls] == [
        ("amqp.Order", {}),
        ("mqtt.Telemetry", {"site": "berlin"}),
        ("mqtt.Telemetry", {"site": "paris"}),
        ("kafka.Audit", {}),
        ("http.Create", {"order": "o-1"}),
        ("nats.Ping", {"name": "billing"}),
    ]
    assert rec.calls[0][1].data == Order(order="o-1", qty=2)
    assert rec.calls[3][1].data == b"\x00raw"
    misses = [
        rt.AmqpMessage(body=body, properties={"subject": "invoice"}),
        rt.KafkaMessage(topic="audit2", key=None, value=b""),
        rt.HttpMessage(method="GET", path="/orders/o-1", body=body),
        rt.NatsMessage(subject="svc.billing.pong", payload=b""),
    ]
    for message in misses:
        assert d.dispatch(message).reason == "no-match"
    assert (
        d.dispatch(rt.PulsarMessage(topic="audit", payload=b"")).reason
        == "unknown-type"
    )
    bad = rt.MqttMessage(
        topic="sites/x/telemetry", payload=b'{"order": "o", "qty": "2"}'
    )
    assert d.dispatch(bad).reason == "validation-error"
    assert len(rec.calls) == 6 and len(rec.dead) == 6


# ------------------------------------------------------------------------------ fuzz

_text = st.text(max_size=12)
_small_bytes = st.binary(max_size=24)
_ce_names = st.sampled_from(
    [
        "specversion",
        "id",
        "source",
        "type",
        "time",
        "datacontenttype",
        "subject",
        "priority",
    ]
)
_ce_values = st.one_of(
    st.sampled_from(
        [
            "1.0",
            READING,
            "/plants/a/sensors/b",
            "2024-05-01T12:00:00Z",
            "application/json",
        ]
    ),
    _text,
)
_json_bodies = st.one_of(
    _small_bytes,
    st.sampled_from(
        [
            b'{"value": 1.5, "seq": 1, "timestamp": "2024-05-01T12:00:00Z"}',
            b'{"specversion": "1.0", "id": "1", "source": "/plants/a/sensors/b", "type": "com.acme.Reading", "data": {"value": 1, "seq": 2, "timestamp": "2024-05-01T12:00:00Z"}}',
            b'{"specversion": "1.0", "id": "1", "source": "/x", "type": "com.acme.Reading", "data_base64": "eyJ9"}',
            b'{"order": "o", "qty": 1}',
            b"[1, 2]",
            b"null",
        ]
    ),
)
_content_types = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "application/cloudevents+json",
            "application/cloudevents-batch+json",
            "application/cloudevents+avro",
            "application/json",
            "text/plain",
        ]
    ),
    _text,
)


def _pairs(prefix: str, value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    name = st.one_of(_ce_names.map(lambda n: prefix + n), _text)
    return st.lists(st.tuples(name, value), max_size=6).map(tuple)


def _mapping(prefix: str, value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return _pairs(prefix, value).map(dict)


_amqp_values = st.one_of(
    _ce_values,
    st.integers(),
    st.booleans(),
    _small_bytes,
    st.floats(),
    st.none(),
    st.datetimes(timezones=st.just(timezone.utc)),
)


def wire_messages(rt: ModuleType) -> st.SearchStrategy[Any]:
    with_ct = st.tuples(_content_types, _ce_values)
    kafka = st.builds(
        rt.KafkaMessage,
        topic=st.sampled_from(["audit", "t"]),
        key=st.one_of(st.none(), _small_bytes),
        value=st.one_of(st.none(), _json_bodies),
        headers=st.one_of(
            _pairs("ce_", _ce_values.map(str.encode)),
            _content_types.map(
                lambda ct: (("content-type", None if ct is None else ct.encode()),)
            ),
        ),
        partition=st.one_of(st.none(), st.integers(0, 9)),
    )
    amqp = st.builds(
        rt.AmqpMessage,
        body=st.one_of(st.none(), _json_bodies),
        properties=st.one_of(
            _content_types.map(lambda ct: {"content-type": ct, "subject": "order"}),
            _mapping("", _amqp_values),
        ),
        application_properties=st.one_of(
            _mapping("cloudEvents_", _amqp_values),
            _mapping("cloudEvents:", _amqp_values),
        ),
    )
    mqtt = st.builds(
        rt.MqttMessage,
        topic=st.sampled_from(["sites/a/telemetry", "x"]),
        payload=_json_bodies,
        version=st.sampled_from(["5.0", "3.1.1"]),
        content_type=_content_types,
        user_properties=_pairs("", _ce_values),
    )
    nats = st.builds(
        rt.NatsMessage,
        subject=st.sampled_from(["svc.a.ping", "x"]),
        payload=_json_bodies,
        headers=st.one_of(
            _pairs("ce-", _ce_values),
            with_ct.map(lambda p: (("Content-Type", str(p[0])),)),
        ),
    )
    http = st.builds(
        rt.HttpMessage,
        method=st.sampled_from(["POST", "GET", "put"]),
        path=st.sampled_from(["/orders/1", "/", "/orders/%zz?x=%"]),
        headers=st.one_of(
            _pairs("ce-", _ce_values),
            with_ct.map(lambda p: (("content-type", str(p[0])),)),
        ),
        body=_json_bodies,
        status=st.one_of(st.none(), st.integers(100, 599)),
    )
    pulsar = st.builds(
        rt.PulsarMessage,
        topic=st.just("t"),
        payload=_json_bodies,
        properties=_mapping("CE-", _ce_values),
        partition_key=st.one_of(st.none(), _text),
        event_time=st.one_of(st.none(), st.integers(0, 2**41)),
    )
    rocketmq = st.builds(
        rt.RocketMqMessage,
        topic=st.just("t"),
        body=_json_bodies,
        properties=_mapping("CE_", _ce_values),
        tag=st.one_of(st.none(), _text),
        keys=st.lists(_text, max_size=2).map(tuple),
    )
    return st.one_of(kafka, amqp, mqtt, nats, http, pulsar, rocketmq)


@pytest.fixture(scope="module")
def fuzz_dispatcher(rt: ModuleType) -> tuple[Any, Recorder]:
    rec = Recorder()
    defs = (reading_def(rt), *plain_defs(rt))
    d = rt._dispatch.DispatcherBase(defs, dead_letter=rec.dead_letter)
    for defn in defs:
        d.on(defn.id)(rec.handler(defn.id))

    def flaky(event: Any, params: dict[str, str]) -> None:
        rec.calls.append(("flaky", event, params))
        if event.data.seq % 2:
            raise ValueError("odd")

    d.on(READING)(flaky)
    return d, rec


def test_fuzz_exactly_once_for_every_wire_type(
    rt: ModuleType, fuzz_dispatcher: tuple[Any, Recorder]
) -> None:
    d, rec = fuzz_dispatcher
    reasons: set[str] = set()

    @settings(
        max_examples=600,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(message=wire_messages(rt))
    def run(message: Any) -> None:
        rec.calls.clear()
        rec.dead.clear()
        result = d.dispatch(message)
        calls, dead = len(rec.calls), len(rec.dead)
        # a handler that raised is one call plus its handler-error dead letter
        if result.reason == "handler-error":
            assert (calls, dead) == (1, 1)
        else:
            assert calls + dead == 1, (message, rec.calls, rec.dead)
            assert bool(result) == (calls == 1)
        if dead:
            assert rec.dead[0][0] is message and rec.dead[0][1] == result.reason
            assert result.reason != "internal-error", rec.dead[0]
        reasons.add(result.reason or "handled")

    run()
    assert {"decode-error", "handled", "no-match", "unknown-type"} <= reasons, reasons
