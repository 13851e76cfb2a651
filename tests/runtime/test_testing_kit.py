"""xrgen_runtime.testing: the in-memory brokers (routing rules of each protocol, records,
groups, the adapters' sender/receiver shape), the example-event factory and its hypothesis
strategy, end to end with the acme catalog and the real sample catalogs: every message id gets
an example event that travels as a wire message through the broker of its binding (every
binding for envelope-only messages), in every content mode, to exactly its own handler."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from sample_catalogs import ABSENT_REASON, GOOD, PRESENT, SAMPLES, package_name
from xrgen_runtime import (
    AmqpMessage,
    DispatchResult,
    HttpMessage,
    KafkaMessage,
    MqttMessage,
    NatsMessage,
    PulsarMessage,
    RocketMqMessage,
)
from xrgen_runtime._retry import Retry
from xrgen_runtime.bindings import kafka as kafka_codec
from xrgen_runtime.testing import (
    Brokers,
    ExampleError,
    HttpBroker,
    KafkaBroker,
    MqttBroker,
    NatsBroker,
    example_event,
    example_events,
)
from xrgen_runtime.testing import _routing as routing
from xrgen_runtime.testing._brokers import PROTOCOLS

#: the repository's own catalogs (a path here: another folder's conftest may own that name)
CATALOGS = Path(__file__).resolve().parents[2] / "catalogs"

# ------------------------------------------------------------------------ routing rules


@pytest.mark.parametrize(
    ("topic_filter", "topic", "matches"),
    [
        ("a/b", "a/b", True),
        ("a/b", "a/b/c", False),
        ("a/+", "a/b", True),
        ("a/+", "a/b/c", False),
        ("a/+", "a/", True),  # + matches an empty level
        ("a/+", "a", False),
        ("a/#", "a", True),  # # matches the parent level
        ("a/#", "a/b/c", True),
        ("a/#", "ab", False),
        ("+/+", "/x", True),
        ("#", "a/b", True),
        ("+/b/#", "x/b", True),
        ("+/b/#", "x/c/b", False),
        ("#", "$SYS/x", False),  # $-topics are not matched by leading wildcards
        ("+/x", "$SYS/x", False),
        ("$SYS/#", "$SYS/x", True),
    ],
)
def test_mqtt_topic_filters(topic_filter: str, topic: str, matches: bool) -> None:
    assert routing.mqtt_matches(routing.mqtt_filter(topic_filter)[0], topic) is matches


@pytest.mark.parametrize("bad", ["a/b#", "a/#/b", "a+/b", "", "$share/g", "$share//a"])
def test_illegal_mqtt_filters_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        routing.mqtt_filter(bad)


@pytest.mark.parametrize("bad", ["a/+", "a/#", ""])
def test_publishing_to_an_mqtt_wildcard_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        MqttBroker().publish(MqttMessage(bad, b"x"))


@pytest.mark.parametrize(
    ("pattern", "subject", "matches"),
    [
        ("a.b", "a.b", True),
        ("a.*", "a.b", True),
        ("a.*", "a.b.c", False),
        ("a.*", "a", False),
        ("a.>", "a.b.c", True),
        ("a.>", "a", False),  # > needs at least one token
        ("*.b.>", "x.b.y", True),
        (">", "a", True),
        ("a.*.c", "a.b.c", True),
        ("a.*.c", "a.b.d", False),
    ],
)
def test_nats_subject_wildcards(pattern: str, subject: str, matches: bool) -> None:
    assert routing.nats_matcher(pattern)(subject) is matches


@pytest.mark.parametrize("bad", ["a..b", "a.>.b", ".a", "a b", ""])
def test_illegal_nats_subscriptions_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        routing.nats_matcher(bad)


def test_nats_refuses_publishing_to_wildcards_and_empty_tokens() -> None:
    broker = NatsBroker()
    for bad in ("a.*", "a.>", "a..b"):
        with pytest.raises(ValueError):
            broker.publish(NatsMessage(bad, b""))
    assert broker.published == []


def test_kafka_topic_names_and_regex_subscriptions() -> None:
    assert routing.kafka_matcher("^acme\\..*")("acme.readings")
    assert not routing.kafka_matcher("^acme\\..*")("other.acme.x")
    assert routing.kafka_matcher("acme.readings")("acme.readings")
    for bad in ("a/b", "a b", "", ".", "x" * 250, "%41"):
        with pytest.raises(ValueError):
            routing.kafka_topic(bad)


def test_pulsar_topic_names_resolve_like_the_client() -> None:
    full = "persistent://public/default/orders"
    assert routing.pulsar_topic("orders") == full
    assert routing.pulsar_topic("public/default/orders") == full
    assert routing.pulsar_topic(full) == full
    assert routing.pulsar_topic("non-persistent://t/n/x") == "non-persistent://t/n/x"
    for bad in ("a/b", "http://a/b/c", "persistent://a/b", "a//b"):
        with pytest.raises(ValueError):
            routing.pulsar_topic(bad)


def test_rocketmq_tag_expressions() -> None:
    assert routing.rocketmq_tags("*") is None
    assert routing.rocketmq_tags(" A || B ") == {"A", "B"}
    with pytest.raises(ValueError):
        routing.rocketmq_tags("A ||")
    with pytest.raises(ValueError):
        routing.rocketmq_topic("a.b")  # '.' is not a RocketMQ topic character


def test_http_routes_match_one_segment_per_placeholder() -> None:
    route = routing.http_matcher("/plants/{plant}/batches")
    assert route("/plants/p1/batches")
    assert not route("/plants/p1/x/batches")
    assert not route("/plants//batches")
    assert routing.http_path("/a?b=1") == "/a"


# ------------------------------------------------------------------------ broker behaviour


def test_every_message_is_recorded_and_unrouted_ones_are_kept() -> None:
    broker = KafkaBroker()
    got: list[KafkaMessage] = []
    broker.subscribe("orders", got.append)
    routed = broker.publish(KafkaMessage("orders", b"k", b"1"))
    lost = broker.publish(KafkaMessage("returns", None, b"2"))
    assert routed.routed and not lost.routed
    assert [m.value for m in broker.published] == [b"1", b"2"]
    assert [m.value for m in broker.messages("orders")] == [b"1"]
    assert [m.value for m in broker.unrouted] == [b"2"]
    # the published record is what the producer sent; the subscriber sees its partition
    assert broker.published[0].partition is None and got[0].partition == 0
    broker.clear()
    assert broker.published == broker.unrouted == []


def test_kafka_partitions_keys_and_consumer_groups() -> None:
    broker = KafkaBroker(partitions={"orders": 4})
    members: dict[str, list[int | None]] = {"a": [], "b": []}
    everyone: list[KafkaMessage] = []
    broker.subscribe("orders", lambda m: members["a"].append(m.partition), group="g")
    broker.subscribe("orders", lambda m: members["b"].append(m.partition), group="g")
    broker.subscribe("^ord.*", everyone.append)
    for key in (b"k1", b"k2", b"k1", b"k3"):
        broker.publish(KafkaMessage("orders", key, b"v"))
    # one member of the group per message, chosen by partition; the same key, the same one
    assert len(members["a"]) + len(members["b"]) == 4 == len(everyone)
    assert everyone[0].partition == everyone[2].partition
    assert all(p is not None and p % 2 == 0 for p in members["a"])
    assert all(p is not None and p % 2 == 1 for p in members["b"])
    with pytest.raises(ValueError, match="partition 4"):
        broker.publish(KafkaMessage("orders", None, b"v", partition=4))
    with pytest.raises(ValueError, match="illegal Kafka topic"):
        broker.publish(KafkaMessage("acme/readings", None, b"v"))


def test_nats_queue_groups_share_and_plain_subscribers_all_receive() -> None:
    broker = NatsBroker()
    q1: list[str] = []
    q2: list[str] = []
    plain: list[str] = []
    broker.subscribe("orders.*", lambda m: q1.append(m.subject), group="workers")
    broker.subscribe("orders.>", lambda m: q2.append(m.subject), group="workers")
    broker.subscribe(">", lambda m: plain.append(m.subject))
    for n in range(4):
        broker.publish(NatsMessage(f"orders.{n}", b""))
    assert q1 == ["orders.0", "orders.2"] and q2 == ["orders.1", "orders.3"]
    assert len(plain) == 4


def test_mqtt_retained_messages_qos_and_3_1_1_subscribers() -> None:
    broker = MqttBroker()
    m = MqttMessage(
        "acme/p1/alarms/s1", b"{}", qos=2, retain=True, user_properties=(("ce_id", "1"),)
    )
    live: list[MqttMessage] = []
    broker.subscribe("acme/+/alarms/#", live.append, qos=1)
    broker.publish(m)
    assert live[0].qos == 1 and live[0].retain is False
    late: list[MqttMessage] = []
    broker.subscribe("acme/#", late.append, version="3.1.1")
    # a new subscription gets the retained message, as a 3.1.1 client: no MQTT 5 properties
    assert late == [
        MqttMessage("acme/p1/alarms/s1", b"{}", qos=2, retain=True, version="3.1.1")
    ]
    broker.publish(MqttMessage("acme/p1/alarms/s1", b"", retain=True))  # clears it
    assert broker.retained == {}
    shared: list[MqttMessage] = []
    broker.subscribe("$share/g/acme/#", shared.append)
    broker.subscribe("$share/g/acme/#", shared.append)
    broker.publish(MqttMessage("acme/x", b"1"))
    assert len(shared) == 1


def test_amqp_needs_an_address_and_groups_compete() -> None:
    brokers = Brokers()
    first: list[AmqpMessage] = []
    second: list[AmqpMessage] = []
    brokers.amqp.subscribe("q", first.append, group="queue")
    brokers.amqp.subscribe("q", second.append, group="queue")
    brokers.amqp.publish(AmqpMessage(b"1", address="q"))
    brokers.amqp.publish(AmqpMessage(b"2", properties={"to": "q"}))
    assert [m.body for m in first] == [b"1"] and [m.body for m in second] == [b"2"]
    with pytest.raises(ValueError, match="without an address"):
        brokers.amqp.publish(AmqpMessage(b"3"))


def test_pulsar_short_and_full_names_are_one_topic_and_rocketmq_filters_tags() -> None:
    brokers = Brokers()
    pulsar: list[PulsarMessage] = []
    brokers.pulsar.subscribe("persistent://public/default/orders", pulsar.append)
    brokers.pulsar.subscribe(re.compile(r"persistent://public/default/ord.*"), pulsar.append)
    brokers.pulsar.publish(PulsarMessage("orders", b"x"))
    assert len(pulsar) == 2 and len(brokers.pulsar.messages("public/default/orders")) == 1
    tagged: list[str | None] = []
    brokers.rocketmq.subscribe("orders", lambda m: tagged.append(m.tag), tags="A || B")
    for tag in ("A", "C", None, "B"):
        brokers.rocketmq.publish(RocketMqMessage("orders", b"x", tag=tag))
    assert tagged == ["A", "B"] and len(brokers.rocketmq.unrouted) == 2


def test_http_routes_one_handler_and_answers_like_the_asgi_receiver() -> None:
    broker = HttpBroker()
    seen: list[str] = []
    broker.subscribe("/orders/{id}", lambda m: seen.append("first"), method="post")
    broker.subscribe("/orders/{id}", lambda m: seen.append("second"))
    broker.subscribe("/status", lambda m: 204)
    broker.subscribe("/echo", lambda m: HttpMessage(m.method, m.path, (), b"hi"))
    assert broker.request(HttpMessage("POST", "/orders/1?x=y")).status == 202
    assert seen == ["first"]  # exactly one route per request
    assert broker.request(HttpMessage("PUT", "/orders/1")).status == 202
    assert seen == ["first", "second"]
    assert broker.request(HttpMessage("GET", "/status")).status == 204
    echo = broker.sender().send(HttpMessage("POST", "/echo"))
    assert (echo.status, echo.body) == (200, b"hi")
    assert broker.request(HttpMessage("POST", "/nowhere")).status == 404
    assert broker.request(HttpMessage("GET", "/status/x")).status == 404
    assert len(broker.unrouted) == 2
    only_post = HttpBroker()
    only_post.subscribe("/a", lambda m: None, method="POST")
    assert only_post.request(HttpMessage("GET", "/a")).status == 405


def test_handlers_may_publish_and_their_errors_propagate() -> None:
    broker = NatsBroker()
    out: list[bytes] = []
    broker.subscribe("in", lambda m: broker.publish(NatsMessage("out", m.payload + b"!")))
    broker.subscribe("out", lambda m: out.append(m.payload))
    broker.publish(NatsMessage("in", b"x"))
    assert out == [b"x!"]

    def fail(_m: NatsMessage) -> None:
        raise RuntimeError("handler broke")

    broker.subscribe("boom", fail)
    with pytest.raises(RuntimeError, match="handler broke"):
        broker.publish(NatsMessage("boom", b""))
    assert broker.published[-1].subject == "boom"  # recorded before the failure


def test_sender_and_receiver_have_the_adapters_shape() -> None:
    broker = KafkaBroker()
    with broker.receiver("orders", group="g") as receiver, broker.sender() as sender:
        future = sender.send(KafkaMessage("orders", None, b"1"))
        sender.send(KafkaMessage("orders", None, b"2"))
        sender.send(KafkaMessage("orders", None, b"3"))
        sender.flush()
        assert future.result().routed and receiver.pending == 3
        seen: list[bytes | None] = []

        def once_failing(m: KafkaMessage) -> None:
            if m.value == b"2" and b"2" not in seen:
                seen.append(b"2")
                raise RuntimeError("not now")
            seen.append(m.value)

        assert receiver.run(lambda m: seen.append(m.value), max_messages=1) == 1
        with pytest.raises(RuntimeError):
            receiver.run(once_failing)
        assert receiver.pending == 2  # the failed message went back to the queue
        assert receiver.run(once_failing) == 2
        assert seen == [b"1", b"2", b"2", b"3"]
        assert receiver.receive() is None
    # closed: no longer subscribed
    assert not broker.publish(KafkaMessage("orders", None, b"4")).routed


def test_a_blocking_receiver_waits_for_other_threads() -> None:
    broker = NatsBroker()
    receiver = broker.receiver("jobs.*")
    got: list[str] = []
    worker = threading.Thread(
        target=lambda: receiver.run(lambda m: got.append(m.subject), idle_timeout=None, max_messages=2)
    )
    worker.start()
    broker.publish(NatsMessage("jobs.1", b""))
    broker.publish(NatsMessage("jobs.2", b""))
    worker.join(10)
    assert not worker.is_alive() and got == ["jobs.1", "jobs.2"]


# ------------------------------------------- the receivers run the adapters' serving loop

FAST = Retry(attempts=3, delay=0.001, factor=2.0, max_delay=0.01)


def _readings(acme: ModuleType, broker: KafkaBroker, values: list[float]) -> None:
    for value in values:
        broker.send(acme.MESSAGES["com.acme.Reading"].create({"value": value}, plant="p", sensor="s"))


def _reading_dispatcher(
    acme: ModuleType, handler: Any, dead: list[tuple[float, str]], refuse: bool = False
) -> Any:
    """The package's dispatcher with ``handler`` for readings; dead letters recorded as
    (value, reason); ``refuse``: the dead-letter callback raises."""

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        dead.append((json.loads(kafka_codec.decode(wire).data)["value"], reason))
        if refuse:
            raise ConnectionError("dead-letter store down")

    d = acme.consumer.Dispatcher(dead_letter=dead_letter)
    d.on("com.acme.Reading")(handler)
    return d


def _failing_on_two(calls: list[float]) -> Any:
    """A handler recording each reading's value that raises for the value 2.0."""

    def handle(event: Any, params: dict[str, str]) -> None:
        calls.append(event.data.value)
        if event.data.value == 2.0:
            raise ValueError("no")

    return handle


def test_a_handler_error_is_dead_lettered_and_the_message_acknowledged(acme: ModuleType) -> None:
    """As on a real broker (``tests/brokers/test_in_memory_parity.py``): the loop does not
    stop; the dispatcher's dead letter is delivered, then the message is acknowledged."""
    broker = KafkaBroker()
    calls: list[float] = []
    dead: list[tuple[float, str]] = []
    handle = _failing_on_two(calls)

    with broker.receiver("acme.readings") as receiver:
        _readings(acme, broker, [1.0, 2.0, 3.0])
        assert receiver.run(_reading_dispatcher(acme, handle, dead), handle_signals=False) == 3
        assert calls == [1.0, 2.0, 3.0] and dead == [(2.0, "handler-error")]
        assert [m.value for m in receiver.acknowledged] == [m.value for m in broker.published]
        assert receiver.pending == 0


def test_a_handler_error_given_back_is_retried_then_dead_lettered(acme: ModuleType) -> None:
    """A dispatcher that gives handler errors back (``redeliver=True``): ``run`` calls the
    handler again per ``retry``, then delivers the dead letter and acknowledges."""
    broker = KafkaBroker()
    calls: list[float] = []
    dead: list[tuple[float, str]] = []
    handle = _failing_on_two(calls)

    d = _reading_dispatcher(acme, handle, dead)
    d.handler_errors = "raise"
    with broker.receiver("acme.readings") as receiver:
        _readings(acme, broker, [1.0, 2.0, 3.0])
        assert receiver.run(d, retry=FAST, handle_signals=False) == 3
    assert calls == [1.0, 2.0, 2.0, 2.0, 3.0] and dead == [(2.0, "handler-error")]


def test_an_undelivered_dead_letter_sends_the_message_back_to_the_queue(acme: ModuleType) -> None:
    broker = KafkaBroker()
    dead: list[tuple[float, str]] = []
    stop = threading.Event()

    def poison(event: Any, params: dict[str, str]) -> None:
        if len(dead) == 1:
            stop.set()  # it came back once: enough
        raise ValueError("poison")

    with broker.receiver("acme.readings") as receiver:
        _readings(acme, broker, [7.0])
        d = _reading_dispatcher(acme, poison, dead, refuse=True)
        assert receiver.run(d, stop=stop, retry=FAST, handle_signals=False) == 0
        assert dead == [(7.0, "handler-error")] * 2
        assert receiver.acknowledged == [] and receiver.pending == 1  # still there
        assert receiver.run(_reading_dispatcher(acme, lambda e, p: None, []), handle_signals=False) == 1


@pytest.mark.parametrize("concurrency", [1, 3])
def test_acknowledgements_keep_arrival_order(acme: ModuleType, concurrency: int) -> None:
    broker = KafkaBroker()
    done: list[float] = []

    def handle(event: Any, params: dict[str, str]) -> None:
        time.sleep(0.01 * (5 - event.data.value))  # the later ones finish first
        done.append(event.data.value)

    with broker.receiver("acme.readings") as receiver:
        _readings(acme, broker, [1.0, 2.0, 3.0, 4.0])
        d = _reading_dispatcher(acme, handle, [])
        assert receiver.run(d, concurrency=concurrency, handle_signals=False) == 4
        assert sorted(done) == [1.0, 2.0, 3.0, 4.0]
        assert [m.value for m in receiver.acknowledged] == [m.value for m in broker.published]


def test_an_exception_of_on_message_gives_back_what_is_in_hand(acme: ModuleType) -> None:
    broker = KafkaBroker()
    with broker.receiver("acme.readings") as receiver:
        _readings(acme, broker, [1.0, 2.0, 3.0])

        def fail_on_second(message: KafkaMessage) -> None:
            if message.value == broker.published[1].value:
                raise RuntimeError("stop")

        with pytest.raises(RuntimeError):
            receiver.run(fail_on_second, concurrency=2, handle_signals=False)
        assert [m.value for m in receiver.acknowledged] == [broker.published[0].value]
        assert receiver.pending == 2  # the second and the third, back in their order
        back = [receiver.receive(), receiver.receive()]
        assert [m.value for m in back if m is not None] == [m.value for m in broker.published[1:]]


def test_the_async_receiver_runs_the_asyncio_serving_loop(acme: ModuleType) -> None:
    broker = KafkaBroker()
    calls: list[float] = []
    dead: list[tuple[float, str]] = []

    async def handle(event: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0)
        calls.append(event.data.value)
        if event.data.value == 2.0:
            raise ValueError("no")

    async def scenario() -> int:
        async with broker.async_receiver("acme.readings") as receiver:
            _readings(acme, broker, [1.0, 2.0, 3.0])
            d = _reading_dispatcher(acme, handle, dead)
            d.handler_errors = "raise"
            handled: int = await receiver.run(d, retry=FAST, handle_signals=False)
            assert len(receiver.acknowledged) == 3 and receiver.pending == 0
            return handled

    assert asyncio.run(scenario()) == 3
    assert calls == [1.0, 2.0, 2.0, 2.0, 3.0] and dead == [(2.0, "handler-error")]


def test_async_publish_awaits_and_sync_publish_refuses_inside_a_loop() -> None:
    broker = NatsBroker()
    got: list[bytes] = []

    async def handler(m: NatsMessage) -> str:
        await asyncio.sleep(0)
        got.append(m.payload)
        return "done"

    broker.subscribe("a", handler)
    assert broker.publish(NatsMessage("a", b"sync")).results == ("done",)  # no loop: run

    async def scenario() -> None:
        delivery = await broker.publish_async(NatsMessage("a", b"async"))
        assert delivery.results == ("done",)
        async with broker.async_sender() as sender:
            await sender.send(NatsMessage("a", b"sender"))
        receiver = broker.async_receiver("a")
        broker.publish(NatsMessage("b", b"elsewhere"))
        await broker.publish_async(NatsMessage("a", b"queued"))
        assert await receiver.run(handler) == 1
        await receiver.close()
        with pytest.raises(TypeError, match="publish_async"):
            broker.publish(NatsMessage("a", b"inside a loop"))

    asyncio.run(scenario())
    assert got == [b"sync", b"async", b"sender", b"queued", b"queued"]


# ------------------------------------------------------------------- the example factory


def test_example_events_are_deterministic_and_take_overrides(acme: ModuleType) -> None:
    first = example_event(acme, "com.acme.Alarm", id="1")
    again = example_event(acme, "com.acme.Alarm", id="1")
    assert first.attributes.pop("time") and again.attributes.pop("time")
    assert first == again
    when = datetime(2030, 1, 2, tzinfo=timezone.utc)
    custom = example_event(
        acme.MESSAGES, "com.acme.Alarm", plant="p9", severity=5, raisedAt=when, code="offline"
    )
    assert custom.attributes["source"].startswith("/plants/p9/")
    assert custom.attributes["severity"] == 5
    assert custom.data.raised_at == when and custom.data.code.value == "offline"
    by_field_name = example_event(acme, "com.acme.Alarm", raised_at=when)
    assert by_field_name.data.raised_at == when
    data = example_event(acme, "com.acme.ops.ShiftChanged", data={"shift": 3})
    assert data.data.shift == 3
    # the producer's checks apply: an invalid override fails as the producer fails
    with pytest.raises(ValueError):
        example_event(acme, "com.acme.Alarm", code="melted")
    with pytest.raises(TypeError, match="no field"):
        example_event(acme, "com.acme.Alarm", nonsense=1)
    with pytest.raises(KeyError, match="unknown message id"):
        example_event(acme, "com.acme.Nothing")


def test_patterns_formats_bounds_and_unions_are_synthesized() -> None:
    from typing import Annotated, Literal

    from pydantic import BaseModel, Field
    from xrgen_runtime import MessageDef
    from xrgen_runtime._produce import Emitter

    class Part(BaseModel):
        kind: Literal["part"] = "part"
        sku: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{4}$")]

    class Order(BaseModel):
        id: Annotated[str, Field(pattern=r"^ord_[a-f0-9]{8}$", max_length=12)]
        quantity: Annotated[int, Field(gt=0, le=5, multiple_of=2)]
        price: Annotated[float, Field(ge=0.5, lt=1.0)]
        code: Annotated[str, Field(min_length=5, max_length=5)]
        parts: Annotated[list[Part], Field(min_length=2)]
        lines: Annotated[list[int], Field(min_length=3, json_schema_extra={"uniqueItems": True})]
        note: str | None = None
        ref: int | str
        meta: dict[str, Annotated[int, Field(ge=7)]] = {}
        stamp: datetime
        parent: Order | None = None

    emitter = Emitter(MessageDef("o", "g", "CloudEvents/1.0", "o", model=Order))

    def create(data: Any, *, id: str | None = None, time: datetime | None = None) -> Any:
        return emitter.emit(Order, data, {}, id, time, {})

    messages = {"o": SimpleNamespace(definition=emitter.definition, create=create)}
    for seed in range(20):
        order = example_event(messages, "o", seed=seed).data
        assert re.fullmatch(r"ord_[a-f0-9]{8}", order.id) and order.quantity in (2, 4)
        assert 0.5 <= order.price < 1.0 and len(order.code) == 5 and len(order.parts) >= 2
        assert all(re.fullmatch(r"[A-Z]{3}-\d{4}", p.sku) for p in order.parts)
        assert len(set(order.lines)) == len(order.lines) >= 3
        assert order.meta and all(v >= 7 for v in order.meta.values())
        assert isinstance(order.parent, Order)  # optional members are filled near the root


# ------------------------------------------------------------- end to end with a package

#: binding -> (encode option naming the destination, default destination, catch-all pattern)
ROUTE = {
    "kafka": ("topic", "samples", "^.*"),
    "amqp": ("address", "samples", None),
    "mqtt": ("topic", "samples", "#"),
    "nats": ("subject", "samples", ">"),
    "http": ("path", "/samples", None),
    "pulsar": ("topic", "samples", re.compile(".*")),
    "rocketmq": ("topic", "samples", None),
}


class Service:
    """A dispatcher with a handler for every message of ``pkg``, subscribed to the brokers
    (catch-all patterns where the protocol has them, else each destination as it appears)."""

    def __init__(self, pkg: ModuleType) -> None:
        self.pkg = pkg
        self.brokers = Brokers()
        self.calls: list[tuple[str, Any]] = []
        self.dead: list[tuple[str, str]] = []
        self.dispatcher = pkg.consumer.Dispatcher(
            dead_letter=lambda _m, reason, detail: self.dead.append((reason, detail))
        )
        for message_id in pkg.MESSAGES:
            self.dispatcher.on(message_id)(
                lambda ev, params, mid=message_id: self.calls.append((mid, ev))
            )
        self.exact: set[tuple[str, str]] = set()
        for name, (_, _, catch_all) in ROUTE.items():
            if catch_all is not None:
                getattr(self.brokers, name).subscribe(catch_all, self.dispatcher.dispatch)

    def routes(self, info: Any, event: Any) -> list[tuple[str, str, dict[str, Any]]]:
        """``[(binding, mode, encode options)]`` for an event of ``info``."""
        protocol = info.definition.protocol
        names = [PROTOCOLS[protocol]] if protocol else sorted(ROUTE)
        plain = info.definition.envelope is None
        out = []
        for name in names:
            field, default, _ = ROUTE[name]
            options = {} if getattr(event.binding, field, None) else {field: default}
            modes = ["binary", "structured"]
            if plain:
                modes = ["binary"]
            elif protocol == "MQTT/3.1.1":
                modes = ["structured"]  # 3.1.1 has no properties for binary mode
            out += [(name, mode, options) for mode in modes]
        return out

    def send(self, name: str, mode: str, event: Any, options: dict[str, Any]) -> Any:
        broker = getattr(self.brokers, name)
        wire = broker.encode(event, mode, **options)
        if ROUTE[name][2] is None:
            destination = broker._destination(wire)
            if (name, destination) not in self.exact:
                self.exact.add((name, destination))
                broker.subscribe(destination, self.dispatcher.dispatch)
        return broker.publish(wire)

    def expect_own_handler(self, info: Any, event: Any, delivery: Any, where: Any) -> None:
        assert delivery.routed and len(delivery.results) == 1, where
        (result,) = delivery.results
        assert isinstance(result, DispatchResult) and result.handled, (where, result, self.dead)
        ((got_id, got),) = self.calls
        assert result.message_id == got_id, where
        if got_id != info.id:  # only an EARLIER definition of the same type may take it
            ids = list(self.pkg.MESSAGES)
            assert ids.index(got_id) < ids.index(info.id), where
            assert self.pkg.MESSAGES[got_id].type == info.type, where
        if event.attributes:
            assert got.attributes["id"] == event.attributes["id"], where
        if info.model is not None:
            assert got.data == event.data, where

    def check(self, info: Any, event: Any) -> int:
        """Send ``event`` every way its message travels; return how many wire messages."""
        count = 0
        for name, mode, options in self.routes(info, event):
            self.calls.clear()
            self.dead.clear()
            delivery = self.send(name, mode, event, options)
            self.expect_own_handler(info, event, delivery, (info.id, name, mode))
            count += 1
        return count


def test_every_acme_message_reaches_its_own_handler_over_its_broker(acme: ModuleType) -> None:
    service = Service(acme)
    sent = 0
    for message_id, info in acme.MESSAGES.items():
        event = example_event(acme, message_id)
        assert event.attributes.get("type") == info.type
        sent += service.check(info, event)
        # an xref of Reading has Reading's type: Reading's handler (first in catalog order)
        own = "com.acme.Reading" if message_id == "com.acme.ops.ReadingAlias" else message_id
        assert service.calls[0][0] == own
    # 6 two-mode messages on their binding, the plain one once, Note on 7 bindings x 2 modes
    assert sent == 7 * 2 + 1 + 7 * 2
    assert len(service.brokers.kafka.published) == 3 * 2 + 2
    assert len(service.brokers.http.published) == 2 + 2
    assert not any(b.unrouted for b in service.brokers)


@pytest.mark.parametrize("message_id", ["com.acme.Reading", "com.acme.Alarm", "com.acme.ReadingBatch",
                                        "com.acme.ops.MaintenanceScheduled", "com.acme.ops.ShiftChanged",
                                        "com.acme.ops.LineStatus", "com.acme.ops.Heartbeat",
                                        "com.acme.ops.Note"])
def test_generated_acme_events_validate_and_dispatch(acme: ModuleType, message_id: str) -> None:
    service = Service(acme)
    info = acme.MESSAGES[message_id]
    seen: list[Any] = []

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(example_events(acme, message_id))
    def check(event: Any) -> None:
        if info.model is not None:
            assert info.model.model_validate_json(info.model.model_dump_json(event.data)) == event.data
        service.check(info, event)
        seen.append(event)

    check()
    assert len(seen) >= 10


def test_strategy_overrides_may_be_strategies(acme: ModuleType) -> None:
    from hypothesis import strategies as st

    seen: set[int] = set()

    @settings(max_examples=30, deadline=None)
    @given(example_events(acme, "com.acme.Alarm", severity=st.sampled_from([1, 2]), plant="p7"))
    def check(event: Any) -> None:
        assert event.attributes["source"].startswith("/plants/p7/")
        seen.add(event.attributes["severity"])

    check()
    assert seen == {1, 2}


# --------------------------------------------------------------- the real sample catalogs

samples = pytest.mark.skipif(not PRESENT, reason=ABSENT_REASON)


@samples
@pytest.mark.parametrize("sample", GOOD)
def test_every_sample_message_reaches_its_handler_over_its_broker(generated: Any, sample: str) -> None:
    pkg = generated(SAMPLES / sample, package=package_name(sample))
    service = Service(pkg)
    for message_id, info in pkg.MESSAGES.items():
        try:
            event = example_event(pkg, message_id)
        except ExampleError as exc:  # pragma: no cover - the assertion message is the point
            pytest.fail(f"{sample}: {exc}")
        assert service.check(info, event) >= 1


@samples
@pytest.mark.parametrize("sample", GOOD)
def test_sample_strategies_validate_and_dispatch(generated: Any, sample: str) -> None:
    pkg = generated(SAMPLES / sample, package=package_name(sample))
    service = Service(pkg)
    for message_id, info in pkg.MESSAGES.items():
        _strategy_check(service, info, example_events(pkg, message_id))


def _strategy_check(service: Service, info: Any, events: Any) -> None:
    @settings(max_examples=5, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(events)
    def check(event: Any) -> None:
        service.check(info, event)

    check()


def test_decimals_and_fixed_bytes_are_synthesized_within_their_digits_and_length() -> None:
    from decimal import Decimal
    from typing import Annotated

    from pydantic import BaseModel, Field
    from xrgen_runtime.testing._examples import payload_instance
    from xrgen_runtime.testing._strategies import payloads

    class Money(BaseModel):
        total: Annotated[Decimal, Field(max_digits=5, decimal_places=2)]
        tiny: Annotated[Decimal, Field(max_digits=3, decimal_places=3)]
        whole: Annotated[Decimal, Field(max_digits=4)]
        floor: Annotated[Decimal, Field(ge=Decimal("10.5"), decimal_places=1)]
        plain: Decimal
        digest: Annotated[bytes, Field(min_length=16, max_length=16)]

    def valid(m: Money) -> None:
        assert abs(m.total) < 1000 and -m.total.as_tuple().exponent <= 2  # type: ignore[operator]
        assert abs(m.tiny) < 1 and abs(m.whole) < 10_000 and m.floor >= Decimal("10.5")
        assert len(m.digest) == 16

    for seed in range(10):
        instance = payload_instance(Money, seed)
        assert isinstance(instance, Money)
        valid(instance)
    drawn: list[Money] = []

    @settings(max_examples=60, deadline=None)
    @given(payloads(Money))
    def check(m: Any) -> None:
        valid(m)
        drawn.append(m)

    check()
    assert len({m.total for m in drawn}) > 10  # not one value over and over


FORMAT_CATALOGS = ["avro", "protobuf", "xml"]


@pytest.mark.slow
@pytest.mark.parametrize("catalog", FORMAT_CATALOGS)
def test_format_catalog_strategies_round_trip_through_the_brokers(generated: Any, catalog: str) -> None:
    pkg = generated(CATALOGS / catalog / "catalog.json", package=f"kit_{catalog}")
    service = Service(pkg)
    for message_id, info in pkg.MESSAGES.items():
        assert _round_trips(service, info, example_events(pkg, message_id)) >= 10, message_id


def _round_trips(service: Service, info: Any, events: Any) -> int:
    """How many drawn events of ``info`` reached their own handler (every way they travel)."""
    seen: list[Any] = []

    @settings(max_examples=25, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(events)
    def check(event: Any) -> None:
        assert service.check(info, event) >= 1
        seen.append(event)

    check()
    return len(seen)


#: a record with every Avro logical type, fixed and bytes sizes, a union and nesting
EVERY_AVRO_TYPE = {
    "type": "record", "name": "Everything", "namespace": "com.example.kit",
    "fields": [
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "clock", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "clockMicros", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 3}},
        {"name": "amount", "type": {"type": "fixed", "name": "Amount", "size": 8,
                                    "logicalType": "decimal", "precision": 12, "scale": 4}},
        {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 16}},
        {"name": "blob", "type": "bytes"},
        {"name": "ratio", "type": "float"},
        {"name": "count", "type": "int"},
        {"name": "total", "type": "long"},
        {"name": "maybe", "type": ["null", "Digest", {"type": "int", "logicalType": "date"}], "default": None},
        {"name": "tags", "type": {"type": "map", "values": {"type": "array", "items": "Amount"}}},
    ],
}


def test_every_avro_logical_type_is_synthesized_and_round_trips(generated: Any, tmp_path: Any) -> None:
    import json

    catalog = json.loads((CATALOGS / "avro" / "catalog.json").read_text())
    versions = catalog["schemagroups"]["com.example.shop.schemas"]["schemas"]["Shipment"]["versions"]
    versions["1"]["schema"] = EVERY_AVRO_TYPE
    (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    pkg = generated(tmp_path / "catalog.json", package="kit_avro_types")
    info = pkg.MESSAGES["com.example.shop.OrderShipped"]
    service = Service(pkg)
    for seed in range(5):
        event = example_event(pkg, info.id, seed=seed)
        assert len(event.data.digest.root) == 16 and abs(event.data.price) < 1000
        # local timestamps and times of day hold the wall clock only, as the wire does
        assert event.data.ts.tzinfo is not None and event.data.local.tzinfo is None
        assert event.data.clock.tzinfo is None and event.data.clock_micros.tzinfo is None
        assert service.check(info, event) >= 1
    # an instant without zone is UTC (as the writer takes it), so it reads back equal
    naive = datetime(2024, 1, 1, 7, 8, 9, 123456)
    event = example_event(pkg, info.id, ts=naive, tsMicros=naive, local=naive)
    assert event.data.ts == naive.replace(microsecond=123000, tzinfo=timezone.utc)
    assert event.data.ts_micros == naive.replace(tzinfo=timezone.utc)
    assert event.data.local == naive.replace(microsecond=123000)
    assert service.check(info, event) >= 1
    assert _round_trips(service, info, example_events(pkg, info.id)) >= 10
