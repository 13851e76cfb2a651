"""catalogs/routing: protocol options in every spelling, endpoint and group defaults, and
protocol versions spelled loosely, through the generated package. Every message is created
by its own producer, encoded in every mode of its binding without the caller giving a
destination, and dispatched with every handler of the package registered: exactly its own
handler is called."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import pytest
from sample_events import own_wires
from xrgen_runtime.testing import example_event

from xrgen import api
from xrgen.format import Formatter

from conftest import CATALOGS, Generated

CATALOG = CATALOGS / "routing" / "catalog.json"


@pytest.fixture(scope="module")
def pkg(generated: Generated) -> ModuleType:
    return generated(CATALOG, package="routing_pkg")


def test_every_message_reaches_exactly_its_own_handler(pkg: ModuleType) -> None:
    received: list[str] = []
    dead: list[tuple[str, str]] = []
    dispatcher = pkg.consumer.Dispatcher(dead_letter=lambda _w, r, d: dead.append((r, d)))
    for message_id in pkg.MESSAGES:
        dispatcher.on(message_id)(lambda ev, params, mid=message_id: received.append(mid))
    checked = 0
    for message_id in pkg.MESSAGES:
        event = example_event(pkg, message_id)
        for _codec, mode, wire in own_wires(pkg, message_id, event):
            received.clear()
            dead.clear()
            result = dispatcher.dispatch(wire)
            assert result.handled and not dead, (message_id, mode, dead)
            assert received == [message_id], (message_id, mode, received)
            checked += 1
    assert checked >= 2 * len(pkg.MESSAGES) - 6  # plain messages have one mode


def _binding(pkg: ModuleType, message_id: str, **kw: Any) -> Any:
    return example_event(pkg, message_id, **kw).binding


def test_option_spellings_reach_the_wire(pkg: ModuleType) -> None:
    kafka = importlib.import_module("routing_pkg.bindings.kafka")
    created = kafka.encode(example_event(pkg, "routing.kafka.KafkaCreated", orderid="o-1"))
    assert created.topic == "orders" and created.key == b"o-1"
    headers = dict(created.headers)
    assert headers["x-origin"] == b"shop" and headers["x-kind"] == b"created"
    cancelled = kafka.encode(example_event(pkg, "routing.kafka.KafkaCancelled"))
    assert dict(cancelled.headers)["x-kind"] == b"cancelled"

    amqp = _binding(pkg, "routing.amqp.AmqpCreated")
    assert amqp.address == "orders" and amqp.properties == {"subject": "order"}
    assert amqp.application_properties == {"kind": "created"}
    deleted = _binding(pkg, "routing.amqp.AmqpDeleted")
    assert deleted.application_properties == {"kind": "deleted"}
    assert deleted.message_annotations == {"x-opt-origin": "shop"}

    status = _binding(pkg, "routing.mqtt.MqttStatus", device="d1")
    assert (status.topic, status.qos, status.version) == ("dev/d1/status", 1, "3.1.1")
    assert _binding(pkg, "routing.mqtt.MqttOn").user_properties == (("kind", "on"),)
    assert _binding(pkg, "routing.mqtt.MqttOff").user_properties == (("kind", "off"),)
    assert _binding(pkg, "routing.nats.NatsA").headers == (("x-kind", "a"),)
    http_b = _binding(pkg, "routing.http.HttpB")
    assert (http_b.method, http_b.path, http_b.headers) == ("POST", "/orders", (("X-Kind", "b"),))
    assert _binding(pkg, "routing.pulsar.PulsarB").properties == {"kind": "b"}
    rocket = _binding(pkg, "routing.rocketmq.RocketmqA")
    assert (rocket.topic, rocket.tag, rocket.properties) == ("r-orders", "t", {"kind": "a"})


def test_endpoint_and_group_defaults(pkg: ModuleType) -> None:
    kafka = _binding(pkg, "routing.ep.kafka.EpKafkaPlaced")
    assert kafka.topic == "ep-topic" and dict(kafka.headers) == {"x-src": b"endpoint"}
    assert _binding(pkg, "routing.ep.nats.EpNatsPlaced").subject == "ep.subject"
    first = _binding(pkg, "routing.ep.mqtt.EpMqttDefault")
    assert (first.topic, first.qos) == ("ep/one", 1)  # the first endpoint wins
    own = _binding(pkg, "routing.ep.mqtt.EpMqttOwn")
    assert (own.topic, own.qos) == ("own/topic", 1)  # the message's own topic wins
    assert _binding(pkg, "routing.ep.amqp.EpAmqpPlaced").address == "queue-x"
    assert pkg.MESSAGES["routing.ep.multi.EpMultiPlaced"].definition.protocol is None
    inline = pkg.MESSAGES["routing.inline.Ping"]  # an endpoint's own messages: its group
    assert inline.group == "ep.inline"
    assert _binding(pkg, "routing.inline.Ping").subject == "inline.subject"
    grp = _binding(pkg, "routing.grp.http.GrpHttpPlaced")
    assert (grp.method, grp.path) == ("PUT", "/group")


def test_routing_diagnostics(tmp_path: Any) -> None:
    result = api.generate([str(CATALOG)], "r", formatter=Formatter(cache_dir=tmp_path))
    found = {(d.code, d.pointer) for d in result.diagnostics}
    assert ("XRG207", "/endpoints/ep.mqtt.two/protocoloptions/topic") in found
    assert ("XRG208", "/messagegroups/routing.ep.multi") in found
    # a consumer's wildcard subject is its subscription filter, not its messages' subject
    assert ("XRG117", "/endpoints/ep.nats.consumer/protocoloptions/subject") in found
    assert not any(d.code in ("XRG174", "XRG175") for d in result.diagnostics)
