"""A consumer endpoint serving: at-least-once acknowledgement, handler errors redelivered or
dead-lettered, async handlers with bounded concurrency, and SIGTERM during handling (a
subprocess) finishing and acknowledging the message in hand."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import KAFKA_CONSUMER, wait_until
from .endpoints_catalog import (  # noqa: F401  (fixtures)
    Inbox,
    amqp_login_fixture,
    amqp_where_fixture,
    endpoints_fixture,
    kafka_where_fixture,
    mqtt_where_fixture,
    nats_where_fixture,
    order,
    svc_fixture,
)


class Flaky(Inbox):
    """Its handler raises the first time it sees ``o-1``."""

    def __init__(self, ep: Any, **kwargs: Any) -> None:
        super().__init__(ep, **kwargs)
        self.attempts: list[str] = []

    def handle(self, event: Any, params: dict[str, str]) -> None:
        self.attempts.append(event.data.order_id)
        if event.data.order_id == "o-1" and self.attempts.count("o-1") == 1:
            raise RuntimeError("first attempt fails")
        super().handle(event, params)


def _amqp_round(svc: ModuleType, EP: Any, where: dict[str, str], n: int) -> None:
    with EP["svc.amqp.out"].sender(**where) as s:
        for i in range(n):
            s.send(order(svc, i))


def test_handler_error_is_redelivered(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    _amqp_round(svc, EP, amqp_where, 3)
    inbox = Flaky(EP["svc.amqp.in"], redeliver=True)
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(inbox.dispatcher.dispatch, max_messages=3, idle_timeout=10) == 3
    assert sorted(inbox.ids()) == ["o-0", "o-1", "o-2"]
    assert inbox.attempts.count("o-1") == 2
    assert not inbox.dead


def test_handler_error_goes_to_the_dead_letter_and_is_acknowledged(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    _amqp_round(svc, EP, amqp_where, 3)
    inbox = Flaky(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(inbox.dispatcher.dispatch, max_messages=3, idle_timeout=10) == 3
    assert inbox.ids() == ["o-0", "o-2"]
    assert [reason for _, reason, _ in inbox.dead] == ["handler-error"]
    again = Inbox(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(again.dispatcher.dispatch, idle_timeout=1) == 0


def test_kafka_redelivery_rewinds_to_the_failed_message(
    svc: ModuleType, EP: Any, kafka_where: dict[str, str]
) -> None:
    with EP["svc.kafka.out"].sender(**kafka_where, partition=0) as s:
        for i in range(4):
            s.send(order(svc, i))
    inbox = Flaky(EP["svc.kafka.in"], redeliver=True)
    # partition= selects (assigns) that partition instead of joining the group's assignment
    with EP["svc.kafka.in"].receiver(**kafka_where, partition=0, config=KAFKA_CONSUMER) as r:
        assert r.run(inbox.dispatcher.dispatch, max_messages=4, idle_timeout=30) == 4
    assert inbox.ids() == ["o-0", "o-1", "o-2", "o-3"]
    assert inbox.attempts[:3] == ["o-0", "o-1", "o-1"]


class Concurrent:
    """Async handlers that hold each message a while; records how many ran at once."""

    def __init__(self, ep: Any, hold: float) -> None:
        self.hold = hold
        self.running = self.most = 0
        self.done: list[str] = []
        self.dispatcher = ep.dispatcher()
        for message_id in ep.message_ids:
            self.dispatcher.on(message_id)(self.handle)

    async def handle(self, event: Any, params: dict[str, str]) -> None:
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(self.hold)
        self.running -= 1
        self.done.append(event.data.order_id)


def test_async_handlers_run_concurrently_and_are_acknowledged(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    _amqp_round(svc, EP, amqp_where, 8)
    handlers = Concurrent(EP["svc.amqp.in"], hold=0.4)
    start = time.monotonic()
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        handled = r.run(handlers.dispatcher.dispatch_async, max_messages=8, concurrency=4)
    elapsed = time.monotonic() - start
    assert handled == 8 and sorted(handlers.done) == [f"o-{i}" for i in range(8)]
    assert handlers.most == 4
    assert elapsed < 8 * 0.4  # sequentially it takes 3.2 s at least
    again = Inbox(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(again.dispatcher.dispatch, idle_timeout=1) == 0  # all acknowledged


def test_async_receiver_with_concurrency(
    svc: ModuleType, EP: Any, nats_where: dict[str, str]
) -> None:
    run = nats_where["run"]
    handlers = Concurrent(EP["svc.nats.in"], hold=0.3)

    async def main() -> int:
        import nats

        nc = await nats.connect(f"nats://{nats_where['host']}:{nats_where['natsport']}")
        js = nc.jetstream()
        subject = EP["svc.nats.in"].config(**nats_where)["subject"]
        await js.add_stream(name="S" + run, subjects=[subject])
        try:
            async with EP["svc.nats.out"].async_sender(**nats_where, jetstream=True) as s:
                for i in range(6):
                    await s.send(order(svc, i))
            async with EP["svc.nats.in"].async_receiver(**nats_where, durable="d" + run) as r:
                return await r.run(
                    handlers.dispatcher.dispatch_async, max_messages=6, concurrency=3
                )
        finally:
            await js.delete_stream("S" + run)
            await nc.close()

    assert asyncio.run(main()) == 6
    assert sorted(handlers.done) == [f"o-{i}" for i in range(6)]
    assert handlers.most == 3


# ------------------------------------------------------------------------------ SIGTERM

CHILD = """
import json, os, sys, time
sys.path[:0] = [os.environ["PKG_DIR"]]
import svc_endpoints as svc
ep = svc.ENDPOINTS[os.environ["ENDPOINT"]]
log = open(os.environ["LOG"], "a", buffering=1)
d = ep.dispatcher()

def handle(event, params):
    log.write("start " + event.data.order_id + "\\n")
    time.sleep(float(os.environ.get("HOLD", "1.5")))
    log.write("done " + event.data.order_id + "\\n")

for m in ep.message_ids:
    d.on(m)(handle)
with ep.receiver(**json.loads(os.environ["ARGS"])) as r:
    n = r.run(d.dispatch)
log.write("stopped %d\\n" % n)
"""


@pytest.mark.parametrize("binding", ["amqp", "kafka"])
def test_sigterm_finishes_and_acknowledges_the_message_in_hand(
    svc: ModuleType, EP: Any, binding: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    if binding == "amqp":
        request.getfixturevalue("amqp_login")
        where = request.getfixturevalue("amqp_where")
        args = dict(where)
    else:
        where = request.getfixturevalue("kafka_where")
        args = {**where, "config": KAFKA_CONSUMER}
    out, into = EP[f"svc.{binding}.out"], EP[f"svc.{binding}.in"]
    with out.sender(**where, **({"partition": 0} if binding == "kafka" else {})) as s:
        for i in range(3):
            s.send(order(svc, i))
    log = tmp_path / "child.log"
    env = {
        **os.environ,
        "PKG_DIR": str(Path(svc.__file__).parents[1]),
        "ENDPOINT": into.id,
        "LOG": str(log),
        "ARGS": json.dumps(args),
    }
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: log.exists() and "start" in log.read_text(), 60, "a handler start")
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    lines = log.read_text().splitlines()
    assert child.returncode == 0, err.decode()
    assert lines[0] == "start o-0" and lines[1] == "done o-0" and lines[2] == "stopped 1", lines
    rest = Inbox(into)
    with into.receiver(**args) as r:
        r.run(rest.dispatcher.dispatch, idle_timeout=5 if binding == "amqp" else 15)
    assert sorted(rest.ids()) == ["o-1", "o-2"]  # o-0 was acknowledged before the exit


def test_run_restores_the_signal_handlers(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    before = [signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)]
    inside: list[Any] = []
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        _amqp_round(svc, EP, amqp_where, 1)
        r.run(lambda msg: inside.append(signal.getsignal(signal.SIGTERM)), idle_timeout=1)
    assert inside and inside[0] not in before  # the loop's own handler while serving
    assert [signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)] == before
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        _amqp_round(svc, EP, amqp_where, 1)
        r.run(
            lambda msg: inside.append(signal.getsignal(signal.SIGTERM)),
            idle_timeout=1,
            handle_signals=False,
        )
    assert inside[1] == before[0]  # left alone


WILL_CHILD = """
import json, os, sys, time
sys.path[:0] = [os.environ["PKG_DIR"]]
import svc_endpoints as svc
ep = svc.ENDPOINTS["svc.mqtt5.will"]
sender = ep.sender(**json.loads(os.environ["ARGS"]))
print("connected", flush=True)
time.sleep(120)
"""


def test_mqtt_will_message_is_published_when_the_sender_dies(
    svc: ModuleType, EP: Any, mqtt_where: dict[str, str]
) -> None:
    """The catalog's willmessage, built by its typed producer, reaches a subscriber when
    the sender's process is killed (no DISCONNECT)."""
    args = {
        **mqtt_where,
        "will": {"order_id": "gone", "total": 0},
        "will_arguments": {"shop": "s9"},
    }
    inbox = Inbox(EP["svc.mqtt5.in"])
    env = {
        **os.environ,
        "PKG_DIR": str(Path(svc.__file__).parents[1]),
        "ARGS": json.dumps(args),
    }
    with EP["svc.mqtt5.in"].receiver(**mqtt_where, client_id="w" + mqtt_where["run"]) as r:
        child = subprocess.Popen(
            [sys.executable, "-c", WILL_CHILD], env=env, stdout=subprocess.PIPE
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == b"connected"
            child.kill()
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
        assert r.run(inbox.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
    (will,) = inbox.events
    assert will.type == "svc.OrderCancelled" and will.data.order_id == "gone"
    assert will.source == "/shops/s9"


def test_a_second_signal_interrupts_and_gives_the_message_back(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None, tmp_path: Path
) -> None:
    _amqp_round(svc, EP, amqp_where, 1)
    log = tmp_path / "child.log"
    env = {
        **os.environ,
        "PKG_DIR": str(Path(svc.__file__).parents[1]),
        "ENDPOINT": "svc.amqp.in",
        "LOG": str(log),
        "ARGS": json.dumps(amqp_where),
        "HOLD": "30",
    }
    child = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: log.exists() and "start" in log.read_text(), 60, "a handler start")
        start = time.monotonic()
        child.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
    assert time.monotonic() - start < 20  # not the handler's 30 s
    assert child.returncode != 0 and b"KeyboardInterrupt" in err
    assert log.read_text().splitlines() == ["start o-0"]
    again = Inbox(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(again.dispatcher.dispatch, max_messages=1, idle_timeout=5) == 1
    assert again.ids() == ["o-0"]  # given back


def test_amqp_link_settings_reach_the_broker(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    """Settle modes, terminus durability and expiry, link properties: RabbitMQ attaches the
    links with them, and a pre-settled sender's sends resolve without dispositions."""
    settings = {
        "sender_settle_mode": "settled",
        "terminus_durability": "configuration",
        "expiry_policy": "never",
        "link_properties": {"app": "billing"},
    }
    with EP["svc.amqp.out"].sender(**amqp_where, **settings) as s:
        futures = [s.send(order(svc, i)) for i in range(3)]
    assert all(f.done() and f.result().destination for f in futures)  # Receipt
    inbox = Inbox(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(  # the same durable queue the sender declared
        **amqp_where, receiver_settle_mode="first", distribution_mode="move",
        terminus_durability="configuration",
    ) as r:
        assert r.run(inbox.dispatcher.dispatch, max_messages=3, idle_timeout=10) == 3
    assert inbox.ids() == ["o-0", "o-1", "o-2"]


def test_kafka_concurrent_redelivery_loses_nothing(
    svc: ModuleType, EP: Any, kafka_where: dict[str, str]
) -> None:
    """Async handlers three at a time; o-2 fails once: it and the messages after it that were
    in hand go back, so every message is handled and the committed offset never passes o-2
    before it is."""
    with EP["svc.kafka.out"].sender(**kafka_where, partition=0) as s:
        for i in range(8):
            s.send(order(svc, i))
    into = EP["svc.kafka.in"]
    attempts: list[str] = []
    d = into.dispatcher(redeliver=True)

    async def handle(event: Any, params: dict[str, str]) -> None:
        order_id = event.data.order_id
        attempts.append(order_id)
        await asyncio.sleep(0.05 * (8 - int(order_id[2:])))  # later ones finish first
        if order_id == "o-2" and attempts.count("o-2") == 1:
            raise RuntimeError("first attempt fails")

    for message_id in into.message_ids:
        d.on(message_id)(handle)
    with into.receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        assert r.run(d.dispatch_async, max_messages=8, concurrency=3, idle_timeout=30) == 8
    assert attempts.count("o-2") == 2
    assert set(attempts) == {f"o-{i}" for i in range(8)}
    again = Inbox(into)
    with into.receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        assert r.run(again.dispatcher.dispatch, idle_timeout=8) == 0  # all committed
