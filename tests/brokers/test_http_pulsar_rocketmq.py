"""HTTP (httpx -> uvicorn -> AsgiReceiver), Pulsar (pulsar-lite) end to end, and the RocketMQ
adapter's message construction with the real client's types (no RocketMQ broker runs here).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from .conftest import (
    HOST,
    adapter,
    assert_same_event,
    codec,
    free_port,
    make_event,
    make_sink,
    require_module,
    unique,
    wait_until,
)

pytestmark = pytest.mark.brokers


# ---------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------


class Inbox:
    """Where the ASGI app under test hands its requests."""

    def __init__(self) -> None:
        self.on_message: Any = None


@pytest.fixture
def http_server(rt: ModuleType) -> Iterator[tuple[str, Inbox]]:
    """A real uvicorn server on a free port serving ``AsgiReceiver(inbox.on_message)``."""
    uvicorn = require_module("uvicorn", "uvicorn")
    ha = adapter(rt, "http")
    inbox = Inbox()
    app = ha.AsgiReceiver(lambda msg: inbox.on_message(msg))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host=HOST, port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 10, "uvicorn start")
    try:
        yield f"http://{HOST}:{port}", inbox
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_http_round_trip_through_asgi_server(
    rt: ModuleType, http_server: tuple[str, Inbox], mode: str
) -> None:
    http, ha = codec(rt, "http"), adapter(rt, "http")
    base_url, inbox = http_server
    sink = make_sink(rt)
    wire: list[Any] = []

    def on_message(msg: Any) -> Any:
        wire.append(msg)
        result = sink.dispatcher.dispatch(msg)
        return 202 if result else 400

    inbox.on_message = on_message
    events = [
        make_event(rt, rt.HttpBinding(method="POST", path="/events/s1"))
        for _ in range(3)
    ]
    with ha.HttpSender(base_url) as tx:
        responses = [tx.send(http.encode(e, mode=mode)) for e in events]
    assert [r.status for r in responses] == [202, 202, 202]
    assert not sink.dead
    for got, event in zip(sink.handled, events, strict=True):
        assert_same_event(got, event)
    sent = http.encode(events[0], mode=mode)
    assert wire[0].body == sent.body
    assert wire[0].method == "POST" and wire[0].path.startswith("/events/s1")
    received = {k.lower(): v for k, v in wire[0].headers}
    for name, value in sent.headers:
        assert received[name.lower()] == value


def test_http_malformed_request_and_failing_handler(
    rt: ModuleType, http_server: tuple[str, Inbox]
) -> None:
    codec(rt, "http")
    ha = adapter(rt, "http")
    base_url, inbox = http_server
    sink = make_sink(rt)
    inbox.on_message = lambda msg: 202 if sink.dispatcher.dispatch(msg) else 400
    bad = rt.HttpMessage(
        method="POST",
        path="/events",
        headers=(("content-type", "application/cloudevents+json"),),
        body=b"{broken",
    )
    with ha.HttpSender(base_url) as tx:
        assert tx.send(bad).status == 400
        ((original, reason, _),) = sink.dead
        assert reason == "decode-error" and original.body == b"{broken"

        def explode(msg: Any) -> None:
            raise RuntimeError("bug")

        inbox.on_message = explode
        assert tx.send(bad).status == 500  # the server keeps serving
        inbox.on_message = lambda msg: rt.HttpMessage(
            method="", path="", headers=(("x-reply", "1"),), body=b"ok", status=200
        )
        reply = tx.send(bad)
    assert (
        reply.status == 200
        and reply.body == b"ok"
        and ("x-reply", "1") in reply.headers
    )


# ---------------------------------------------------------------------------------------------
# Pulsar
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_pulsar_round_trip_through_broker(
    rt: ModuleType, pulsar_url: str, mode: str
) -> None:
    pulsar, pa = codec(rt, "pulsar"), adapter(rt, "pulsar")
    topic = "persistent://public/default/" + unique("pulsar")
    events = [
        make_event(
            rt,
            rt.PulsarBinding(topic=topic, partition_key="s1", event_time=1714566615123),
        )
        for _ in range(5)
    ]
    sink = make_sink(rt)
    wire: list[Any] = []
    with pa.PulsarReceiver(pulsar_url, topic, unique("sub")) as rx:
        with pa.PulsarSender(pulsar_url) as tx:
            futures = [tx.send(pulsar.encode(e, mode=mode)) for e in events]
            tx.flush(20)
        assert all(f.result(0) is not None for f in futures)

        def on_message(msg: Any) -> None:
            wire.append(msg)
            sink.dispatcher.dispatch(msg)

        assert rx.run(on_message, max_messages=5, idle_timeout=10) == 5
    assert not sink.dead
    for got, event in zip(sink.handled, events, strict=True):
        assert_same_event(got, event)
    sent = pulsar.encode(events[0], mode=mode)
    assert wire[0].payload == sent.payload
    assert dict(wire[0].properties) == dict(sent.properties)
    assert wire[0].partition_key == "s1" and wire[0].event_time == 1714566615123


def test_pulsar_unhandled_message_is_redelivered(
    rt: ModuleType, pulsar_url: str
) -> None:
    pulsar, pa = codec(rt, "pulsar"), adapter(rt, "pulsar")
    topic = "persistent://public/default/" + unique("pulsar")
    event = make_event(rt, rt.PulsarBinding(topic=topic))
    sink = make_sink(rt)

    def crash(msg: Any) -> None:
        raise ConnectionError("downstream unavailable")

    with pa.PulsarReceiver(
        pulsar_url, topic, unique("sub"), negative_ack_redelivery_delay_ms=100
    ) as rx:
        with pa.PulsarSender(pulsar_url) as tx:
            tx.send(pulsar.encode(event))
        with pytest.raises(ConnectionError):
            rx.run(crash, idle_timeout=10)
        started = time.monotonic()
        assert rx.run(sink.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
        assert time.monotonic() - started < 10
    assert_same_event(sink.handled[0], event)


# ---------------------------------------------------------------------------------------------
# RocketMQ: no broker can run here; the real client's message types are exercised instead
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_rocketmq_message_construction_round_trip(rt: ModuleType, mode: str) -> None:
    """codec -> rocketmq.Message (what Producer.send transmits) -> protobuf -> the client's
    received-message parsing -> RocketMqMessage -> dispatcher."""
    require_module("rocketmq", "rocketmq-python-client")
    from rocketmq.grpc_protocol import DigestType, Encoding, definition_pb2
    from rocketmq.v5.model.message import Message
    from rocketmq.v5.util import Misc

    rocketmq, ra = codec(rt, "rocketmq"), adapter(rt, "rocketmq")
    event = make_event(
        rt, rt.RocketMqBinding(topic="readings", tag="s1", keys=("k2", "k1"))
    )
    wire = rocketmq.encode(event, mode=mode)
    out = ra.to_rocketmq_message(wire)
    assert isinstance(out, Message)
    assert (out.topic, out.body, out.tag) == (wire.topic, wire.body, wire.tag)
    assert out.keys == set(wire.keys)
    assert out.properties == dict(wire.properties)

    # what a broker hands back: the client's protobuf Message, parsed by the client itself
    pb = definition_pb2.Message()
    pb.topic.name = out.topic
    pb.body = out.body
    pb.user_properties.update(out.properties)
    pb.system_properties.tag = out.tag
    pb.system_properties.keys.extend(sorted(out.keys))
    pb.system_properties.message_id = "01ABC"
    pb.system_properties.body_encoding = Encoding.IDENTITY
    pb.system_properties.body_digest.type = DigestType.CRC32
    pb.system_properties.body_digest.checksum = Misc.crc32_checksum(out.body)
    received = Message().fromProtobuf(pb)
    assert not received.corrupted
    back = ra.from_rocketmq_message(received)
    assert back == rt.RocketMqMessage(
        topic=wire.topic,
        body=wire.body,
        properties=dict(wire.properties),
        tag=wire.tag,
        keys=("k1", "k2"),
    )
    sink = make_sink(rt)
    assert sink.dispatcher.dispatch(back)
    assert_same_event(sink.handled[0], event)


def test_rocketmq_refuses_what_the_client_cannot_carry(rt: ModuleType) -> None:
    require_module("rocketmq", "rocketmq-python-client")
    ra = adapter(rt, "rocketmq")
    with pytest.raises(ValueError, match="empty body"):
        ra.to_rocketmq_message(rt.RocketMqMessage(topic="t", body=b""))
    with pytest.raises(ValueError, match="blank"):
        ra.to_rocketmq_message(
            rt.RocketMqMessage(topic="t", body=b"x", properties={"a": " "})
        )
