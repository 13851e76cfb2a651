"""Payload formats over real brokers: Confluent-framed Avro through Kafka both ways between the
generated package and confluent-kafka's own Producer/Consumer with AvroSerializer and
AvroDeserializer (in-memory ``mock://`` registry shared by both sides); Protobuf and XML payloads
through NATS."""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any

import pytest
from format_samples import CATALOGS, binding
from xrgen_runtime import formats
from xrgen_runtime.formats import avro as avro_format

from .conftest import KAFKA_CONSUMER, adapter, unique

pytestmark = pytest.mark.brokers
PLACED = "com.example.shop.OrderPlaced"
ORDER = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "placedAt": "2024-05-01T10:00:00.123Z",
    "total": "12.50",
    "status": "PAID",
    "customer": {"name": "Ann", "address": {"street": "Main 1", "city": "Berlin"}},
    "lines": [{"sku": "a-1", "quantity": 2, "unitPrice": "6.25"}],
    "payment": {"last4": "4242", "network": "VISA"},
}


def test_confluent_avro_through_kafka_both_ways(generated: Any, kafka_bootstrap: str) -> None:
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    shop = generated(CATALOGS / "avro" / "catalog.json", package="shop_broker", avro_framing="confluent")
    registry = SchemaRegistryClient.new_client({"url": "mock://brokers-formats"})
    avro_format.use_schema_registry(registry)
    try:
        topic = "shop.orders"  # the message's topic (the dispatcher matches it)
        ka = adapter(importlib.import_module("xrgen_runtime"), "kafka")
        event = shop.MESSAGES[PLACED].create(ORDER, shop="s1")
        with ka.KafkaSender({"bootstrap.servers": kafka_bootstrap}) as sender:
            sender.send(binding(shop, "kafka").encode(event))
            sender.flush(30)
        # confluent-kafka's consumer and AvroDeserializer read our record
        consumer = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": unique("g"), **KAFKA_CONSUMER})
        consumer.subscribe([topic])
        try:
            msg = None
            for _ in range(60):
                msg = consumer.poll(1.0)
                if msg is not None and msg.error() is None:
                    break
            assert msg is not None and msg.error() is None
        finally:
            consumer.close()
        ctx = SerializationContext(topic, MessageField.VALUE)
        record = AvroDeserializer(registry)(msg.value(), ctx)
        assert record["status"] == "PAID" and record["payment"] == {"last4": "4242", "network": "VISA"}
        headers = dict(msg.headers() or [])
        assert headers["content-type"] == b"avro/binary" and headers["ce_type"] == PLACED.encode()
        # confluent-kafka's producer and AvroSerializer write a record our dispatcher reads
        codec = formats.codec_for(shop.models.Order, "avro")
        assert codec is not None
        serializer = AvroSerializer(registry, json.dumps(codec.schema))  # type: ignore[attr-defined]
        producer = Producer({"bootstrap.servers": kafka_bootstrap})
        producer.produce(topic, serializer(record, ctx), key=msg.key(), headers=list(headers.items()))
        producer.flush(30)
        got: list[Any] = []
        dead: list[Any] = []
        d = shop.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
        d.on(PLACED)(lambda ev, params: got.append(ev))
        with ka.KafkaReceiver({"bootstrap.servers": kafka_bootstrap, "group.id": unique("g"), **KAFKA_CONSUMER}, [topic]) as rx:
            assert rx.run(d.dispatch, max_messages=2, idle_timeout=30) == 2  # ours, then theirs
        assert not dead and len(got) == 2
        assert all(isinstance(e.data, shop.models.Order) and e.data == event.data for e in got)
    finally:
        avro_format.use_schema_registry(None)


@pytest.mark.parametrize(
    ("catalog", "message_id", "data"),
    [
        ("protobuf", "example.telemetry.Alert", {"device_id": "d", "severity": "CRITICAL", "text": "hot"}),
        ("xml", "example.purchasing.OrderArchived", {
            "orderId": "o-1", "shipTo": {"name": "A", "street": "S", "city": "C"},
            "item": [{"partNum": "p", "productName": "L", "quantity": 1, "price": "1.50"}],
            "priority": "low", "placedAt": "2024-05-01T10:00:00Z", "total": "1.50", "express": False,
        }),
    ],
)
@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_protobuf_and_xml_through_nats(
    generated: Any, nats_url: str, catalog: str, message_id: str, data: dict[str, Any], mode: str
) -> None:
    pkg = generated(CATALOGS / catalog / "catalog.json", package=f"{catalog}_nats")
    na = adapter(importlib.import_module("xrgen_runtime"), "nats")
    subject = unique("fmt").replace("-", ".")
    placeholder = {"protobuf": {"device": "d"}, "xml": {"store": "s"}}[catalog]
    event = pkg.MESSAGES[message_id].create(data, **placeholder)
    got: list[Any] = []
    dead: list[Any] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
    d.on(message_id)(lambda ev, params: got.append(ev))

    async def main() -> None:
        rx = await na.NatsReceiver.connect(nats_url, subject)
        async with rx, await na.NatsSender.connect(nats_url) as tx:
            await tx.send(binding(pkg, "nats").encode(event, mode=mode, subject=subject))
            await tx.flush()

            async def on_message(msg: Any) -> None:
                await d.dispatch_async(msg)

            assert await rx.run(on_message, max_messages=1, idle_timeout=10) == 1

    asyncio.run(asyncio.wait_for(main(), 60))
    assert not dead and isinstance(got[0].data, pkg.MESSAGES[message_id].model)
    assert got[0].data == event.data
