"""``Connecting``: what ``sender()``/``receiver()`` return for an asyncio adapter.

``await ep.sender(...)`` gives the connected adapter; ``async with ep.sender(...) as s`` also
connects, and closes it on exit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, Generic, TypeVar

__all__ = ["Connecting"]

T = TypeVar("T")


class Connecting(Generic[T]):
    """An adapter being connected: awaitable, or an async context manager."""

    __slots__ = ("_connect", "_client")

    def __init__(self, connect: Callable[[], Awaitable[T]]) -> None:
        self._connect = connect
        self._client: T | None = None

    def connect(self) -> Awaitable[T]:
        """Connect (what awaiting this object does)."""
        return self._connect()

    def __await__(self) -> Generator[Any, None, T]:
        return self._connect().__await__()

    async def __aenter__(self) -> T:
        self._client = await self._connect()
        return self._client

    async def __aexit__(self, *exc: object) -> None:
        client: Any = self._client
        self._client = None
        if client is not None:
            await client.close()
