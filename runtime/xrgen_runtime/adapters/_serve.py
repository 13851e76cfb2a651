"""The serving loop of the receivers: handle, then acknowledge in arrival order; redeliver
on ``HandlerError``; stop cleanly on SIGTERM/SIGINT; run async handlers concurrently.

``PollingReceiver.run`` and ``AsyncPollingReceiver.run`` (``_loop``) call :func:`serve` and
:func:`serve_async` with the receiver's ``_poll``/``_convert``/``_ack``/``_nack``/``_settle``.

Acknowledgement order: a message is acknowledged only after its handler returned, and only
after every message received before it was acknowledged (a Kafka offset commit never passes a
message still in hand; AMQP settles its oldest delivery first). A message given back to the
server (``HandlerError``, see ``DispatcherBase``) takes the messages received after it that
are still unacknowledged with it, so none is acknowledged past it: they are delivered again.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

from .._dispatch import HandlerError

__all__ = ["Receiving", "serve", "serve_async"]

_log = logging.getLogger("xrgen_runtime.adapters")
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Receiving(Protocol):
    """The receiver hooks the loop drives (sync flavour)."""

    def _poll(self, timeout: float) -> Any: ...

    def _convert(self, raw: Any) -> Any: ...

    def _ack(self, raw: Any) -> None: ...

    def _nack(self, raw: Any) -> None: ...

    def _settle(self) -> None: ...


class _Stop:
    """Why the loop ends: a caller's event, a signal, or neither yet."""

    __slots__ = ("event", "signalled")

    def __init__(self, event: Any) -> None:
        self.event = event
        self.signalled = False

    def __bool__(self) -> bool:
        return self.signalled or (self.event is not None and self.event.is_set())


@contextlib.contextmanager
def _signals(stop: _Stop, enabled: bool) -> Iterator[None]:
    """SIGTERM and SIGINT set ``stop`` (the main thread only); a second one interrupts."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in _SIGNALS}

    def on_signal(signum: int, frame: object) -> None:
        if stop.signalled:
            raise KeyboardInterrupt
        stop.signalled = True
        _log.info("signal %s: finishing the message in hand, then stopping", signum)

    for sig in _SIGNALS:
        signal.signal(sig, on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _redelivered(exc: HandlerError) -> None:
    _log.warning(
        "handler of %s raised %s: the message goes back to the server",
        exc.message_id,
        type(exc.__cause__).__name__ if exc.__cause__ is not None else "an error",
    )


def serve(
    receiver: Receiving,
    on_message: Callable[[Any], object],
    *,
    stop: threading.Event | None,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    handle_signals: bool,
    concurrency: int,
) -> int:
    """The loop of ``PollingReceiver.run`` (see the module doc); returns the count handled."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    stopping = _Stop(stop)
    with _signals(stopping, handle_signals):
        try:
            if concurrency > 1:
                return asyncio.run(
                    _concurrent(
                        _SyncHooks(receiver),
                        on_message,
                        stopping,
                        max_messages,
                        idle_timeout,
                        poll_interval,
                        concurrency,
                    )
                )
            return _sequential(
                receiver,
                on_message,
                stopping,
                max_messages,
                idle_timeout,
                poll_interval,
            )
        finally:
            receiver._settle()


def _sequential(
    receiver: Receiving,
    on_message: Callable[[Any], object],
    stop: _Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
) -> int:
    handled = 0
    last = time.monotonic()
    while max_messages is None or handled < max_messages:
        if stop:
            break
        raw = receiver._poll(poll_interval)
        if raw is None:
            if idle_timeout is not None and time.monotonic() - last >= idle_timeout:
                break
            continue
        last = time.monotonic()
        try:
            on_message(receiver._convert(raw))
        except HandlerError as exc:
            receiver._nack(raw)
            _redelivered(exc)
            continue
        except BaseException:
            receiver._nack(raw)
            raise
        receiver._ack(raw)
        handled += 1
    return handled


class _SyncHooks:
    """A blocking receiver's hooks as the async loop calls them."""

    __slots__ = ("_r",)

    def __init__(self, receiver: Receiving) -> None:
        self._r = receiver

    async def poll(self, timeout: float) -> Any:
        return self._r._poll(timeout)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def ack(self, raw: Any) -> None:
        self._r._ack(raw)

    async def nack(self, raw: Any) -> None:
        self._r._nack(raw)


class _AsyncHooks:
    """An asyncio receiver's hooks."""

    __slots__ = ("_r",)

    def __init__(self, receiver: Any) -> None:
        self._r = receiver

    async def poll(self, timeout: float) -> Any:
        return await self._r._poll(timeout)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def ack(self, raw: Any) -> None:
        await self._r._ack(raw)

    async def nack(self, raw: Any) -> None:
        await self._r._nack(raw)


async def _call(on_message: Callable[[Any], object], message: Any) -> None:
    result = on_message(message)
    if inspect.isawaitable(result):
        await result


async def serve_async(
    receiver: Any,
    on_message: Callable[[Any], object | Awaitable[object]],
    *,
    stop: asyncio.Event | None,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    handle_signals: bool,
    concurrency: int,
) -> int:
    """The loop of ``AsyncPollingReceiver.run``; returns the count handled."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    stopping = _Stop(stop)
    with _signals(stopping, handle_signals):
        try:
            return await _concurrent(
                _AsyncHooks(receiver),
                on_message,
                stopping,
                max_messages,
                idle_timeout,
                poll_interval,
                concurrency,
            )
        finally:
            await receiver._settle()


#: how long the loop waits for a handler while it could take more messages (seconds)
_TICK = 0.005


async def _concurrent(
    hooks: _SyncHooks | _AsyncHooks,
    on_message: Callable[[Any], object],
    stop: _Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    concurrency: int,
) -> int:
    """Up to ``concurrency`` handlers at once; acknowledgements in arrival order."""
    pending: deque[tuple[Any, asyncio.Task[None]]] = deque()
    handled = started = 0
    rewind = 0  # messages still pending that must go back with an earlier one
    loop = asyncio.get_running_loop()
    last = loop.time()
    try:
        while True:
            while pending and pending[0][1].done():
                raw, task = pending.popleft()
                exc = task.exception()
                if rewind:
                    rewind -= 1
                    started -= 1  # it comes again
                    await hooks.nack(raw)
                elif exc is None:
                    await hooks.ack(raw)
                    handled += 1
                elif isinstance(exc, HandlerError):
                    started -= 1
                    await hooks.nack(raw)
                    _redelivered(exc)
                    rewind = len(pending)
                else:
                    await hooks.nack(raw)
                    raise exc
            full = len(pending) >= concurrency
            done_taking = stop or (max_messages is not None and started >= max_messages)
            if done_taking:
                if not pending:
                    break
            elif not full:
                raw = await hooks.poll(0.0 if pending else poll_interval)
                if raw is not None:
                    message = hooks.convert(raw)
                    pending.append((raw, loop.create_task(_call(on_message, message))))
                    started += 1
                    last = loop.time()
                    continue
                if not pending:
                    if idle_timeout is not None and loop.time() - last >= idle_timeout:
                        break
                    continue
            await asyncio.wait(
                {pending[0][1]}, timeout=None if full or done_taking else _TICK
            )
    finally:
        if pending:  # stopping on an error: give back what is in hand
            for _, task in pending:
                task.cancel()
            await asyncio.gather(*(t for _, t in pending), return_exceptions=True)
            for raw, _ in pending:
                await hooks.nack(raw)
    return handled
