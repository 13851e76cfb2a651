"""The other shape of each adapter: a blocking one for an asyncio client (NATS) and an asyncio
one for a blocking client (Kafka, MQTT, AMQP, HTTP pull), so every binding has both.

- :class:`BlockingSender` runs an asyncio sender on a private event loop in a thread of its
  own: ``send`` returns a ``concurrent.futures.Future[Receipt]``.
- :class:`AsyncSenderOf` calls a blocking sender in one thread of its own: ``await send``
  returns the ``Receipt``. A sender whose futures only ``flush`` resolves (AMQP) is flushed
  once per batch of sends.
- :class:`BlockingReceiver` runs an asyncio receiver on a private event loop in the calling
  thread: ``run`` blocks (handlers run in that thread).
- :class:`AsyncReceiverOf` calls a blocking receiver in one thread of its own: ``await run``
  serves in the caller's event loop (handlers run there).

:func:`blocking` and :func:`asynchronous` turn what a binding's endpoint support builds into
the shape asked for.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Self

from .._retry import Retry
from ._concurrent import poll_many
from ._connecting import Connecting
from ._loop import AsyncPollingReceiver, PollingReceiver
from ._sender import Receipt

__all__ = [
    "AsyncReceiverOf",
    "AsyncSenderOf",
    "BlockingReceiver",
    "BlockingSender",
    "asynchronous",
    "blocking",
]


def _own_thread() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="xrgen-client")


class _LoopThread:
    """A private event loop running in a daemon thread."""

    __slots__ = ("loop", "_thread")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="xrgen-loop", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Awaitable[Any]) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(_awaited(coro), self.loop)

    def call(self, coro: Awaitable[Any], timeout: float | None = None) -> Any:
        return self.submit(coro).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self.loop.is_running():
            self.loop.close()


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


class BlockingSender:
    """The blocking shape of an asyncio sender (see the module doc)."""

    __slots__ = ("_thread", "_sender")

    def __init__(self, connect: Callable[[], Awaitable[Any]]) -> None:
        self._thread = _LoopThread()
        try:
            self._sender: Any = self._thread.call(connect())
        except BaseException:
            self._thread.close()
            raise

    def send(self, msg: Any) -> Future[Receipt]:
        """Send ``msg``; the future resolves with the ``Receipt``."""
        return self._thread.submit(self._sender.send(msg))

    def flush(self, timeout: float = 30.0) -> None:
        self._thread.call(self._sender.flush(timeout), timeout)

    def close(self, timeout: float = 30.0) -> None:
        """Flush, close the asyncio sender, stop its loop."""
        try:
            self._thread.call(self._sender.close(), timeout)
        finally:
            self._thread.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncSenderOf:
    """The asyncio shape of a blocking sender (see the module doc)."""

    __slots__ = ("_sender", "_own", "_flushing")

    def __init__(self, sender: Any, own: ThreadPoolExecutor | None = None) -> None:
        self._sender = sender
        self._own = own or _own_thread()
        self._flushing = False

    async def send(self, msg: Any) -> Receipt:
        """Send ``msg``; returns the ``Receipt`` once the server confirmed it."""
        loop = asyncio.get_running_loop()
        future: Future[Receipt] = await loop.run_in_executor(
            self._own, self._sender.send, msg
        )
        if not future.done() and not getattr(self._sender, "_confirms_itself", True):
            self._flush_soon(loop)
        return await asyncio.wrap_future(future)

    def _flush_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """One flush after the sends queued so far (their futures resolve in it)."""
        if self._flushing:
            return
        self._flushing = True

        def flush() -> None:
            self._flushing = False
            try:
                self._sender.flush()
            except Exception:  # noqa: S110  (each future carries its own failure)
                pass

        loop.call_soon(loop.run_in_executor, self._own, flush)

    async def flush(self, timeout: float = 30.0) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._own, self._sender.flush, timeout)

    async def close(self) -> None:
        """Flush and close the blocking sender, then its thread."""
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._own, self._sender.close)
        finally:
            self._own.shutdown(wait=False)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class BlockingReceiver:
    """The blocking shape of an asyncio receiver (see the module doc)."""

    __slots__ = ("_loop", "_receiver")

    def __init__(self, connect: Callable[[], Awaitable[Any]]) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._receiver: Any = self._loop.run_until_complete(_awaited(connect()))
        except BaseException:
            self._loop.close()
            raise

    def run(
        self,
        on_message: Any,
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = None,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
        retry: Retry | None = None,
    ) -> int:
        """``PollingReceiver.run``: serves in this thread until it returns."""
        return int(
            self._loop.run_until_complete(
                self._receiver.run(
                    on_message,
                    stop=stop,
                    max_messages=max_messages,
                    idle_timeout=idle_timeout,
                    poll_interval=poll_interval,
                    handle_signals=handle_signals,
                    concurrency=concurrency,
                    retry=retry,
                )
            )
        )

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self._receiver.close())
        finally:
            self._loop.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncReceiverOf(AsyncPollingReceiver[Any, Any]):
    """The asyncio shape of a blocking receiver (see the module doc)."""

    __slots__ = ("_receiver", "_own")

    def __init__(self, receiver: Any, own: ThreadPoolExecutor | None = None) -> None:
        self._receiver = receiver
        self._own = own or _own_thread()

    async def _in_own(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._own, fn, *args)

    async def _poll(self, timeout: float) -> Any:
        return await self._in_own(self._receiver._poll, timeout)

    async def _poll_many(self, timeout: float, most: int) -> list[Any]:
        """Up to ``most`` messages in one call of the receiver's thread (``_serve``)."""
        got: list[Any] = await self._in_own(poll_many, self._receiver, timeout, most)
        return got

    def _convert(self, raw: Any) -> Any:
        return self._receiver._convert(raw)

    async def _ack(self, raw: Any) -> None:
        await self._in_own(self._receiver._ack, raw)

    async def _nack(self, raw: Any) -> None:
        await self._in_own(self._receiver._nack, raw)

    def _gives_back(self) -> bool:
        return bool(self._receiver._gives_back())

    async def _settle(self) -> None:
        await self._in_own(self._receiver._settle)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._receiver, name)  # e.g. ``address``, ``commit``

    async def close(self) -> None:
        try:
            await self._in_own(self._receiver.close)
        finally:
            self._own.shutdown(wait=False)


def blocking(built: Any, kind: str) -> Any:
    """The blocking shape of what an endpoint support built (``kind``: ``sender`` or
    ``receiver``): a ``Connecting`` (an asyncio adapter) is connected now."""
    if not isinstance(built, Connecting):
        return built
    if kind == "sender":
        return BlockingSender(built.connect)
    return BlockingReceiver(built.connect)


def asynchronous(build: Callable[[], Any], kind: str) -> Connecting[Any]:
    """The asyncio shape of what ``build()`` (an endpoint support's ``sender`` or
    ``receiver``) builds, connected when awaited: a blocking client is built in a thread of
    its own and used from there."""

    async def connect() -> Any:
        own = _own_thread()
        try:
            built = await asyncio.get_running_loop().run_in_executor(own, build)
        except BaseException:
            own.shutdown(wait=False)
            raise
        if isinstance(built, Connecting):
            own.shutdown(wait=False)
            return await built.connect()
        if kind == "sender":
            if inspect.iscoroutinefunction(getattr(built, "send", None)):
                own.shutdown(wait=False)
                return built  # asyncio already (``AsyncHttpEndpointSender``)
            return AsyncSenderOf(built, own)
        if isinstance(built, PollingReceiver):
            return AsyncReceiverOf(built, own)
        own.shutdown(wait=False)
        return built  # an ASGI application: asyncio already

    return Connecting(connect)
