"""What every sender shares: ``flush``, ``close`` (flush, then release the client), the
context manager, and the futures of messages sent but not yet confirmed."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any, Self

__all__ = ["AsyncSender", "Pending", "Sender"]


class Sender:
    """Base of the blocking senders: ``send`` is the subclass's; ``close`` flushes, then
    releases the client (:meth:`_release`) even when the flush failed."""

    __slots__ = ()

    def flush(self, timeout: float = 30.0) -> None:
        """Nothing is buffered: ``send`` returns when the server has the message."""

    def _release(self) -> None:
        """Release the client (called once, by ``close``)."""

    def close(self, timeout: float = 30.0) -> None:
        """Flush, then release the client."""
        try:
            self.flush(timeout)
        finally:
            self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncSender:
    """Base of the asyncio senders: ``send``, ``flush`` and ``close`` are awaited."""

    __slots__ = ()

    async def flush(self, timeout: float = 30.0) -> None:
        """Nothing is buffered: ``send`` returns when the server has the message."""

    async def close(self) -> None:
        """Nothing to release."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class Pending:
    """The futures of messages sent and not yet confirmed by the server."""

    __slots__ = ("_futures",)

    def __init__(self) -> None:
        self._futures: list[Future[Any]] = []

    def add(self, future: Future[Any]) -> None:
        self._futures.append(future)

    def wait(self, timeout: float) -> None:
        """Wait for every future added so far; raise the first failure."""
        futures, self._futures = self._futures, []
        for future in futures:
            future.result(timeout)
