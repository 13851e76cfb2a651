"""What every sender shares: what ``send`` confirms with (``Receipt``) and fails with
(``SendError``), ``flush``, ``close`` (flush, then release the client), the context manager,
the futures of messages sent but not yet confirmed, and the hook of ``xrgen_runtime.otel``
around each subclass's ``send``.

One shape per flavour: a blocking sender's ``send`` returns a
``concurrent.futures.Future[Receipt]``, resolved when the server confirmed the message (or
failed with a ``SendError``); an asyncio sender's ``send`` returns the ``Receipt`` when
awaited (or raises the ``SendError``)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from .._hooks import HOOKS

__all__ = ["AsyncSender", "Pending", "Receipt", "SendError", "Sender"]


@dataclass(frozen=True, slots=True)
class Receipt:
    """The server's confirmation of one sent message.

    ``destination``: the topic, address, subject or request path it went to; ``partition``
    and ``offset``: where a Kafka broker stored it (``offset`` is also a JetStream stream
    sequence); ``native``: the client library's own confirmation where it has one (the
    JetStream ``PubAck``, the HTTP response as an ``HttpMessage``, a Pulsar ``MessageId``).
    Core NATS and MQTT QoS 0 have no confirmation: their receipt means the client wrote the
    message.
    """

    destination: str | None
    partition: int | None = None
    offset: int | None = None
    native: Any = None


class SendError(Exception):
    """A message the server refused or the client could not deliver: the base of every
    binding's send error (``KafkaDeliveryError``, ``MqttPublishError``,
    ``AmqpDeliveryError``, ...)."""


#: the hook slot: an observer in it (``xrgen_runtime.otel``) runs every ``send`` of a
#: subclass of ``Sender`` or ``AsyncSender`` through its ``send`` or ``send_async``
_HOOKS = HOOKS


def _observed(send: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(send)
    def observed(self: Any, message: Any, *args: Any, **kwargs: Any) -> Any:
        observer = _HOOKS.observer
        if observer is None:
            return send(self, message, *args, **kwargs)
        return observer.send(send, self, message, args, kwargs)

    return observed


def _observed_async(
    send: Callable[..., Awaitable[Any]],
) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(send)
    async def observed(self: Any, message: Any, *args: Any, **kwargs: Any) -> Any:
        observer = _HOOKS.observer
        if observer is None:
            return await send(self, message, *args, **kwargs)
        return await observer.send_async(send, self, message, args, kwargs)

    return observed


class Sender:
    """Base of the blocking senders: ``send`` is the subclass's; ``close`` flushes, then
    releases the client (:meth:`_release`) even when the flush failed."""

    __slots__ = ()

    #: the futures of ``send`` resolve without ``flush`` being called (the client confirms
    #: in a thread of its own); ``False``: only ``flush`` resolves them
    _confirms_itself: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        send = cls.__dict__.get("send")
        if send is not None:
            cls.send = _observed(send)  # type: ignore[attr-defined]

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

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        send = cls.__dict__.get("send")
        if send is not None:
            cls.send = _observed_async(send)  # type: ignore[attr-defined]

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
