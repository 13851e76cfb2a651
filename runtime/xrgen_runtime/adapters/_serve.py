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
in one thread of their own, so receiving never holds up the handlers (``_concurrent``).
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
from ._concurrent import AsyncHooks, ThreadHooks, concurrent
from ._handling import Handling, Stop, offload_to

__all__ = ["Receiving", "serve", "serve_async", "signals_calling"]

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


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
        return await concurrent(
            ThreadHooks(receiver, own), handling, stop, *limits, concurrency
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
                return await concurrent(
                    AsyncHooks(receiver), handling, stopping, *limits, concurrency
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
    event = stop.event  # ``Stop.__bool__`` inlined: no method call per message
    while max_messages is None or handled < max_messages:
        if stop.signalled or (event is not None and event.is_set()):
            break
        if again:
            raw = again.popleft()
        else:
            raw = poll(poll_interval)
            if raw is None:
                if idle_timeout is not None and time.monotonic() - last >= idle_timeout:
                    break
                continue
            if idle_timeout is not None:
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
            ok = (await handling.respond_async(receiver._convert(raw)))[0]
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
