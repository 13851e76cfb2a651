"""NATS core and JetStream end to end, and a JetStream server restart mid-stream."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import Any

import pytest

from .conftest import (
    ServerProcess,
    adapter,
    assert_same_event,
    codec,
    make_event,
    make_sink,
    unique,
)

pytestmark = pytest.mark.brokers


def run(coro_fn: Callable[[], Awaitable[None]], timeout: float = 60) -> None:
    asyncio.run(asyncio.wait_for(coro_fn(), timeout))  # type: ignore[arg-type]


async def add_stream(url: str, name: str, subject: str) -> None:
    import nats

    nc = await nats.connect(url)
    try:
        await nc.jetstream().add_stream(name=name, subjects=[subject])
    finally:
        await nc.close()


async def delete_stream(url: str, name: str) -> None:
    import nats

    nc = await nats.connect(url)
    try:
        await nc.jetstream().delete_stream(name)
    finally:
        await nc.close()


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_core_round_trip(rt: ModuleType, nats_url: str, mode: str) -> None:
    nats_codec, na = codec(rt, "nats"), adapter(rt, "nats")
    subject = unique("nats").replace("-", ".")
    events = [make_event(rt, rt.NatsBinding(subject=subject)) for _ in range(5)]
    sink = make_sink(rt)
    wire: list[Any] = []

    async def main() -> None:
        rx = await na.NatsReceiver.connect(nats_url, subject)
        async with rx, await na.NatsSender.connect(nats_url) as tx:
            for e in events:
                await tx.send(nats_codec.encode(e, mode=mode))
            await tx.flush()

            async def on_message(msg: Any) -> None:
                wire.append(msg)
                await sink.dispatcher.dispatch_async(msg)

            assert await rx.run(on_message, max_messages=5, idle_timeout=10) == 5

    run(main)
    assert not sink.dead
    for got, event in zip(sink.handled, events, strict=True):
        assert_same_event(got, event)
    sent = [nats_codec.encode(e, mode=mode) for e in events]
    assert [m.payload for m in wire] == [m.payload for m in sent]
    assert [dict(m.headers) for m in wire] == [dict(m.headers) for m in sent]


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_jetstream_round_trip_and_nak_redelivery(
    rt: ModuleType, nats_url: str, mode: str
) -> None:
    nats_codec, na = codec(rt, "nats"), adapter(rt, "nats")
    name = unique("js").upper().replace("-", "_")
    subject = name.lower().replace("_", ".")
    events = [make_event(rt, rt.NatsBinding(subject=subject)) for _ in range(5)]
    sink = make_sink(rt)

    async def main() -> None:
        await add_stream(nats_url, name, subject)
        async with await na.JetStreamSender.connect(nats_url) as tx:
            acks = [await tx.send(nats_codec.encode(e, mode=mode)) for e in events]
        assert [a.seq for a in acks] == [1, 2, 3, 4, 5] and {
            a.stream for a in acks
        } == {name}
        rx = await na.JetStreamReceiver.connect(nats_url, subject, "durable", batch=2)
        async with rx:
            calls = 0

            def crash_once(msg: Any) -> None:
                nonlocal calls
                calls += 1
                if calls == 1:
                    raise ConnectionError("downstream unavailable")
                sink.dispatcher.dispatch(msg)

            with pytest.raises(ConnectionError):
                await rx.run(crash_once, idle_timeout=10)
            assert await rx.run(crash_once, max_messages=5, idle_timeout=10) == 5
        await delete_stream(nats_url, name)

    run(main)
    assert not sink.dead
    assert sink.ids() == {e.attributes["id"] for e in events}
    by_id = {e.attributes["id"]: e for e in sink.handled}
    for event in events:
        assert_same_event(by_id[event.attributes["id"]], event)


def test_jetstream_close_gives_back_what_a_lingering_pull_delivered(
    rt: ModuleType, nats_url: str
) -> None:
    """A pull request of the receiver's may deliver after its fetch returned (the server
    answers it until it expires): closing gives those messages back at once, so a receiver
    that takes over gets them now, not after the consumer's ack_wait (60 s here)."""
    import json

    nats_codec, na = codec(rt, "nats"), adapter(rt, "nats")
    name = unique("js").upper().replace("-", "_")
    subject = name.lower().replace("_", ".")
    events = [make_event(rt, rt.NatsBinding(subject=subject)) for _ in range(10)]
    sink = make_sink(rt)
    consumer = {"ack_wait": 60.0}

    async def main() -> None:
        await add_stream(nats_url, name, subject)
        rx = await na.JetStreamReceiver.connect(
            nats_url, subject, "durable", consumer=consumer
        )
        async with rx:
            assert await rx._poll(0.05) is None  # nothing stored yet
            async with await na.JetStreamSender.connect(nats_url) as tx:
                for e in events:
                    await tx.send(nats_codec.encode(e, mode="binary"))
            # what an unexpired pull request brings: delivered to the receiver's inbox,
            # not handed out by a fetch
            psub = rx._psub
            request = json.dumps({"batch": 10, "expires": 2_000_000_000}).encode()
            await rx._nc.publish(psub._nms, request, psub._deliver)
            for _ in range(200):
                if psub.pending_msgs >= 10:
                    break
                await asyncio.sleep(0.01)
            assert psub.pending_msgs >= 10  # and status replies to the earlier fetch
        rx2 = await na.JetStreamReceiver.connect(
            nats_url, subject, "durable", consumer=consumer
        )
        async with rx2:
            got = await rx2.run(
                sink.dispatcher.dispatch, max_messages=10, idle_timeout=5
            )
        assert got == 10
        await delete_stream(nats_url, name)

    run(main)
    assert not sink.dead
    assert sink.ids() == {e.attributes["id"] for e in events}


def test_malformed_message_is_dead_lettered(rt: ModuleType, nats_url: str) -> None:
    na = adapter(rt, "nats")
    codec(rt, "nats")
    subject = unique("nats").replace("-", ".")
    garbage = rt.NatsMessage(
        subject=subject,
        payload=b"\xff\xfe{",
        headers=(("Content-Type", "application/cloudevents+json"),),
    )
    sink = make_sink(rt)

    async def main() -> None:
        rx = await na.NatsReceiver.connect(nats_url, subject)
        async with rx, await na.NatsSender.connect(nats_url) as tx:
            await tx.send(garbage)
            await tx.flush()
            assert (
                await rx.run(sink.dispatcher.dispatch, max_messages=1, idle_timeout=10)
                == 1
            )

    run(main)
    assert not sink.handled
    ((original, reason, _),) = sink.dead
    assert reason == "decode-error"
    assert original.payload == garbage.payload


def test_jetstream_restart_mid_stream_loses_nothing_acknowledged(
    rt: ModuleType, private_nats: ServerProcess
) -> None:
    """The server restarts between two halves of a stream; every message whose PubAck the
    sender got is dispatched by the durable consumer (file storage)."""
    nats_codec, na = codec(rt, "nats"), adapter(rt, "nats")
    url = f"nats://127.0.0.1:{private_nats.port}"
    subject = "restart.readings"
    events = [make_event(rt, rt.NatsBinding(subject=subject)) for _ in range(40)]
    sink = make_sink(rt)
    acknowledged: set[str] = set()

    async def send_all(tx: Any, batch: list[Any]) -> None:
        for e in batch:
            for _attempt in range(50):  # retry until the stream acknowledges it
                try:
                    await tx.send(nats_codec.encode(e))
                except (
                    Exception
                ):  # noqa: BLE001 - server down: the publish was not acknowledged
                    await asyncio.sleep(0.2)
                    continue
                acknowledged.add(e.attributes["id"])
                break

    async def main() -> None:
        await add_stream(url, "RESTART", subject)
        tx = await na.JetStreamSender.connect(url, timeout=2.0, reconnect_time_wait=0.2)
        rx = await na.JetStreamReceiver.connect(
            url, subject, "durable", reconnect_time_wait=0.2
        )
        stop = asyncio.Event()
        consumer = asyncio.create_task(rx.run(sink.dispatcher.dispatch, stop=stop))
        await send_all(tx, events[:20])
        await asyncio.to_thread(private_nats.restart)
        await send_all(tx, events[20:])
        for _ in range(300):
            if acknowledged <= sink.ids():
                break
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait_for(consumer, 15)
        await tx.close()
        await rx.close()

    run(main, timeout=90)
    assert len(acknowledged) == 40
    assert acknowledged <= sink.ids()
    assert not sink.dead


def test_a_core_receiver_that_falls_behind_drops_the_excess(
    rt: ModuleType, nats_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Core NATS is at most once: the subscription holds ``pending_messages`` messages not
    yet handled, and drops what comes beyond them (a warning: slow consumer)."""
    na = adapter(rt, "nats")
    subject = unique("nats-slow").replace("-", "_")

    async def main() -> int:
        rx = await na.NatsReceiver.connect(nats_url, subject, pending_messages=100)
        tx = await na.NatsSender.connect(nats_url)
        for i in range(500):
            await tx.send(rt.NatsMessage(subject=subject, payload=str(i).encode()))
        await tx.flush()
        await tx.close()
        await asyncio.sleep(0.5)
        received = 0
        while await rx._poll(0.2) is not None:
            received += 1
        await rx.close()
        return received

    with caplog.at_level("WARNING", logger="xrgen_runtime.adapters"):
        received = asyncio.run(main())
    assert 100 <= received < 500
    assert any("slow consumer" in r.getMessage() for r in caplog.records)
