"""Pulsar and RocketMQ draft bindings."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


def mod(rt: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


def test_pulsar_properties(runtime_package: ModuleType) -> None:
    rt = runtime_package
    pulsar = mod(rt, "pulsar")
    event = rt.Event({**BASE, "datacontenttype": "text/plain", "x": 1}, b"p",
                     rt.PulsarBinding(topic="t", properties={"app": "1"}))
    msg = pulsar.encode(event)
    assert msg.properties == {
        "app": "1", "CE-specversion": "1.0", "CE-id": "1", "CE-source": "/s", "CE-type": "t",
        "CE-datacontenttype": "text/plain", "CE-x": "1",
    }
    decoded = pulsar.decode(msg)
    assert decoded.attributes == {**BASE, "datacontenttype": "text/plain", "x": "1"}
    assert decoded.binding.properties == {"app": "1"}
    structured = pulsar.encode(event, "structured")
    assert structured.properties["CE-datacontenttype"] == "application/cloudevents+json"
    draft = rt.PulsarMessage("t", structured.payload, {"CE-ContentType": "application/cloudevents+json"})
    assert pulsar.decode(draft).attributes == event.attributes


def test_rocketmq_properties_and_no_data_marker(runtime_package: ModuleType) -> None:
    rt = runtime_package
    rocketmq = mod(rt, "rocketmq")
    event = rt.Event({**BASE, "datacontenttype": "text/plain"}, None,
                     rt.RocketMqBinding(topic="t", tag="tg", keys=("a", "b")))
    msg = rocketmq.encode(event)
    assert msg.body == b"\x00"  # sdk-java's "no data" marker; RocketMQ rejects empty bodies
    assert msg.properties["CE_contenttype"] == "text/plain"
    assert msg.properties["CE_id"] == "1"
    assert (msg.tag, msg.keys) == ("tg", ("a", "b"))
    decoded = rocketmq.decode(msg)
    assert decoded.data is None and decoded.attributes == event.attributes
    structured = rocketmq.encode(event, "structured")
    assert structured.properties == {"CE_contenttype": "application/cloudevents+json"}
    draft = rt.RocketMqMessage("t", structured.body, {"CE_contentType": "application/cloudevents+json"})
    assert rocketmq.decode(draft).attributes == event.attributes


@pytest.mark.parametrize("name", ["pulsar", "rocketmq"])
def test_decode_errors(runtime_package: ModuleType, name: str) -> None:
    rt = runtime_package
    codec = mod(rt, name)
    prefix = "CE-" if name == "pulsar" else "CE_"
    cls = rt.PulsarMessage if name == "pulsar" else rt.RocketMqMessage
    with pytest.raises(rt.DecodeError) as exc:
        codec.decode(cls("t", b"x", {prefix + "id": "1"}))
    assert exc.value.reason == "missing-attribute"
    with pytest.raises(rt.DecodeError) as exc:
        codec.decode(cls("t", b"x", {prefix + "Bad": "1"}))
    assert exc.value.reason == "invalid-attribute-name"
