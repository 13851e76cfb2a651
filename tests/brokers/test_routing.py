"""Definitions told apart only by a protocol option constant, over real brokers: plain AMQP
messages by an application property (RabbitMQ), plain MQTT 5 messages by a user property
(Mosquitto) and CloudEvents of one type by a NATS header. Each option is declared in another
spelling; the generated package's dispatcher, with every handler registered, calls exactly the
handler of the message that was sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime.testing import example_event

from .conftest import HOST, adapter, codec, unique
from conftest import Generated

pytestmark = pytest.mark.brokers

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Item",
    "type": "object",
    "properties": {"id": {"type": "string"}},
    "required": ["id"],
}


def _plain(mid: str, protocol: str, options: dict[str, Any]) -> dict[str, Any]:
    return {
        "messageid": mid,
        "protocol": protocol,
        "protocoloptions": options,
        "dataschemaformat": "JsonSchema/draft-07",
        "dataschema": SCHEMA,
    }


def _ce(mid: str, ce_type: str, protocol: str, options: dict[str, Any]) -> dict[str, Any]:
    return {
        **_plain(mid, protocol, options),
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {"type": {"value": ce_type}, "source": {"value": "/items"}},
    }


def _package(generated: Generated, tmp_path: Path, messages: dict[str, Any]) -> ModuleType:
    doc = {"messagegroups": {"items": {"messagegroupid": "items", "messages": messages}}}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    return generated(path, package=unique("brk").replace("-", "_"))


def _dispatcher(pkg: ModuleType) -> tuple[Any, list[str], list[Any]]:
    called: list[str] = []
    dead: list[Any] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda _w, r, det: dead.append((r, det)))
    for mid in pkg.MESSAGES:
        d.on(mid)(lambda ev, params, mid=mid: called.append(mid))
    return d, called, dead


def test_amqp_application_property_decides(
    generated: Generated, tmp_path: Path, amqp_url: str
) -> None:
    address = "/queue/" + unique("amqp-route")
    pkg = _package(
        generated,
        tmp_path,
        {
            "items.Created": _plain(
                "items.Created",
                "AMQP/1.0",
                {
                    "node": address,
                    "application-properties": {"kind": {"type": "string", "value": "created"}},
                },
            ),
            "items.Deleted": _plain(
                "items.Deleted",
                "AMQP",
                {
                    "node": {"value": address},
                    "application_properties": [{"name": "kind", "value": "deleted"}],
                },
            ),
        },
    )
    amqp, aa = codec(pkg, "amqp"), adapter(pkg, "amqp")
    order = ["items.Deleted", "items.Created", "items.Created", "items.Deleted"]
    with aa.AmqpSender(amqp_url) as tx:
        futures = [tx.send(amqp.encode(example_event(pkg, mid))) for mid in order]
        tx.flush(20)
    assert all(f.result(0).destination == address for f in futures)  # Receipt
    d, called, dead = _dispatcher(pkg)
    with aa.AmqpReceiver(amqp_url, address) as rx:
        assert rx.run(d.dispatch, max_messages=len(order), idle_timeout=10) == len(order)
    assert (called, dead) == (order, [])


def test_mqtt_user_property_decides(generated: Generated, tmp_path: Path, mqtt_port: int) -> None:
    topic = unique("mqtt-route") + "/lamp"
    pkg = _package(
        generated,
        tmp_path,
        {
            "items.On": _plain(
                "items.On",
                "MQTT/5.0",
                {"topic_name": topic, "qos": 1, "user_properties": {"kind": {"value": "on"}}},
            ),
            "items.Off": _plain(
                "items.Off",
                "MQTT/5",
                {
                    "topic_name": {"value": topic},
                    "qos": {"type": "integer", "value": 1},
                    "user_properties": [{"name": "kind", "type": "string", "value": "off"}],
                },
            ),
        },
    )
    mqtt, ma = codec(pkg, "mqtt"), adapter(pkg, "mqtt")
    order = ["items.Off", "items.On", "items.On", "items.Off"]
    d, called, dead = _dispatcher(pkg)
    with ma.MqttReceiver(HOST, mqtt_port, [topic]) as rx:
        with ma.MqttSender(HOST, mqtt_port) as tx:
            for mid in order:
                tx.send(mqtt.encode(example_event(pkg, mid)))
            tx.flush(10)
        assert rx.run(d.dispatch, max_messages=len(order), idle_timeout=10) == len(order)
    assert (called, dead) == (order, [])  # QoS 1, one session: in order


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_nats_header_decides(
    generated: Generated, tmp_path: Path, nats_url: str, mode: str
) -> None:
    subject = unique("nats-route").replace("-", ".")
    pkg = _package(
        generated,
        tmp_path,
        {
            "items.A": _ce(
                "items.A",
                "items.Changed",
                "NATS",
                {"subject": subject, "headers": {"x-kind": {"value": "a"}}},
            ),
            "items.B": _ce(
                "items.B",
                "items.Changed",
                "NATS/2.10",
                {"subject": subject, "headers": [{"name": "x-kind", "value": "b"}]},
            ),
        },
    )
    nats, na = codec(pkg, "nats"), adapter(pkg, "nats")
    order = ["items.B", "items.A", "items.A", "items.B"]
    d, called, dead = _dispatcher(pkg)

    async def main() -> None:
        rx = await na.NatsReceiver.connect(nats_url, subject)
        async with rx, await na.NatsSender.connect(nats_url) as tx:
            for mid in order:
                await tx.send(nats.encode(example_event(pkg, mid), mode=mode))
            await tx.flush()
            assert await rx.run(d.dispatch_async, max_messages=len(order), idle_timeout=10) == len(
                order
            )

    asyncio.run(asyncio.wait_for(main(), 60))
    assert (called, dead) == (order, [])
