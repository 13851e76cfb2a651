"""AMQP 1.0 end to end over RabbitMQ (rabbitmq_amqp1_0), dead-lettering and redelivery."""

from __future__ import annotations

import importlib
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import pytest

from .conftest import adapter, assert_same_event, codec, make_event, make_sink, unique

pytestmark = pytest.mark.brokers


def queue() -> str:
    return "/queue/" + unique("amqp")


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_round_trip_through_broker(rt: ModuleType, amqp_url: str, mode: str) -> None:
    amqp, aa = codec(rt, "amqp"), adapter(rt, "amqp")
    address = queue()
    events = [
        make_event(rt, rt.AmqpBinding(address=address), seq=i, flag=True)
        for i in range(5)
    ]
    sent = [amqp.encode(e, mode=mode) for e in events]
    with aa.AmqpSender(amqp_url) as tx:
        futures = [tx.send(m) for m in sent]
        tx.flush(20)
    assert [f.result(0).destination for f in futures] == [address] * len(sent)  # Receipt
    sink = make_sink(rt)
    wire: list[Any] = []

    def on_message(msg: Any) -> None:
        wire.append(msg)
        sink.dispatcher.dispatch(msg)

    with aa.AmqpReceiver(amqp_url, address) as rx:
        assert rx.run(on_message, max_messages=5, idle_timeout=10) == 5
    assert not sink.dead
    for got, event in zip(sink.handled, events, strict=True):
        assert_same_event(got, event)
    for got_wire, msg in zip(wire, sent, strict=True):
        assert got_wire.body == msg.body
        # native AMQP types (long, boolean, timestamp) come back as the same Python values
        assert got_wire.application_properties == msg.application_properties
        assert got_wire.properties.get("content-type") == msg.properties.get(
            "content-type"
        )


def test_sections_and_native_types_survive_the_broker(
    rt: ModuleType, amqp_url: str
) -> None:
    aa = adapter(rt, "amqp")
    address = queue()
    when = datetime(2024, 5, 1, 12, 0, 0, 123000, tzinfo=timezone.utc)
    msg = rt.AmqpMessage(
        body=b"\x00binary\xff",
        properties={
            "message-id": "m-1",
            "subject": "s",
            "to": "elsewhere",
            "reply-to": "/queue/replies",
            "correlation-id": "c-1",
            "content-type": "application/octet-stream",
            "creation-time": when,
            "group-id": "g",
        },
        application_properties={
            "s": "tëxt",
            "n": 2**40,
            "b": False,
            "bin": b"\x00\x01",
            "ts": when,
            "f": 0.5,
        },
        message_annotations={"x-opt-app": "xrgen"},
        header={"durable": True, "priority": 9, "ttl": 60_000},
        address=address,
    )
    got: list[Any] = []
    with aa.AmqpSender(amqp_url) as tx:
        tx.send(msg)
    with aa.AmqpReceiver(amqp_url, address) as rx:
        rx.run(got.append, max_messages=1, idle_timeout=10)
    (received,) = got
    assert received.body == msg.body
    assert received.properties == msg.properties
    assert received.application_properties == msg.application_properties
    assert type(received.application_properties["ts"]) is datetime
    assert received.message_annotations["x-opt-app"] == "xrgen"
    assert {k: received.header[k] for k in ("durable", "priority", "ttl")} == msg.header
    assert received.address == address


def test_footer_is_refused_not_dropped(rt: ModuleType) -> None:
    aa = adapter(rt, "amqp")
    with pytest.raises(ValueError, match="footer"):
        aa.to_proton(rt.AmqpMessage(body=b"x", footer={"k": "v"}))


def test_a_message_proton_cannot_encode_fails_alone(rt: ModuleType, amqp_url: str) -> None:
    """A value proton has no encoding for fails that message's future (and ``flush``) with
    a ``SendError`` naming it; the connection goes on sending the others."""
    aa = adapter(rt, "amqp")
    send_error = importlib.import_module(rt.__name__ + ".adapters").SendError
    address = queue()
    with aa.AmqpSender(amqp_url, address) as tx:
        with pytest.raises(ValueError, match="unknown AMQP header field"):  # at once
            tx.send(rt.AmqpMessage(body=b"x", header={"ttl-ms": 1}))
        before = tx.send(rt.AmqpMessage(body=b"1"))
        bad = tx.send(rt.AmqpMessage(body=b"2", application_properties={"k": object()}))
        after = tx.send(rt.AmqpMessage(body=b"3"))
        with pytest.raises(send_error, match="proton cannot encode"):
            bad.result(10)
        assert before.result(10).destination == after.result(10).destination == address
        with pytest.raises(send_error, match="proton cannot encode"):
            tx.flush(10)
        tx.send(rt.AmqpMessage(body=b"4")).result(10)
    with aa.AmqpReceiver(amqp_url, address) as rx:
        got: list[Any] = []
        assert rx.run(got.append, max_messages=3, idle_timeout=10) == 3
    assert [m.body for m in got] == [b"1", b"3", b"4"]


def test_handler_error_and_malformed_message_are_dead_lettered(
    rt: ModuleType, amqp_url: str
) -> None:
    """Raising handler and undecodable message both land on the DLQ unchanged."""
    amqp, aa = codec(rt, "amqp"), adapter(rt, "amqp")
    address, dlq = queue(), queue()
    event = make_event(rt, rt.AmqpBinding(address=address))
    original = amqp.encode(event, mode="binary")
    garbage = rt.AmqpMessage(
        body=b"\x00\x01 not json",
        properties={"content-type": "application/cloudevents+json"},
        address=address,
    )
    with aa.AmqpSender(amqp_url) as tx:
        tx.send(original)
        tx.send(garbage)
    dlq_tx = aa.AmqpSender(amqp_url, dlq)

    def forward(wire: Any, reason: str, detail: str) -> None:
        props = {**wire.application_properties, "x-dead-letter-reason": reason}
        dlq_tx.send(
            rt.AmqpMessage(
                body=wire.body,
                properties=wire.properties,
                application_properties=props,
                address=None,
            )
        )
        dlq_tx.flush(20)  # on the DLQ before the source message is accepted

    def boom(event: Any, params: dict[str, str]) -> None:
        raise RuntimeError("handler failed")

    sink = make_sink(rt, handler=boom, dead_letter=forward)
    with aa.AmqpReceiver(amqp_url, address) as rx:
        assert rx.run(sink.dispatcher.dispatch, max_messages=2, idle_timeout=10) == 2
    dlq_tx.close()
    got: list[Any] = []
    with aa.AmqpReceiver(amqp_url, dlq) as rx:
        rx.run(got.append, max_messages=2, idle_timeout=10)
    by_reason = {m.application_properties["x-dead-letter-reason"]: m for m in got}
    assert set(by_reason) == {"handler-error", "decode-error"}
    assert by_reason["handler-error"].body == original.body
    assert amqp.decode(by_reason["handler-error"]).attributes == event.attributes
    assert by_reason["decode-error"].body == garbage.body


def test_unhandled_message_is_released_and_redelivered(
    rt: ModuleType, amqp_url: str
) -> None:
    amqp, aa = codec(rt, "amqp"), adapter(rt, "amqp")
    address = queue()
    event = make_event(rt, rt.AmqpBinding(address=address))
    with aa.AmqpSender(amqp_url) as tx:
        tx.send(amqp.encode(event))

    def crash(msg: Any) -> None:
        raise ConnectionError("downstream unavailable")

    with aa.AmqpReceiver(amqp_url, address) as rx:
        with pytest.raises(ConnectionError):
            rx.run(crash, idle_timeout=10)
        sink = make_sink(rt)
        assert rx.run(sink.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
    assert_same_event(sink.handled[0], event)
