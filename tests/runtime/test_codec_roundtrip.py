"""Round trips of every binding codec in both content modes (and MQTT 3.1.1 structured)."""

from __future__ import annotations

import importlib
from datetime import datetime, timedelta, timezone
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

UTC = timezone.utc

#: (codec module name, mode, binding factory name, binding kwargs)
CASES = [
    ("kafka", "binary", "KafkaBinding", {"topic": "t1", "key": b"k", "partition": 2}),
    ("kafka", "structured", "KafkaBinding", {"topic": "t1", "key": None}),
    ("amqp", "binary", "AmqpBinding", {"address": "q1", "properties": {"subject": "s"}}),
    ("amqp", "structured", "AmqpBinding", {"address": "q1"}),
    ("mqtt", "binary", "MqttBinding", {"topic": "a/b", "qos": 1, "retain": True}),
    ("mqtt", "structured", "MqttBinding", {"topic": "a/b", "qos": 2}),
    ("mqtt", "structured", "MqttBinding", {"topic": "a/b", "version": "3.1.1"}),
    ("nats", "binary", "NatsBinding", {"subject": "x.y", "reply": "r"}),
    ("nats", "structured", "NatsBinding", {"subject": "x.y"}),
    ("http", "binary", "HttpBinding", {"method": "PUT", "path": "/e", "query": (("a", "1 2"),)}),
    ("http", "structured", "HttpBinding", {"method": "POST", "path": "/"}),
    ("pulsar", "binary", "PulsarBinding", {"topic": "p", "partition_key": "pk", "event_time": 5}),
    ("pulsar", "structured", "PulsarBinding", {"topic": "p"}),
    ("rocketmq", "binary", "RocketMqBinding", {"topic": "r", "tag": "tg", "keys": ("k1",)}),
    ("rocketmq", "structured", "RocketMqBinding", {"topic": "r"}),
]
IDS = [f"{c[0]}-{c[1]}-{c[3].get('version', '')}".rstrip("-") for c in CASES]

EXT_TIME = datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)


def attributes() -> dict[str, Any]:
    return {
        "specversion": "1.0",
        "id": "id-1 ü",
        "source": "https://example.com/src?x=1",
        "type": "com.example.Thing",
        "subject": 'Euro € 😀 "quoted" 100%',
        "time": datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
        "dataschema": "https://example.com/schema.json",
        "strext": "plain",
        "intext": -42,
        "boolext": True,
        "binext": b"\x00\xffbin",
        "timeext": EXT_TIME,
        "partitionkey": "pk-1",
    }


def expected_attributes(name: str, mode: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """Attribute values after a round trip: the wire decides which types survive."""
    from rtcanon import canonical  # type: ignore[import-not-found]

    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if key == "time":
            out[key] = value
        elif mode == "structured":
            out[key] = canonical(value) if isinstance(value, (bytes, datetime)) else value
        elif name == "amqp":
            out[key] = value
        else:
            out[key] = canonical(value)
    return out


@pytest.fixture(autouse=True)
def _canon(runtime_package: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = ModuleType("rtcanon")
    attributes = importlib.import_module(runtime_package.__name__ + "._attributes")
    mod.canonical = attributes.to_canonical  # type: ignore[attr-defined]
    monkeypatch.setitem(__import__("sys").modules, "rtcanon", mod)


def codec(rt: ModuleType, name: str) -> ModuleType:
    import importlib

    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


@pytest.mark.parametrize(("name", "mode", "bname", "bargs"), CASES, ids=IDS)
def test_round_trip_bytes_payload(
    runtime_package: ModuleType, name: str, mode: str, bname: str, bargs: dict[str, Any]
) -> None:
    rt = runtime_package
    binding = getattr(rt, bname)(**bargs)
    attrs = attributes()
    attrs["datacontenttype"] = "application/octet-stream"
    event = rt.Event(attrs, b"\x01\x02payload\xff", binding)
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    assert decoded.attributes == expected_attributes(name, mode, attrs)
    assert decoded.data == b"\x01\x02payload\xff"
    assert type(decoded.binding) is type(binding)
    assert event.attributes == attrs  # encode never modifies the event


@pytest.mark.parametrize(("name", "mode", "bname", "bargs"), CASES, ids=IDS)
def test_round_trip_model_payload(
    runtime_package: ModuleType, name: str, mode: str, bname: str, bargs: dict[str, Any]
) -> None:
    rt = runtime_package

    class Reading(BaseModel):
        value: float
        label: str
        when: datetime

    payload = Reading(value=1.5, label="Grüße 😀", when=datetime(2024, 1, 1, tzinfo=UTC))
    attrs = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}
    event = rt.Event(dict(attrs), payload, getattr(rt, bname)(**bargs))
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    if mode == "structured":
        # the JSON format implies application/json; nothing is invented
        assert decoded.attributes == attrs
        assert Reading.model_validate(decoded.data) == payload
    else:
        # binary: the implied type is written explicitly (spec.md datacontenttype)
        assert decoded.attributes == {**attrs, "datacontenttype": "application/json"}
        assert Reading.model_validate_json(decoded.data) == payload


@pytest.mark.parametrize(("name", "mode", "bname", "bargs"), CASES, ids=IDS)
def test_round_trip_without_data(
    runtime_package: ModuleType, name: str, mode: str, bname: str, bargs: dict[str, Any]
) -> None:
    rt = runtime_package
    attrs = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}
    event = rt.Event(dict(attrs), None, getattr(rt, bname)(**bargs))
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    assert decoded.attributes == attrs
    assert decoded.data is None


@pytest.mark.parametrize(("name", "mode", "bname", "bargs"), CASES, ids=IDS)
def test_binding_metadata_round_trips(
    runtime_package: ModuleType, name: str, mode: str, bname: str, bargs: dict[str, Any]
) -> None:
    rt = runtime_package
    binding = getattr(rt, bname)(**bargs)
    event = rt.Event({"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}, b"x", binding)
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    for field, value in bargs.items():
        if field == "query":
            assert decoded.binding.query == value
        else:
            assert getattr(decoded.binding, field) == value, field


@pytest.mark.parametrize(("name", "mode", "bname", "bargs"), CASES, ids=IDS)
def test_plain_message_round_trip(
    runtime_package: ModuleType, name: str, mode: str, bname: str, bargs: dict[str, Any]
) -> None:
    rt = runtime_package
    binding = getattr(rt, bname)(**bargs)
    event = rt.Event({}, b"raw bytes \xff", binding)
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    assert decoded.attributes == {}
    assert decoded.data == b"raw bytes \xff"
    assert decoded.binding == binding


@pytest.mark.parametrize(
    ("name", "bname"),
    [
        ("kafka", "KafkaBinding"),
        ("mqtt", "MqttBinding"),
        ("nats", "NatsBinding"),
        ("pulsar", "PulsarBinding"),
        ("rocketmq", "RocketMqBinding"),
    ],
)
def test_missing_routing_field_raises_value_error(
    runtime_package: ModuleType, name: str, bname: str
) -> None:
    rt = runtime_package
    event = rt.Event({"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}, b"x")
    mod = codec(rt, name)
    with pytest.raises(ValueError, match="no (topic|subject)"):
        mod.encode(event)
    with pytest.raises(ValueError, match="no (topic|subject)"):
        mod.encode(rt.Event(event.attributes, b"x", getattr(rt, bname)()))


@pytest.mark.parametrize("name", ["kafka", "amqp", "mqtt", "nats", "http", "pulsar", "rocketmq"])
def test_encode_rejects_bad_events(runtime_package: ModuleType, name: str) -> None:
    rt = runtime_package
    mod = codec(rt, name)
    kw = {"kafka": "topic", "mqtt": "topic", "nats": "subject", "pulsar": "topic"}
    extra = {kw.get(name, "topic"): "t"} if name in ("kafka", "mqtt", "nats", "pulsar", "rocketmq") else {}
    good = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}
    with pytest.raises(ValueError, match="mode"):
        mod.encode(rt.Event(good, b"x"), "bogus", **extra)
    with pytest.raises(ValueError, match="specversion"):
        mod.encode(rt.Event({**good, "specversion": "0.3"}, b"x"), **extra)
    with pytest.raises(ValueError, match="'id'"):
        mod.encode(rt.Event({k: v for k, v in good.items() if k != "id"}, b"x"), **extra)
    with pytest.raises(ValueError, match="attribute name"):
        mod.encode(rt.Event({**good, "Bad-Name": "v"}, b"x"), **extra)
    with pytest.raises(ValueError, match="32-bit"):
        mod.encode(rt.Event({**good, "big": 2**31}, b"x"), **extra)


def test_overrides_win_over_binding(runtime_package: ModuleType) -> None:
    rt = runtime_package
    from importlib import import_module

    kafka = import_module(f"{rt.__name__}.bindings.kafka")
    event = rt.Event(
        {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"},
        b"x",
        rt.KafkaBinding(topic="a", key=b"k", partition=1),
    )
    msg = kafka.encode(event, topic="b", key=b"k2", partition=3)
    assert (msg.topic, msg.key, msg.partition) == ("b", b"k2", 3)


def test_time_offsets_normalize_to_utc(runtime_package: ModuleType) -> None:
    rt = runtime_package
    from importlib import import_module

    kafka = import_module(f"{rt.__name__}.bindings.kafka")
    t = datetime(2024, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    event = rt.Event(
        {"specversion": "1.0", "id": "1", "source": "/s", "type": "t", "time": t},
        b"x",
        rt.KafkaBinding(topic="a"),
    )
    msg = kafka.encode(event)
    assert dict(msg.headers)["ce_time"] == b"2024-01-01T10:00:00Z"
    assert kafka.decode(msg).attributes["time"] == t
