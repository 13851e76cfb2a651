"""The serving loop of the receivers: receive, handle, then acknowledge; retry handler errors;
stop cleanly on SIGTERM/SIGINT; run up to ``concurrency`` messages at once.

``PollingReceiver.run`` and ``AsyncPollingReceiver.run`` (``_loop``) call :func:`serve` and
:func:`serve_async` with the receiver's ``_poll``/``_convert``/``_ack``/``_nack``/``_settle``.
What happens to one message (the handler awaited, retries, the dead letter, the outcome) is
``_handling``'s.

Acknowledgement: a message is acknowledged only after its handler, or its dead letter,
completed, and only after every message received before it was acknowledged (arrival order on
every binding: a Kafka offset commit never passes a message still in hand, AMQP settles its
oldest delivery first, MQTT sends PUBACKs in the order of the PUBLISHes). At most
``concurrency`` messages are unacknowledged at once (the window): a crash redelivers at most
that many handled messages.

Giving back: a message whose dead letter was not delivered (its callback raised), or that is
in a retry wait when serving stops, goes back to the server: Kafka seeks back, AMQP releases,
JetStream naks, Pulsar negatively acknowledges; the messages received after it that are still
unacknowledged go back with it (none is acknowledged past it). A receiver without a negative
acknowledgement (MQTT, core NATS, HTTP pull, RocketMQ) keeps the message unacknowledged and
hands it to the handler again itself.

Concurrency: at 1 the loop handles each message in the calling thread (a blocking receiver) or
in the event loop (an asyncio receiver). Above 1 it runs in an event loop: async handlers run
as that many tasks, synchronous ones in that many threads; a blocking receiver's own calls run
in one thread of their own, so receiving never holds up the handlers.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from .._retry import Retry
from ._handling import Handling, Stop, offload_to

__all__ = ["Receiving", "serve", "serve_async", "signals_calling"]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: the poll timeout while messages are in hand (a blocking receiver's acknowledgements wait
#: for its poll: seconds)
_BUSY_POLL = 0.02
#: the poll timeout for more messages after one arrived (a positive one: some clients refuse
#: 0, nats-py's JetStream ``fetch`` among them)
_DRAIN = 0.001


class Receiving(Protocol):
    """The receiver hooks the loop drives (sync flavour)."""

    def _poll(self, timeout: float) -> Any: ...

    def _convert(self, raw: Any) -> Any: ...

    def _ack(self, raw: Any) -> None: ...

    def _nack(self, raw: Any) -> None: ...

    def _settle(self) -> None: ...

    def _gives_back(self) -> bool: ...


@contextlib.contextmanager
def _signals(stop: Stop, enabled: bool) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (the main thread only); a second one interrupts."""

    def on_first() -> None:
        stop.signalled = True

    with signals_calling(on_first, enabled):
        yield


@contextlib.contextmanager
def signals_calling(
    on_first: Callable[[], None], enabled: bool = True
) -> Iterator[None]:
    """The first SIGTERM or SIGINT calls ``on_first``, a second one raises
    ``KeyboardInterrupt``; the previous handlers come back on exit (the main thread only:
    elsewhere nothing changes)."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    seen = False

    def on_signal(signum: int, frame: object) -> None:
        nonlocal seen
        if seen:
            raise KeyboardInterrupt
        seen = True
        on_first()

    for sig in _SIGNALS:
        signal.signal(sig, on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check(concurrency: int) -> None:
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")


def serve(
    receiver: Receiving,
    on_message: Any,
    *,
    stop: threading.Event | None,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    handle_signals: bool,
    concurrency: int,
    retry: Retry | None = None,
) -> int:
    """The loop of ``PollingReceiver.run`` (see the module doc); returns the count handled."""
    _check(concurrency)
    stopping = Stop(stop)
    limits = (max_messages, idle_timeout, poll_interval)
    with _signals(stopping, handle_signals):
        try:
            if concurrency == 1:
                handling = Handling(on_message, retry, stopping)
                try:
                    return _sequential(receiver, handling, stopping, *limits)
                finally:
                    handling.close()
            return asyncio.run(
                _threaded(receiver, on_message, retry, stopping, limits, concurrency)
            )
        finally:
            receiver._settle()


async def _threaded(
    receiver: Receiving,
    on_message: Any,
    retry: Retry | None,
    stop: Stop,
    limits: tuple[int | None, float | None, float],
    concurrency: int,
) -> int:
    """A blocking receiver at a concurrency above one: its calls in a thread of their own."""
    with (
        ThreadPoolExecutor(1, thread_name_prefix="xrgen-receive") as own,
        ThreadPoolExecutor(concurrency, thread_name_prefix="xrgen-handle") as pool,
    ):
        handling = Handling(on_message, retry, stop, offload_to(pool))
        return await _concurrent(
            _ThreadHooks(receiver, own), handling, stop, *limits, concurrency
        )


async def serve_async(
    receiver: Any,
    on_message: Any,
    *,
    stop: asyncio.Event | None,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    handle_signals: bool,
    concurrency: int,
    retry: Retry | None = None,
) -> int:
    """The loop of ``AsyncPollingReceiver.run``; returns the count handled."""
    _check(concurrency)
    stopping = Stop(stop)
    limits = (max_messages, idle_timeout, poll_interval)
    with _signals(stopping, handle_signals):
        try:
            if concurrency == 1:
                handling = Handling(on_message, retry, stopping)
                return await _sequential_async(receiver, handling, stopping, *limits)
            with ThreadPoolExecutor(
                concurrency, thread_name_prefix="xrgen-handle"
            ) as pool:
                handling = Handling(on_message, retry, stopping, offload_to(pool))
                return await _concurrent(
                    _AsyncHooks(receiver), handling, stopping, *limits, concurrency
                )
        finally:
            await receiver._settle()


def _sequential(
    receiver: Receiving,
    handling: Handling,
    stop: Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
) -> int:
    """One message at a time, in this thread."""
    poll, convert, ack, handle = (
        receiver._poll,
        receiver._convert,
        receiver._ack,
        handling.handle,
    )
    gives_back = receiver._gives_back()
    again: deque[Any] = deque()  # unacknowledged messages to handle again
    handled = 0
    last = time.monotonic()
    while max_messages is None or handled < max_messages:
        if stop:
            break
        if again:
            raw = again.popleft()
        else:
            raw = poll(poll_interval)
            if raw is None:
                if idle_timeout is not None and time.monotonic() - last >= idle_timeout:
                    break
                continue
            last = time.monotonic()
        try:
            ok = handle(convert(raw))
        except BaseException:
            receiver._nack(raw)
            raise
        if ok:
            ack(raw)
            handled += 1
        elif gives_back:
            receiver._nack(raw)
        else:
            again.append(raw)
    return handled


async def _sequential_async(
    receiver: Any,
    handling: Handling,
    stop: Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
) -> int:
    """One message at a time, in the event loop."""
    gives_back = receiver._gives_back()
    again: deque[Any] = deque()
    handled = 0
    loop = asyncio.get_running_loop()
    last = loop.time()
    while max_messages is None or handled < max_messages:
        if stop:
            break
        if again:
            raw = again.popleft()
        else:
            raw = await receiver._poll(poll_interval)
            if raw is None:
                if idle_timeout is not None and loop.time() - last >= idle_timeout:
                    break
                continue
            last = loop.time()
        try:
            ok = await handling.handle_async(receiver._convert(raw))
        except BaseException:
            await receiver._nack(raw)
            raise
        if ok:
            await receiver._ack(raw)
            handled += 1
        elif gives_back:
            await receiver._nack(raw)
        else:
            again.append(raw)
    return handled


class _ThreadHooks:
    """A blocking receiver's calls, each in the receiver's own thread."""

    __slots__ = ("_r", "_own", "gives_back")

    def __init__(self, receiver: Receiving, own: ThreadPoolExecutor) -> None:
        self._r = receiver
        self._own = own
        self.gives_back = receiver._gives_back()

    async def poll(self, timeout: float, most: int) -> list[Any]:
        """Up to ``most`` messages: waits up to ``timeout`` for the first only."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._own, _poll_many, self._r, timeout, most)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        """Acknowledge (``True``) or give back (``False``) each message, in order."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._own, _settle_each, self._r, verdicts)


def _poll_many(receiver: Receiving, timeout: float, most: int) -> list[Any]:
    raw = receiver._poll(timeout)
    if raw is None:
        return []
    got = [raw]
    while len(got) < most:
        raw = receiver._poll(_DRAIN)
        if raw is None:
            break
        got.append(raw)
    return got


def _settle_each(receiver: Receiving, verdicts: list[tuple[bool, Any]]) -> None:
    for ok, raw in verdicts:
        if ok:
            receiver._ack(raw)
        else:
            receiver._nack(raw)


class _AsyncHooks:
    """An asyncio receiver's calls."""

    __slots__ = ("_r", "gives_back")

    def __init__(self, receiver: Any) -> None:
        self._r = receiver
        self.gives_back = receiver._gives_back()

    async def poll(self, timeout: float, most: int) -> list[Any]:
        r = self._r
        many = getattr(r, "_poll_many", None)
        if many is not None:  # a blocking receiver's calls in its own thread: one call
            got: list[Any] = await many(timeout, most)
            return got
        raw = await r._poll(timeout)
        if raw is None:
            return []
        got = [raw]
        while len(got) < most:
            raw = await r._poll(_DRAIN)
            if raw is None:
                break
            got.append(raw)
        return got

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        r = self._r
        for ok, raw in verdicts:
            if ok:
                await r._ack(raw)
            else:
                await r._nack(raw)


Hooks = _ThreadHooks | _AsyncHooks


class _Window:
    """The messages in hand, in arrival order, with the task handling each; a pump task
    receives into it while the loop settles its oldest entries (``_concurrent``)."""

    __slots__ = (
        "hooks",
        "handling",
        "stop",
        "limit",
        "entries",
        "again",
        "started",
        "handled",
        "rewind",
        "generation",
        "room",
        "arrived",
        "pumping",
    )

    def __init__(
        self, hooks: Hooks, handling: Handling, stop: Stop, limit: int
    ) -> None:
        self.hooks = hooks
        self.handling = handling
        self.stop = stop
        self.limit = limit
        self.entries: deque[tuple[Any, asyncio.Future[bool]]] = deque()
        self.again: deque[Any] = deque()  # unacknowledged, to hand to the handler again
        self.started = self.handled = 0
        #: entries still in the window that go back with an earlier message
        self.rewind = 0
        #: counts the messages given back: a poll that started before one was given back
        #: may hold messages received before the server took it back (they go back too)
        self.generation = 0
        self.room = asyncio.Event()  # set when an entry left the window
        self.arrived = asyncio.Event()  # set when an entry came in, or the pump ended
        self.pumping = True

    def start(self, raw: Any) -> None:
        coro = self.handling.handle_async(self.hooks.convert(raw))
        self.entries.append((raw, asyncio.get_running_loop().create_task(coro)))
        self.arrived.set()

    async def pump(
        self, max_messages: int | None, idle_timeout: float | None, poll_interval: float
    ) -> None:
        """Receive while there is room, until stopping, ``max_messages`` or idle."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while not self.stop:
                free = self.limit - len(self.entries)
                if free <= 0:
                    self.room.clear()
                    await self.room.wait()
                    continue
                if self.again:
                    self.start(self.again.popleft())
                    continue
                if max_messages is not None:
                    free = min(free, max_messages - self.started)
                    if free <= 0:
                        break
                timeout = _BUSY_POLL if self.entries else poll_interval
                generation = self.generation
                got = await self.hooks.poll(min(timeout, poll_interval), free)
                if got and generation != self.generation:
                    self.stale(got)
                    continue
                if got:
                    self.started += len(got)
                    last = loop.time()
                    for raw in got:
                        self.start(raw)
                    continue
                if (
                    idle_timeout is not None
                    and not self.entries
                    and loop.time() - last >= idle_timeout
                ):
                    break
                await asyncio.sleep(
                    0
                )  # a receiver that returned at once: let handlers run
        finally:
            self.pumping = False
            self.arrived.set()

    def stale(self, got: list[Any]) -> None:
        """Messages polled while an earlier one was given back: they go back after it, in
        order, unhandled."""
        loop = asyncio.get_running_loop()
        for raw in got:
            done: asyncio.Future[bool] = loop.create_future()
            done.set_result(False)
            self.entries.append((raw, done))
        self.started += len(got)
        self.rewind += len(got)
        self.arrived.set()

    def verdicts(self) -> list[tuple[bool, Any]]:
        """The finished entries at the front that settle now, oldest first (up to the first
        one that raised, which stays)."""
        out: list[tuple[bool, Any]] = []
        entries = self.entries
        while entries and entries[0][1].done():
            raw, task = entries[0]
            if task.exception() is not None:
                break
            entries.popleft()
            if self.rewind:  # goes back with an earlier message
                self.rewind -= 1
                self.started -= 1
                out.append((False, raw))
            elif task.result():
                out.append((True, raw))
                self.handled += 1
            elif self.hooks.gives_back:
                self.started -= 1
                out.append((False, raw))
                self.rewind = len(entries)
                self.generation += 1
            else:
                self.again.append(raw)
        return out


async def _concurrent(
    hooks: Hooks,
    handling: Handling,
    stop: Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    concurrency: int,
) -> int:
    """Up to ``concurrency`` messages in hand; acknowledgements in arrival order."""
    window = _Window(hooks, handling, stop, concurrency)
    entries = window.entries
    pump = asyncio.get_running_loop().create_task(
        window.pump(max_messages, idle_timeout, poll_interval)
    )
    try:
        while True:
            if pump.done() and pump.exception() is not None:
                break  # a receiver error: raised below
            if not entries:
                if not window.pumping:
                    break
                window.arrived.clear()
                await window.arrived.wait()
                continue
            head = entries[0][1]
            if not head.done():
                await asyncio.wait((head,))
            verdicts = window.verdicts()
            if verdicts:
                await hooks.settle(verdicts)
                window.room.set()
            elif entries and entries[0][1].done():  # it raised: serving stops
                raw, task = entries.popleft()
                await hooks.settle([(False, raw)])
                task.result()
        pump.result()  # a receiver error
    finally:
        await _give_back(hooks, entries, pump)
    return window.handled


async def _give_back(
    hooks: Hooks,
    entries: deque[tuple[Any, asyncio.Future[bool]]],
    pump: asyncio.Task[None],
) -> None:
    """Stopping on an error: end the pump and the handlers, give back what is in hand."""
    pump.cancel()
    for _, task in entries:
        task.cancel()
    await asyncio.gather(pump, *(t for _, t in entries), return_exceptions=True)
    if entries:
        await hooks.settle([(False, raw) for raw, _ in entries])
        entries.clear()
