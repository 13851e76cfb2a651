"""MQTT 5.0 and 3.1.1 end to end over Mosquitto, and a broker restart mid-stream."""

from __future__ import annotations

import threading
import time
from types import ModuleType
from typing import Any

import pytest

from .conftest import (
    HOST,
    ServerProcess,
    adapter,
    assert_same_event,
    codec,
    make_event,
    make_sink,
    unique,
    wait_until,
)

pytestmark = pytest.mark.brokers


@pytest.mark.parametrize(
    ("version", "mode"),
    [("5.0", "binary"), ("5.0", "structured"), ("3.1.1", "structured")],
)
def test_round_trip_through_broker(
    rt: ModuleType, mqtt_port: int, version: str, mode: str
) -> None:
    mqtt, ma = codec(rt, "mqtt"), adapter(rt, "mqtt")
    topic = unique("mqtt") + "/readings/s1"
    binding = rt.MqttBinding(topic=topic, qos=1, version=version)
    events = [make_event(rt, binding) for _ in range(5)]
    sink = make_sink(rt)
    wire: list[Any] = []
    with ma.MqttReceiver(
        HOST, mqtt_port, [topic.rsplit("/", 2)[0] + "/#"], version=version
    ) as rx:
        with ma.MqttSender(HOST, mqtt_port, version=version) as tx:
            sent = [mqtt.encode(e, mode=mode) for e in events]
            for msg in sent:
                tx.send(msg)
            tx.flush(10)

        def on_message(msg: Any) -> None:
            wire.append(msg)
            sink.dispatcher.dispatch(msg)

        assert rx.run(on_message, max_messages=5, idle_timeout=10) == 5
    assert not sink.dead
    for got, event in zip(
        sink.handled, events, strict=True
    ):  # QoS 1, one session: in order
        assert_same_event(got, event)
    for got_wire, msg in zip(wire, sent, strict=True):
        assert got_wire.payload == msg.payload
        assert got_wire.content_type == msg.content_type
        assert got_wire.user_properties == msg.user_properties
        assert got_wire.version == version


def test_mqtt5_properties_survive_the_broker(rt: ModuleType, mqtt_port: int) -> None:
    ma = adapter(rt, "mqtt")
    topic = unique("mqtt")
    msg = rt.MqttMessage(
        topic=topic,
        payload=b"\x00\x01payload",
        qos=1,
        content_type="application/octet-stream",
        user_properties=(("a", "1"), ("a", "2"), ("ünï", "cödé")),
        response_topic=topic + "/reply",
        correlation_data=b"\xffcorr",
        message_expiry_interval=3600,
        payload_format_indicator=0,
    )
    got: list[Any] = []
    with ma.MqttReceiver(HOST, mqtt_port, [topic]) as rx:
        with ma.MqttSender(HOST, mqtt_port) as tx:
            tx.send(msg).result(10)
        rx.run(got.append, max_messages=1, idle_timeout=10)
    (received,) = got
    assert received.user_properties == msg.user_properties  # order and repeats kept
    assert received.correlation_data == msg.correlation_data
    assert received.response_topic == msg.response_topic
    assert received.content_type == msg.content_type
    assert received.payload == msg.payload
    assert 0 < (received.message_expiry_interval or 0) <= 3600  # the broker counts down


def test_mqtt311_refuses_mqtt5_properties(rt: ModuleType, mqtt_port: int) -> None:
    ma = adapter(rt, "mqtt")
    with ma.MqttSender(HOST, mqtt_port, version="3.1.1") as tx:
        with pytest.raises(ValueError, match="3.1.1"):
            tx.send(rt.MqttMessage(topic="t", payload=b"x", content_type="text/plain"))


def test_broker_restart_mid_stream_loses_nothing_acknowledged(
    rt: ModuleType, private_mosquitto: ServerProcess
) -> None:
    """Persistent QoS 1 sessions on both sides; the broker restarts between two halves of a
    stream while the receiver keeps running. Every message whose PUBACK the sender got is
    dispatched (duplicates allowed: at-least-once)."""
    mqtt, ma = codec(rt, "mqtt"), adapter(rt, "mqtt")
    port = private_mosquitto.port
    topic = unique("mqtt-restart")
    binding = rt.MqttBinding(topic=topic, qos=1)
    events = [make_event(rt, binding) for _ in range(40)]
    sink = make_sink(rt)
    stop = threading.Event()
    rx = ma.MqttReceiver(HOST, port, [topic], client_id=unique("rx"), persistent=True)
    worker = threading.Thread(
        target=rx.run,
        args=(sink.dispatcher.dispatch,),
        kwargs={"stop": stop},
        daemon=True,
    )
    worker.start()
    tx = ma.MqttSender(HOST, port, client_id=unique("tx"), persistent=True)
    try:
        futures = [tx.send(mqtt.encode(e)) for e in events[:20]]
        private_mosquitto.restart()
        for e in events[20:]:  # refused at once while the sender reconnects
            while True:
                try:
                    futures.append(tx.send(mqtt.encode(e)))
                    break
                except ma.NotConnected:
                    time.sleep(0.05)
        for f in futures:
            f.result(30)  # every message acknowledged by the broker
        wanted = {e.attributes["id"] for e in events}
        wait_until(
            lambda: wanted <= sink.ids(), 30, "all acknowledged messages dispatched"
        )
    finally:
        stop.set()
        worker.join(10)
        tx.close(5)
        rx.close()
    assert not sink.dead
    assert not worker.is_alive()


@pytest.mark.parametrize("version", ["5.0", "3.1.1"])
def test_a_backlog_waits_in_the_broker_not_in_the_receiver(
    rt: ModuleType, private_mosquitto: ServerProcess, version: str
) -> None:
    """A persistent session with thousands of queued messages: the receiver reads a message
    only when it has none in hand, so it holds at most its Receive Maximum of them whatever
    the backlog and however the broker paces them (Mosquitto 2.0.11 sends up to another
    window per PUBACK; MQTT 3.1.1 has no Receive Maximum), also once it acknowledges."""
    mqtt, ma = codec(rt, "mqtt"), adapter(rt, "mqtt")
    port, topic, client = private_mosquitto.port, unique("mqtt-backlog"), unique("rx")
    session = {"client_id": client, "persistent": True, "version": version}
    ma.MqttReceiver(HOST, port, [topic], **session).close()
    with ma.MqttSender(HOST, port, version=version) as tx:
        event = make_event(rt, rt.MqttBinding(topic=topic, qos=1, version=version))
        encoded = mqtt.encode(event, mode="structured")
        for f in [tx.send(encoded) for _ in range(3000)]:
            f.result(30)
    window = 40
    with ma.MqttReceiver(HOST, port, [topic], **session, receive_maximum=window) as rx:
        time.sleep(1.0)  # the broker would send the whole backlog if it could
        assert len(rx._inbox) <= window
        for _ in range(10):
            raw = rx._poll(5.0)
            assert raw is not None
            rx._ack(raw)
            assert len(rx._inbox) <= window
        sink = make_sink(rt)
        assert (
            rx.run(sink.dispatcher.dispatch, max_messages=2990, idle_timeout=10) == 2990
        )
    assert not sink.dead


@pytest.mark.parametrize("version", ["5.0", "3.1.1"])
def test_a_message_given_back_with_a_backlog_comes_again(
    rt: ModuleType, private_mosquitto: ServerProcess, version: str
) -> None:
    """Giving a message back reconnects (the broker sends the unacknowledged ones again)
    while the broker holds a backlog for the session: the given-back message comes first,
    then the rest, none lost."""
    ma = adapter(rt, "mqtt")
    port, topic, client = private_mosquitto.port, unique("mqtt-giveback"), unique("rx")
    session = {"client_id": client, "persistent": True, "version": version}
    ma.MqttReceiver(HOST, port, [topic], **session).close()
    with ma.MqttSender(HOST, port, version=version) as tx:
        sent = [
            tx.send(rt.MqttMessage(topic=topic, payload=str(i).encode(), qos=1))
            for i in range(300)
        ]
        for f in sent:
            f.result(30)
    with ma.MqttReceiver(HOST, port, [topic], **session, receive_maximum=5) as rx:
        for _ in range(3):
            raw = rx._poll(5.0)
            assert raw is not None
            rx._ack(raw)
        first = rx._poll(5.0)
        assert first is not None
        rx._nack(first)
        start = time.monotonic()
        again = rx._poll(15.0)  # reconnects first
        assert time.monotonic() - start < 12  # not the DISCONNECT timeout
        # at least once: on MQTT 3.1.1 Mosquitto sometimes sends an acknowledged message of
        # the three again (3 of about 20 runs here); the given-back one comes before the rest
        skipped = 0
        while again is not None and int(again[1].payload) < 3 and skipped < 3:
            rx._ack(again)
            skipped += 1
            again = rx._poll(5.0)
        assert again is not None
        assert again[1].payload == first[1].payload
        rx._ack(again)
        payloads = []
        while len(payloads) < 296:
            raw = rx._poll(10.0)
            assert raw is not None
            payloads.append(int(raw[1].payload))
            rx._ack(raw)
    assert sorted(set(payloads)) == list(range(4, 300))


def test_flush_raises_the_first_refusal_and_the_others_resolve(
    rt: ModuleType, tmp_path: Any
) -> None:
    """A broker that refuses one topic (PUBACK "Not authorized"): that message's future
    raises ``MqttPublishError``, ``flush`` raises it, and the messages sent around it
    resolve."""
    from .conftest import _need_binary, free_port, running

    mqtt, ma = codec(rt, "mqtt"), adapter(rt, "mqtt")
    port = free_port()
    acl = tmp_path / "acl"
    acl.write_text("topic write open/#\n")
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        f"listener {port} {HOST}\nallow_anonymous true\nuser root\nacl_file {acl}\n"
    )
    server = ServerProcess(
        [_need_binary("mosquitto"), "-c", str(conf)], port, tmp_path / "m.log"
    )
    with running(server), ma.MqttSender(HOST, port) as tx:
        sent = [
            mqtt.encode(make_event(rt, rt.MqttBinding(topic=t, qos=1)), mode="binary")
            for t in ("open/a", "closed/b", "open/c")
        ]
        futures = [tx.send(msg) for msg in sent]
        with pytest.raises(ma.MqttPublishError, match="authori"):
            tx.flush(10)
        assert futures[0].result(0).destination == "open/a"
        assert futures[2].result(0).destination == "open/c"
        with pytest.raises(ma.MqttPublishError):
            futures[1].result(0)


def test_a_handler_longer_than_the_keep_alive_keeps_the_connection(
    rt: ModuleType, private_mosquitto: ServerProcess
) -> None:
    """The serving thread runs the network loop; while a handler runs for about twice the
    broker's keep-alive limit (1.5 x ``keepalive``) the keeper thread pings: the connection
    stays, the message is acknowledged once and not sent again."""
    ma = adapter(rt, "mqtt")
    port, topic, client = private_mosquitto.port, unique("mqtt-keep"), unique("rx")
    session = {"client_id": client, "persistent": True, "keepalive": 3}
    handled: list[bytes] = []

    def slow(msg: Any) -> None:
        handled.append(msg.payload)
        if len(handled) == 1:
            time.sleep(8.0)

    with ma.MqttReceiver(HOST, port, [topic], **session) as rx:
        generation = rx._generation
        with ma.MqttSender(HOST, port) as tx:
            for i in range(2):
                tx.send(rt.MqttMessage(topic=topic, payload=b"%d" % i, qos=1)).result(
                    10
                )
        assert rx.run(slow, max_messages=2, idle_timeout=10) == 2
        assert rx._generation == generation  # never disconnected
        assert rx.run(slow, idle_timeout=2) == 0  # nothing comes again
    assert handled == [b"0", b"1"]
