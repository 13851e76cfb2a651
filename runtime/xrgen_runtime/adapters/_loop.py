"""The receiver bases shared by the adapters: subclasses poll, convert and (n)ack raw
messages; ``run`` is the serving loop of ``_serve`` (handle, then acknowledge; retries; bounded
by stop, message count, idle time and signals)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from .._retry import Retry
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

    def _gives_back(self) -> bool:
        """Whether ``_nack`` gives a message back (else the loop hands it to the handler
        again itself): the subclass defines ``_nack``."""
        return type(self)._nack is not PollingReceiver._nack

    def close(self) -> None:
        raise NotImplementedError

    def _settle(self) -> None:
        """Make the acknowledgements so far durable (default: each already is)."""

    def run(
        self,
        on_message: Callable[[M], object] | Any,
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
        retry: Retry | None = None,
    ) -> int:
        """Call ``on_message`` per message and acknowledge it after it completed.

        ``on_message``: a dispatcher (or its ``dispatch``/``dispatch_async``) or a callable
        taking the wire message; an async one is awaited. The message is acknowledged after
        the call returned, unless it returned a ``DispatchResult`` that is not ``settled`` (the
        dead-letter callback raised): then it goes back to the server. ``HandlerError`` (a
        dispatcher with ``redeliver=True``) calls it again per ``retry`` (default ``Retry()``:
        3 attempts), then delivers the dead letter. Any other exception gives the message back
        and propagates. Stops when ``stop`` is set, after ``max_messages`` messages, when no
        message arrived for ``idle_timeout`` seconds, or (``handle_signals``, main thread) on
        SIGTERM/SIGINT, after the messages in hand are handled and acknowledged.
        ``concurrency``: up to that many messages in hand at once (async handlers as tasks,
        synchronous ones in that many threads), acknowledged in arrival order. Returns the
        number of messages handled (``_serve``).
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
            retry=retry,
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

    def _gives_back(self) -> bool:
        """As ``PollingReceiver._gives_back``."""
        return type(self)._nack is not AsyncPollingReceiver._nack

    async def close(self) -> None:
        raise NotImplementedError

    async def _settle(self) -> None:
        """Make the acknowledgements so far durable (default: each already is)."""

    async def run(
        self,
        on_message: Callable[[M], object | Awaitable[object]] | Any,
        *,
        stop: asyncio.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
        retry: Retry | None = None,
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
            retry=retry,
        )

    async def __aenter__(self: Any) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
