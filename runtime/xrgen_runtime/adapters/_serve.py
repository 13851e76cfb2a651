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
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from .._retry import Retry
from ._handling import Handling, Stop, offload_to

__all__ = ["Receiving", "serve", "serve_async"]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: the poll timeout while messages are in hand (a blocking receiver's acknowledgements wait
#: for its poll: seconds)
_BUSY_POLL = 0.02


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
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in _SIGNALS}

    def on_signal(signum: int, frame: object) -> None:
        if stop.signalled:
            raise KeyboardInterrupt
        stop.signalled = True

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

    async def poll(self, timeout: float) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._own, self._r._poll, timeout)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        """Acknowledge (``True``) or give back (``False``) each message, in order."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._own, _settle_each, self._r, verdicts)


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

    async def poll(self, timeout: float) -> Any:
        return await self._r._poll(timeout)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        for ok, raw in verdicts:
            if ok:
                await self._r._ack(raw)
            else:
                await self._r._nack(raw)


async def _concurrent(
    hooks: _ThreadHooks | _AsyncHooks,
    handling: Handling,
    stop: Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    concurrency: int,
) -> int:
    """Up to ``concurrency`` messages in hand; acknowledgements in arrival order."""
    loop = asyncio.get_running_loop()
    window: deque[tuple[Any, asyncio.Future[bool]]] = deque()
    again: deque[Any] = deque()
    polling: asyncio.Future[Any] | None = None
    handled = started = 0
    rewind = 0  # messages still in the window that go back with an earlier one
    last = loop.time()

    def start(raw: Any) -> None:
        task = loop.create_task(handling.handle_async(hooks.convert(raw)))
        window.append((raw, task))

    try:
        while True:
            verdicts: list[tuple[bool, Any]] = []
            while window and window[0][1].done():
                raw, task = window[0]
                if task.exception() is not None:
                    break  # raised below, after what settled before it
                window.popleft()
                ok = task.result()
                if rewind:
                    rewind -= 1
                    started -= 1  # it comes again
                    verdicts.append((False, raw))
                elif ok:
                    verdicts.append((True, raw))
                    handled += 1
                elif hooks.gives_back:
                    started -= 1
                    verdicts.append((False, raw))
                    rewind = len(window)
                else:
                    again.append(raw)
            if verdicts:
                await hooks.settle(verdicts)
            if window and window[0][1].done() and window[0][1].exception() is not None:
                raw, task = window.popleft()
                await hooks.settle([(False, raw)])
                task.result()  # the exception of ``on_message``: serving stops
            taking = not stop and (max_messages is None or started < max_messages)
            while again and len(window) < concurrency and not stop:
                start(again.popleft())
            if taking and polling is None and len(window) < concurrency:
                timeout = _BUSY_POLL if window else poll_interval
                polling = loop.create_task(hooks.poll(min(timeout, poll_interval)))
            if polling is None and not window:
                break
            waiting: set[asyncio.Future[Any]] = {window[0][1]} if window else set()
            if polling is not None:
                waiting.add(polling)
            await asyncio.wait(
                waiting, timeout=poll_interval, return_when=asyncio.FIRST_COMPLETED
            )
            if polling is not None and polling.done():
                raw = polling.result()
                polling = None
                if raw is not None:
                    started += 1
                    last = loop.time()
                    start(raw)
                elif (
                    not window
                    and idle_timeout is not None
                    and loop.time() - last >= idle_timeout
                ):
                    break
    finally:
        await _give_back_all(hooks, window, polling)
    return handled


async def _give_back_all(
    hooks: _ThreadHooks | _AsyncHooks,
    window: deque[tuple[Any, asyncio.Future[bool]]],
    polling: asyncio.Future[Any] | None,
) -> None:
    """Stopping on an error: cancel the handlers and give back what is in hand."""
    in_hand = [raw for raw, _ in window]
    for _, task in window:
        task.cancel()
    if window:
        await asyncio.gather(*(t for _, t in window), return_exceptions=True)
    if polling is not None:
        with contextlib.suppress(BaseException):
            raw = await polling
            if raw is not None:
                in_hand.append(raw)
    if in_hand:
        await hooks.settle([(False, raw) for raw in in_hand])
