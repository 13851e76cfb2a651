"""The receiver bases shared by the adapters: subclasses poll, convert and (n)ack raw
messages; ``run`` is the serving loop of ``_serve`` (handle, then acknowledge; bounded by stop,
message count, idle time and signals)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from ._serve import serve, serve_async

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

    def _settle(self) -> None:
        """Make the acknowledgements so far durable (default: each already is)."""

    def run(
        self,
        on_message: Callable[[M], object],
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
    ) -> int:
        """Call ``on_message`` per message and acknowledge it after it returned.

        Stops when ``stop`` is set, after ``max_messages`` messages, when no message arrived
        for ``idle_timeout`` seconds, or (``handle_signals``, main thread) on SIGTERM/SIGINT,
        after the message in hand is handled and acknowledged. If ``on_message`` raises
        ``HandlerError`` the message is given back (``_nack``) and serving goes on; any other
        exception gives it back and propagates. ``concurrency`` > 1 runs that many (async)
        handlers at once, acknowledging in arrival order. Returns the number of messages
        handled (``_serve``).
        """
        return serve(
            self,
            on_message,
            stop=stop,
            max_messages=max_messages,
            idle_timeout=idle_timeout,
            poll_interval=poll_interval,
            handle_signals=handle_signals,
            concurrency=concurrency,
        )

    def __enter__(self: Any) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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

    async def _settle(self) -> None:
        """Make the acknowledgements so far durable (default: each already is)."""

    async def run(
        self,
        on_message: Callable[[M], object | Awaitable[object]],
        *,
        stop: asyncio.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
    ) -> int:
        """Async twin of ``PollingReceiver.run``; ``on_message`` may be sync or async."""
        return await serve_async(
            self,
            on_message,
            stop=stop,
            max_messages=max_messages,
            idle_timeout=idle_timeout,
            poll_interval=poll_interval,
            handle_signals=handle_signals,
            concurrency=concurrency,
        )

    async def __aenter__(self: Any) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
