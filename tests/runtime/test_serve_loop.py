"""The serving loop (``adapters/_serve.py``, ``_handling.py``) with in-memory receivers: async
handlers awaited before the acknowledgement on every receiver kind and concurrency, handler
errors retried then dead-lettered, a raising dead-letter callback leaving the message
unacknowledged (given back, or handed to the handler again where the receiver cannot give it
back), acknowledgements in arrival order, and ``concurrency`` meaning that many handlers at
once for sync and async handlers."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime import DispatchResult, HandlerError
from xrgen_runtime._retry import Retry
from xrgen_runtime.adapters._loop import AsyncPollingReceiver, PollingReceiver
from xrgen_runtime.bindings import kafka
from xrgen_runtime.testing import example_event

READING = "com.acme.Reading"
FAST = Retry(attempts=3, delay=0.001, factor=2.0, max_delay=0.01)


class Log:
    """What happened, in order: ``("handled", n)``, ``("ack", n)``, ``("nack", n)``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: list[tuple[str, int]] = []

    def add(self, what: str, n: int) -> None:
        with self.lock:
            self.items.append((what, n))

    def of(self, what: str) -> list[int]:
        return [n for w, n in self.items if w == what]


class Memory(PollingReceiver[Any, Any]):
    """A blocking receiver over a list of wire messages; ``_nack`` puts one back."""

    def __init__(self, messages: list[Any], log: Log, gives_back: bool = True) -> None:
        self.queue: deque[tuple[int, Any]] = deque(enumerate(messages))
        self.log = log
        self.back = gives_back

    def _poll(self, timeout: float) -> Any:
        return self.queue.popleft() if self.queue else None

    def _convert(self, raw: Any) -> Any:
        return raw[1]

    def _ack(self, raw: Any) -> None:
        self.log.add("ack", raw[0])

    def _nack(self, raw: Any) -> None:
        """Back into the queue at its place (as a broker redelivers: in order)."""
        self.log.add("nack", raw[0])
        self.queue = deque(sorted([*self.queue, raw], key=lambda item: item[0]))

    def _gives_back(self) -> bool:
        return self.back

    def close(self) -> None:
        pass


class AsyncMemory(AsyncPollingReceiver[Any, Any]):
    """The asyncio twin of :class:`Memory`."""

    def __init__(self, messages: list[Any], log: Log, gives_back: bool = True) -> None:
        self.sync = Memory(messages, log, gives_back)

    async def _poll(self, timeout: float) -> Any:
        return self.sync._poll(timeout)

    def _convert(self, raw: Any) -> Any:
        return raw[1]

    async def _ack(self, raw: Any) -> None:
        self.sync._ack(raw)

    async def _nack(self, raw: Any) -> None:
        self.sync._nack(raw)

    def _gives_back(self) -> bool:
        return self.sync.back

    async def close(self) -> None:
        pass


def run(receiver: Any, on_message: Any, **kw: Any) -> int:
    kw.setdefault("handle_signals", False)
    kw.setdefault("idle_timeout", 0.1)
    if isinstance(receiver, AsyncPollingReceiver):
        return asyncio.run(receiver.run(on_message, **kw))
    return int(receiver.run(on_message, **kw))


RECEIVERS = [Memory, AsyncMemory]


@pytest.fixture(scope="module")
def wires(acme: ModuleType) -> list[Any]:
    return [
        kafka.encode(example_event(acme, READING, seed=i, id=f"r-{i}"), "binary")
        for i in range(6)
    ]


def number(event: Any) -> int:
    return int(event.attributes["id"].split("-")[1])


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("concurrency", [1, 3])
@pytest.mark.parametrize("shape", ["dispatcher", "dispatch", "dispatch_async"])
def test_async_handler_is_awaited_before_the_acknowledgement(
    acme: ModuleType, wires: list[Any], kind: Any, concurrency: int, shape: str
) -> None:
    log = Log()
    d = acme.consumer.Dispatcher()

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0.01)
        log.add("handled", number(event))

    on_message = {
        "dispatcher": d,
        "dispatch": d.dispatch,
        "dispatch_async": d.dispatch_async,
    }
    receiver = kind(wires, log)
    assert run(receiver, on_message[shape], concurrency=concurrency) == len(wires)
    assert sorted(log.of("handled")) == list(range(len(wires)))
    assert log.of("ack") == list(range(len(wires)))  # arrival order
    for n in range(len(wires)):  # each acknowledged after its handler completed
        assert log.items.index(("handled", n)) < log.items.index(("ack", n))


@pytest.mark.parametrize("kind", RECEIVERS)
def test_a_plain_async_callable_is_awaited(wires: list[Any], kind: Any) -> None:
    log = Log()

    async def on_message(wire: Any) -> None:
        await asyncio.sleep(0.001)
        log.add("handled", wires.index(wire))

    assert run(kind(wires, log), on_message) == len(wires)
    assert log.items == [
        (what, n) for n in range(len(wires)) for what in ("handled", "ack")
    ]


def flaky(acme: ModuleType, log: Log, fails: int) -> Any:
    """A redelivering dispatcher whose handler raises for message 1, ``fails`` times."""
    dead: list[tuple[str, str]] = []
    d = acme.consumer.Dispatcher(
        dead_letter=lambda wire, reason, detail: dead.append((reason, detail))
    )
    d.handler_errors = "raise"
    seen: list[int] = []

    @d.on(READING)
    def handle(event: Any, params: dict[str, str]) -> None:
        n = number(event)
        seen.append(n)
        if n == 1 and seen.count(1) <= fails:
            raise RuntimeError(f"attempt {seen.count(1)}")
        log.add("handled", n)

    d.dead, d.seen = dead, seen
    return d


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("concurrency", [1, 3])
def test_handler_error_is_retried_then_succeeds(
    acme: ModuleType, wires: list[Any], kind: Any, concurrency: int
) -> None:
    log = Log()
    d = flaky(acme, log, fails=2)
    assert run(kind(wires, log), d, retry=FAST, concurrency=concurrency) == len(wires)
    assert d.seen.count(1) == 3 and not d.dead
    assert log.of("ack") == list(range(len(wires))) and not log.of("nack")


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("concurrency", [1, 3])
def test_attempts_used_up_go_to_the_dead_letter_then_the_ack(
    acme: ModuleType, wires: list[Any], kind: Any, concurrency: int
) -> None:
    log = Log()
    d = flaky(acme, log, fails=99)
    assert run(kind(wires, log), d, retry=FAST, concurrency=concurrency) == len(wires)
    assert d.seen.count(1) == 3
    assert [reason for reason, _ in d.dead] == ["handler-error"]
    assert "RuntimeError('attempt 3')" in d.dead[0][1]
    assert "(after 3 attempts)" in d.dead[0][1]
    assert log.of("ack") == list(range(len(wires))) and not log.of("nack")


def test_the_waits_follow_the_policy(acme: ModuleType, wires: list[Any]) -> None:
    log = Log()
    d = flaky(acme, log, fails=99)
    times: list[float] = []
    handler = d._by_id[READING].handler

    def timed(event: Any, params: dict[str, str]) -> None:
        if number(event) == 1:
            times.append(time.monotonic())
        handler(event, params)

    d.on(READING)(timed)
    policy = Retry(attempts=4, delay=0.05, factor=2.0, max_delay=0.1)
    run(Memory(wires[:2], log), d, retry=policy)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(times) == 4
    assert gaps[0] >= 0.05 and gaps[1] >= 0.1 and gaps[2] >= 0.1  # capped at max_delay


def test_unlimited_attempts_retry_until_success(
    acme: ModuleType, wires: list[Any]
) -> None:
    log = Log()
    d = flaky(acme, log, fails=7)
    run(Memory(wires, log), d, retry=Retry(attempts=None, delay=0.0))
    assert d.seen.count(1) == 8 and not d.dead


def raising_dead_letter(acme: ModuleType, log: Log, fails: int) -> Any:
    """A dispatcher whose dead-letter callback raises ``fails`` times; message 2 always goes
    to the dead letter (no handler takes it: its id is refused)."""
    calls: list[str] = []

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        calls.append(reason)
        if len(calls) <= fails:
            raise ConnectionError("dead-letter queue unreachable")
        log.add("dead", 2)

    d = acme.consumer.Dispatcher(dead_letter=dead_letter)

    @d.on(READING)
    def handle(event: Any, params: dict[str, str]) -> None:
        if number(event) == 2:
            raise ValueError("poison")
        log.add("handled", number(event))

    d.calls = calls
    return d


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("concurrency", [1, 3])
@pytest.mark.parametrize("gives_back", [True, False])
def test_a_raising_dead_letter_callback_leaves_the_message_unacknowledged(
    acme: ModuleType,
    wires: list[Any],
    kind: Any,
    concurrency: int,
    gives_back: bool,
) -> None:
    log = Log()
    d = raising_dead_letter(acme, log, fails=2)
    receiver = kind(wires, log, gives_back)
    assert run(receiver, d, retry=FAST, concurrency=concurrency) == len(wires)
    assert d.calls == ["handler-error"] * 3  # twice refused, then delivered
    assert sorted(set(log.of("ack"))) == list(range(len(wires)))
    # message 2 was acknowledged once only, after its dead letter was delivered
    assert log.of("ack").count(2) == 1
    assert log.items.index(("dead", 2)) < log.items.index(("ack", 2))
    if gives_back:
        assert 2 in log.of("nack")  # given back to the server, which delivered it again
    else:
        assert not log.of(
            "nack"
        )  # kept unacknowledged and handled again in the process


def test_dispatch_never_raises_and_reports_an_undelivered_dead_letter(
    acme: ModuleType, wires: list[Any]
) -> None:
    d = raising_dead_letter(acme, Log(), fails=1)
    result = d.dispatch(wires[2])
    assert result == DispatchResult(False, READING, "handler-error", settled=False)
    assert not result.settled
    assert d.dispatch(wires[2]).settled


@pytest.mark.parametrize("kind", RECEIVERS)
def test_stopping_during_a_retry_wait_gives_the_message_back(
    acme: ModuleType, wires: list[Any], kind: Any
) -> None:
    log = Log()
    d = flaky(acme, log, fails=99)
    stop_sync = threading.Event()
    timer = threading.Timer(0.2, stop_sync.set)
    timer.start()
    slow = Retry(attempts=5, delay=10.0)
    started = time.monotonic()
    if kind is AsyncMemory:

        async def main() -> int:
            stop = asyncio.Event()
            asyncio.get_running_loop().call_later(0.2, stop.set)
            return await AsyncMemory(wires[:3], log).run(
                d, stop=stop, retry=slow, handle_signals=False
            )

        handled = asyncio.run(main())
    else:
        handled = Memory(wires[:3], log).run(
            d, stop=stop_sync, retry=slow, handle_signals=False
        )
    timer.cancel()
    assert time.monotonic() - started < 5  # the 10 s wait was cut short
    assert handled == 1 and log.of("ack") == [0] and log.of("nack") == [1]
    assert not d.dead


@pytest.mark.parametrize("kind", RECEIVERS)
def test_acknowledgements_keep_arrival_order_at_any_concurrency(
    acme: ModuleType, wires: list[Any], kind: Any
) -> None:
    log = Log()
    d = acme.consumer.Dispatcher()

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        n = number(event)
        await asyncio.sleep(0.05 if n % 2 == 0 else 0.001)  # the odd ones finish first
        log.add("handled", n)

    assert run(kind(wires, log), d, concurrency=4) == len(wires)
    assert log.of("handled")[:2] == [1, 3]
    assert log.of("ack") == list(range(len(wires)))


class Gauge:
    """How many calls run at once, at most."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_concurrency_runs_that_many_handlers_at_once(
    acme: ModuleType, kind: Any, flavour: str
) -> None:
    wires = [
        kafka.encode(example_event(acme, READING, seed=i, id=f"r-{i}"), "binary")
        for i in range(24)
    ]
    log, gauge = Log(), Gauge()
    d = acme.consumer.Dispatcher()
    if flavour == "sync":

        @d.on(READING)
        def handle(event: Any, params: dict[str, str]) -> None:
            with gauge:
                time.sleep(0.03)

    else:

        @d.on(READING)
        async def handle_async(event: Any, params: dict[str, str]) -> None:
            with gauge:
                await asyncio.sleep(0.03)

    assert run(kind(wires, log), d, concurrency=6) == 24
    assert gauge.most == 6
    assert log.of("ack") == list(range(24))
    gauge_one = Gauge()
    d1 = acme.consumer.Dispatcher()
    d1.on(READING)(lambda event, params: gauge_one.__enter__() or gauge_one.__exit__())
    assert run(kind(wires, Log()), d1) == 24 and gauge_one.most == 1


@pytest.mark.parametrize("kind", RECEIVERS)
@pytest.mark.parametrize("concurrency", [1, 3])
def test_another_exception_gives_back_what_is_in_hand_and_propagates(
    wires: list[Any], kind: Any, concurrency: int
) -> None:
    log = Log()

    def on_message(wire: Any) -> None:
        if wires.index(wire) == 2:
            raise KeyError("bug")
        log.add("handled", wires.index(wire))

    with pytest.raises(KeyError):
        run(kind(wires, log), on_message, concurrency=concurrency)
    assert 2 in log.of("nack") and 2 not in log.of("ack")
    assert set(log.of("ack")) | set(log.of("nack")) >= {0, 1, 2}


def test_a_handler_error_from_other_code_is_retried_then_given_back(
    wires: list[Any],
) -> None:
    log, calls = Log(), []

    def on_message(wire: Any) -> None:
        calls.append(wire)
        if len(calls) <= 2:
            raise HandlerError("mine")

    assert run(Memory(wires[:1], log), on_message, retry=Retry(2, delay=0.0)) == 1
    assert log.of("nack") == [0] and log.of("ack") == [0]  # back once, then handled


def test_max_messages_and_concurrency_are_checked(wires: list[Any]) -> None:
    log = Log()
    assert run(Memory(wires, log), lambda w: None, max_messages=2, concurrency=4) == 2
    assert log.of("ack") == [0, 1]
    with pytest.raises(ValueError, match="concurrency"):
        run(Memory(wires, log), lambda w: None, concurrency=0)
    with pytest.raises(ValueError, match="attempts"):
        Retry(attempts=0)


class SlowSecond(Memory):
    """Message 1 is received only 0.3 s after message 0: a poll in flight while message 0
    is given back (its dead letter refused), returning after the server took 0 back."""

    def __init__(self, messages: list[Any], log: Log) -> None:
        super().__init__(messages, log)
        self.polls = 0

    def _poll(self, timeout: float) -> Any:
        if self.queue and self.queue[0][0] == 1 and self.polls < 2:
            self.polls += 1
            if self.polls == 1:
                return None  # not in the batch of message 0
            time.sleep(0.3)  # the next poll, in flight while message 0 goes back
        return super()._poll(timeout)


def test_a_message_received_while_an_earlier_one_went_back_goes_back_too(
    acme: ModuleType, wires: list[Any]
) -> None:
    log = Log()
    refused: list[str] = []

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        if not refused:
            refused.append(reason)
            raise ConnectionError("refused once")

    d = acme.consumer.Dispatcher(dead_letter=dead_letter)

    @d.on(READING)
    def handle(event: Any, params: dict[str, str]) -> None:
        if number(event) == 0:
            raise ValueError("to the dead letter")
        log.add("handled", number(event))

    assert run(SlowSecond(wires[:2], log), d, concurrency=3, retry=FAST) == 2
    assert log.of("ack") == [0, 1]  # none acknowledged past the message given back
    assert log.of("nack")[0] == 0
