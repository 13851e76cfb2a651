"""One trace through a real broker: the generated producer's event, sent by the Kafka adapter
(blocking, its future resolved by the delivery report) and by the NATS adapter (asyncio),
received by the adapter's receiver and dispatched to the handler, recorded by the
OpenTelemetry SDK's in-memory exporter: same trace id, ``create`` -> ``process`` parentage,
the ``send`` span ended when the server confirmed the message."""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from acme_samples import SAMPLES
from opentelemetry import trace
from opentelemetry.trace import SpanKind
from otel_recording import Telemetry, instrumented

from .conftest import KAFKA_CONSUMER, unique

pytestmark = pytest.mark.brokers


@pytest.fixture
def recorded() -> Iterator[Telemetry]:
    with instrumented() as t:
        yield t


def one(recorded: Telemetry, operation: str) -> Any:
    (span,) = recorded.named(operation)
    return span


def produce(acme: ModuleType, message_id: str) -> Any:
    data, kwargs = SAMPLES[message_id]
    return acme.MESSAGES[message_id].create(data, **kwargs)


def assert_one_trace(recorded: Telemetry, request: Any, handled_in: Any, system: str) -> None:
    created, sent, processed = (one(recorded, op) for op in ("create", "send", "process"))
    trace_id = request.get_span_context().trace_id
    assert {s.context.trace_id for s in (created, sent, processed)} == {trace_id}
    assert created.kind is SpanKind.PRODUCER
    assert created.parent is not None
    assert created.parent.span_id == request.get_span_context().span_id
    assert sent.kind is SpanKind.CLIENT
    assert [link.context.span_id for link in sent.links] == [created.context.span_id]
    assert processed.kind is SpanKind.CONSUMER
    assert processed.parent is not None and processed.parent.is_remote
    assert processed.parent.span_id == created.context.span_id
    assert handled_in.span_id == processed.context.span_id
    assert processed.links == ()  # no span is current in the receive loop
    for span in (sent, processed):
        assert span.attributes is not None
        assert span.attributes["messaging.system"] == system
    assert processed.attributes is not None
    assert processed.attributes["xrgen.outcome"] == "handled"
    # the send span lasted until the server confirmed the message
    assert sent.end_time is not None and sent.start_time is not None
    assert sent.end_time > sent.start_time
    assert recorded.points("messaging.client.sent.messages") == {
        frozenset({("messaging.operation.name", "send"), ("messaging.system", system)}): 1
    }


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_kafka_one_trace_from_producer_to_handler(
    acme: ModuleType, kafka_bootstrap: str, recorded: Telemetry, mode: str
) -> None:
    from xrgen_runtime.adapters import kafka as ka

    kafka = importlib.import_module("acme.bindings.kafka")
    topic = unique("otel")
    tracer = recorded.tracer
    with tracer.start_as_current_span("request") as request:
        # a message without a protocol: it travels over any topic (a unique one here)
        event = produce(acme, "com.acme.ops.Note")
        # binary: the wire message; structured: the typed event, encoded by the sender
        config = {"bootstrap.servers": kafka_bootstrap}
        encoder = lambda ev: kafka.encode(ev, mode=mode, topic=topic)  # noqa: E731
        with ka.KafkaSender(config, encoder=encoder) as sender:
            delivery = sender.send(encoder(event) if mode == "binary" else event)
            returned = time.time_ns()  # send enqueued; the broker confirms later
            sender.flush(30)
    assert delivery.result(0).topic == topic

    seen: list[Any] = []
    dead: list[str] = []
    d = acme.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append(reason))
    d.on("com.acme.ops.Note")(
        lambda ev, params: seen.append(trace.get_current_span().get_span_context())
    )
    config = {"bootstrap.servers": kafka_bootstrap, "group.id": unique("g"), **KAFKA_CONSUMER}
    with ka.KafkaReceiver(config, [topic]) as receiver:
        assert receiver.run(d.dispatch, max_messages=1, idle_timeout=30) == 1
    assert not dead and len(seen) == 1
    assert_one_trace(recorded, request, seen[0], "kafka")
    # the send span ended with the delivery report, after send had returned
    assert one(recorded, "send").end_time > returned
    sent = one(recorded, "send")
    # an event without a binding: its destination is the encoder's, not on the span
    assert sent.name == (f"send {topic}" if mode == "binary" else "send")
    processed = one(recorded, "process")
    assert processed.name == f"process {topic}"
    assert (processed.attributes or {})["messaging.destination.name"] == topic


def test_nats_one_trace_from_producer_to_handler(
    acme: ModuleType, nats_url: str, recorded: Telemetry
) -> None:
    from xrgen_runtime.adapters import nats as na

    nats = importlib.import_module("acme.bindings.nats")
    plant = unique("otel").replace("-", "_")  # the catalog's subject is acme.{plant}.shifts
    subject = f"acme.{plant}.shifts"
    tracer = recorded.tracer
    seen: list[Any] = []
    dead: list[str] = []
    d = acme.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append(reason))

    async def handler(ev: Any, params: dict[str, str]) -> None:
        seen.append(trace.get_current_span().get_span_context())

    d.on_shift_changed(handler)

    async def main() -> Any:
        rx = await na.NatsReceiver.connect(nats_url, subject)
        async with rx, await na.NatsSender.connect(nats_url) as tx:
            with tracer.start_as_current_span("request") as request:
                event = acme.MESSAGES["com.acme.ops.ShiftChanged"].create({"shift": 1}, plant=plant)
                await tx.send(nats.encode(event))
            await tx.flush()
            assert await rx.run(d.dispatch_async, max_messages=1, idle_timeout=10) == 1
        return request

    request = asyncio.run(asyncio.wait_for(main(), 60))
    assert not dead and len(seen) == 1
    assert_one_trace(recorded, request, seen[0], "nats")
    # the catalog's subject is a template: it names the span, the wire's subject is the name
    processed = one(recorded, "process")
    assert processed.name == "process acme.{plant}.shifts"
    assert (processed.attributes or {})["messaging.destination.name"] == subject
