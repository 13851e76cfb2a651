"""The receive loop shared by the adapters: handle, then acknowledge; bounded by stop,
message count and idle time."""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

R = TypeVar("R")
M = TypeVar("M")


class PollingReceiver(Generic[R, M]):
    """Base of the blocking receivers: subclasses poll, convert and (n)ack raw messages."""

    __slots__ = ()

    def _poll(self, timeout: float) -> R | None:
        raise NotImplementedError

    def _convert(self, raw: R) -> M:
        raise NotImplementedError

    def _ack(self, raw: R) -> None:
        raise NotImplementedError

    def _nack(self, raw: R) -> None:
        """Give an unhandled message back to the server (default: leave it unacknowledged)."""

    def close(self) -> None:
        raise NotImplementedError

    def run(
        self,
        on_message: Callable[[M], object],
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
    ) -> int:
        """Call ``on_message`` per message and acknowledge it after it returned.

        Stops when ``stop`` is set, after ``max_messages`` messages, or when no message arrived
        for ``idle_timeout`` seconds. If ``on_message`` raises, the message is not acknowledged
        (``_nack``) and the exception propagates. Returns the number of messages handled.
        """
        handled = 0
        last = time.monotonic()
        while max_messages is None or handled < max_messages:
            if stop is not None and stop.is_set():
                break
            raw = self._poll(poll_interval)
            if raw is None:
                if idle_timeout is not None and time.monotonic() - last >= idle_timeout:
                    break
                continue
            try:
                on_message(self._convert(raw))
            except BaseException:
                self._nack(raw)
                raise
            self._ack(raw)
            handled += 1
            last = time.monotonic()
        return handled

    def __enter__(self: Any) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def call_handler(on_message: Callable[[M], object], message: M) -> None:
    """Call a sync or async handler (``dispatch`` or ``dispatch_async``)."""
    result = on_message(message)
    if inspect.isawaitable(result):
        await result


class AsyncPollingReceiver(Generic[R, M]):
    """Base of the asyncio receivers (same contract as ``PollingReceiver.run``)."""

    __slots__ = ()

    async def _poll(self, timeout: float) -> R | None:
        raise NotImplementedError

    def _convert(self, raw: R) -> M:
        raise NotImplementedError

    async def _ack(self, raw: R) -> None:
        raise NotImplementedError

    async def _nack(self, raw: R) -> None:
        """Give an unhandled message back to the server (default: leave it unacknowledged)."""

    async def close(self) -> None:
        raise NotImplementedError

    async def run(
        self,
        on_message: Callable[[M], object | Awaitable[object]],
        *,
        stop: asyncio.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
    ) -> int:
        """Async twin of ``PollingReceiver.run``; ``on_message`` may be sync or async."""
        handled = 0
        loop = asyncio.get_running_loop()
        last = loop.time()
        while max_messages is None or handled < max_messages:
            if stop is not None and stop.is_set():
                break
            raw = await self._poll(poll_interval)
            if raw is None:
                if idle_timeout is not None and loop.time() - last >= idle_timeout:
                    break
                continue
            try:
                await call_handler(on_message, self._convert(raw))
            except BaseException:
                await self._nack(raw)
                raise
            await self._ack(raw)
            handled += 1
            last = loop.time()
        return handled

    async def __aenter__(self: Any) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
