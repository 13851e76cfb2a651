"""Kafka end to end over a real broker (Tansu, or XRGEN_KAFKA_BOOTSTRAP): codec -> KafkaSender
-> broker -> KafkaReceiver -> dispatcher, plus dead-letter and redelivery behaviour."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from .conftest import (
    KAFKA_CONSUMER,
    adapter,
    assert_same_event,
    codec,
    make_event,
    make_sink,
    unique,
)

pytestmark = pytest.mark.brokers


def consumer_config(bootstrap: str, group: str) -> dict[str, Any]:
    return {"bootstrap.servers": bootstrap, "group.id": group, **KAFKA_CONSUMER}


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_round_trip_through_broker(
    rt: ModuleType, kafka_bootstrap: str, mode: str
) -> None:
    kafka, ka = codec(rt, "kafka"), adapter(rt, "kafka")
    topic = unique("kafka")
    events = [
        make_event(rt, rt.KafkaBinding(topic=topic, key=f"k{i}".encode()))
        for i in range(5)
    ]
    reports: list[Any] = []
    with ka.KafkaSender(
        {"bootstrap.servers": kafka_bootstrap},
        on_delivery=lambda m, r: reports.append(r),
    ) as sender:
        futures = [sender.send(kafka.encode(e, mode=mode)) for e in events]
        sender.flush(30)
    deliveries = [f.result(0) for f in futures]
    assert all(isinstance(d, ka.KafkaDelivery) and d.topic == topic for d in deliveries)
    assert sorted(r.offset for r in reports) == sorted(d.offset for d in deliveries)

    sink = make_sink(rt)
    wire: list[Any] = []

    def on_message(msg: Any) -> None:
        wire.append(msg)
        sink.dispatcher.dispatch(msg)

    with ka.KafkaReceiver(
        consumer_config(kafka_bootstrap, unique("g")), [topic]
    ) as receiver:
        n = receiver.run(on_message, max_messages=5, idle_timeout=30)
    assert n == 5 and not sink.dead
    by_id = {e.attributes["id"]: e for e in sink.handled}
    for sent in events:
        assert_same_event(by_id[sent.attributes["id"]], sent)
    # the wire message survived the broker byte for byte
    sent_wire = {kafka.encode(e, mode=mode).value for e in events}
    assert {m.value for m in wire} == sent_wire
    assert {m.key for m in wire} == {f"k{i}".encode() for i in range(5)}


def test_a_refused_message_fails_its_future_and_its_report_alone(
    rt: ModuleType, kafka_bootstrap: str
) -> None:
    """A record for a partition its topic turns out not to have (the client learns it after
    ``send`` returned): its future raises ``KafkaDeliveryError`` naming the message,
    ``on_delivery`` gets the same error, and the messages around it are delivered."""
    kafka, ka = codec(rt, "kafka"), adapter(rt, "kafka")
    topic, other = unique("kafka"), unique("kafka")
    good = kafka.encode(make_event(rt, rt.KafkaBinding(topic=topic)), mode="binary")
    reports: list[Any] = []
    with ka.KafkaSender(
        {"bootstrap.servers": kafka_bootstrap, "message.timeout.ms": 10000},
        on_delivery=lambda m, r: reports.append((m, r)),
    ) as sender:
        sender.send(good).result(30)  # the topic exists (one partition)
        # the client has no metadata of ``other`` yet: it queues the record, then fails it
        bad = rt.KafkaMessage(other, None, b"{}", good.headers, 7)
        futures = [sender.send(good), sender.send(bad), sender.send(good)]
        with pytest.raises(ka.KafkaDeliveryError) as refused:
            futures[1].result(30)
        assert refused.value.message is bad
        assert [f.result(30).topic for f in (futures[0], futures[2])] == [topic, topic]
    failed = [(m, r) for m, r in reports if isinstance(r, ka.KafkaDeliveryError)]
    assert failed == [(bad, refused.value)]
    assert len(reports) == 4


def test_handler_error_goes_to_dead_letter_topic(
    rt: ModuleType, kafka_bootstrap: str
) -> None:
    """A raising handler dead-letters the message; the DLQ topic holds it unchanged."""
    kafka, ka = codec(rt, "kafka"), adapter(rt, "kafka")
    topic, dlq = unique("kafka"), unique("kafka-dlq")
    event = make_event(rt, rt.KafkaBinding(topic=topic))
    original = kafka.encode(event, mode="binary")
    with ka.KafkaSender({"bootstrap.servers": kafka_bootstrap}) as sender:
        sender.send(original)
        garbage = rt.KafkaMessage(
            topic=topic,
            key=None,
            value=b"{not json",
            headers=(("content-type", b"application/cloudevents+json"),),
        )
        sender.send(garbage)
    dlq_sender = ka.KafkaSender({"bootstrap.servers": kafka_bootstrap})

    def forward(wire: Any, reason: str, detail: str) -> None:
        dead = rt.KafkaMessage(
            topic=dlq,
            key=wire.key,
            value=wire.value,
            headers=(*wire.headers, ("x-dead-letter-reason", reason.encode())),
        )
        dlq_sender.send(dead).result(30)  # stored before the source offset is committed

    def boom(event: Any, params: dict[str, str]) -> None:
        raise RuntimeError("handler failed")

    sink = make_sink(rt, handler=boom, dead_letter=forward)
    with ka.KafkaReceiver(
        consumer_config(kafka_bootstrap, unique("g")), [topic]
    ) as receiver:
        assert (
            receiver.run(sink.dispatcher.dispatch, max_messages=2, idle_timeout=30) == 2
        )
    dlq_sender.close()
    assert sorted(r for _, r, _ in sink.dead) == ["decode-error", "handler-error"]

    got: list[Any] = []
    with ka.KafkaReceiver(
        consumer_config(kafka_bootstrap, unique("g")), [dlq]
    ) as receiver:
        receiver.run(got.append, max_messages=2, idle_timeout=30)
    by_reason = {dict(m.headers)["x-dead-letter-reason"]: m for m in got}
    assert by_reason[b"handler-error"].value == original.value
    assert by_reason[b"decode-error"].value == b"{not json"
    assert set(original.headers) <= set(by_reason[b"handler-error"].headers)


def test_unhandled_message_is_redelivered(rt: ModuleType, kafka_bootstrap: str) -> None:
    """If on_message raises, the offset is not committed: the next consumer gets it again."""
    kafka, ka = codec(rt, "kafka"), adapter(rt, "kafka")
    topic, group = unique("kafka"), unique("g")
    events = [
        make_event(rt, rt.KafkaBinding(topic=topic, partition=0)) for _ in range(3)
    ]
    with ka.KafkaSender({"bootstrap.servers": kafka_bootstrap}) as sender:
        for e in events:
            sender.send(kafka.encode(e))

    seen: list[str] = []

    def crash_on_second(msg: Any) -> None:
        ev = kafka.decode(msg)
        if len(seen) == 1:
            raise ConnectionError("downstream unavailable")
        seen.append(ev.attributes["id"])

    with ka.KafkaReceiver(consumer_config(kafka_bootstrap, group), [topic]) as receiver:
        with pytest.raises(ConnectionError):
            receiver.run(crash_on_second, idle_timeout=30)
        receiver.commit()
    sink = make_sink(rt)
    with ka.KafkaReceiver(consumer_config(kafka_bootstrap, group), [topic]) as receiver:
        receiver.run(sink.dispatcher.dispatch, max_messages=2, idle_timeout=30)
    assert seen == [events[0].attributes["id"]]
    assert [e.attributes["id"] for e in sink.handled] == [
        e.attributes["id"] for e in events[1:]
    ]


def test_receiver_takes_a_topic_created_after_it_subscribed(
    rt: ModuleType, kafka_bootstrap: str
) -> None:
    """A receiver subscribed to a topic that does not exist yet consumes it once a send
    created it, the messages sent before the group's assignment included."""
    kafka, ka = codec(rt, "kafka"), adapter(rt, "kafka")
    topic = unique("kafka-later")
    errors: list[Any] = []
    with ka.KafkaReceiver(
        consumer_config(kafka_bootstrap, unique("g")),
        [topic],
        on_error=errors.append,
    ) as receiver:
        # served until the group is joined, the topic reported missing: nothing arrives
        assert receiver.run(lambda m: None, idle_timeout=3) == 0
        assert any(topic in e.str() for e in errors), errors
        events = [make_event(rt, rt.KafkaBinding(topic=topic)) for _ in range(3)]
        with ka.KafkaSender({"bootstrap.servers": kafka_bootstrap}) as sender:
            for future in [sender.send(kafka.encode(e)) for e in events]:
                future.result(30)
        got: list[Any] = []
        assert receiver.run(got.append, max_messages=3, idle_timeout=60) == 3
    sent = {kafka.encode(e).value for e in events}
    assert {m.value for m in got} == sent
