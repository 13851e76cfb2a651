"""NATS adapter (nats-py, asyncio): core NATS and JetStream senders and receivers of
``NatsMessage``.

Core NATS is at-most-once: ``NatsReceiver`` has nothing to acknowledge. ``JetStreamSender``
returns the stream's ``PubAck`` (the message is stored), and ``JetStreamReceiver`` pulls from a
durable consumer, acknowledges each message after the handler returned and negatively
acknowledges it (immediate redelivery) when the handler raised.

Headers travel as NATS headers (NATS >= 2.2). nats-py represents headers as a ``dict``, so a
message with a repeated header name raises ``ValueError`` instead of losing values.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import nats as nats_client  # type: ignore[import-untyped,import-not-found,unused-ignore]
from nats.errors import TimeoutError as NatsTimeoutError  # type: ignore[import-untyped,import-not-found,unused-ignore]

from .._event import Event
from ..bindings import NatsMessage
from ._encoding import Encoder, encoder_or_refusal
from ._loop import AsyncPollingReceiver
from ._sender import AsyncSender, Receipt, SendError

__all__ = [
    "JetStreamReceipt",
    "JetStreamReceiver",
    "JetStreamSender",
    "NatsPublishError",
    "NatsReceiver",
    "NatsSender",
    "from_nats",
    "headers_dict",
]

Servers = str | Sequence[str]


def headers_dict(headers: Iterable[tuple[str, str]]) -> dict[str, str] | None:
    """nats-py headers of a ``NatsMessage`` (``None`` when there are none)."""
    out: dict[str, str] = {}
    for name, value in headers:
        if name in out:
            raise ValueError(f"repeated NATS header {name!r} cannot be sent by nats-py")
        out[name] = value
    return out or None


def from_nats(msg: Any) -> NatsMessage:
    """A ``NatsMessage`` from a nats-py ``Msg``."""
    headers = msg.headers
    return NatsMessage(
        subject=msg.subject,
        payload=bytes(msg.data),
        headers=tuple(headers.items()) if headers else (),
        reply=msg.reply or None,
    )


async def _connect(servers: Servers, options: dict[str, Any]) -> Any:
    options.setdefault("max_reconnect_attempts", -1)
    options.setdefault("reconnect_time_wait", 0.5)
    return await nats_client.connect(
        servers=[servers] if isinstance(servers, str) else list(servers), **options
    )


class NatsPublishError(SendError):
    """The client could not publish, or no stream stored the message (JetStream)."""


@dataclass(frozen=True, slots=True)
class JetStreamReceipt(Receipt):
    """The ``Receipt`` of a JetStream publish: ``offset`` is the stream sequence, ``native``
    the ``PubAck`` (also read as ``seq``, ``stream`` and ``duplicate``)."""

    @property
    def seq(self) -> int | None:
        return self.offset

    @property
    def stream(self) -> str:
        return str(self.native.stream)

    @property
    def duplicate(self) -> bool:
        return bool(self.native.duplicate)


class NatsSender(AsyncSender):
    """Publish ``NatsMessage`` values with core NATS (fire and forget, buffered).

    ``encoder`` turns what ``send`` gets other than a ``NatsMessage`` (a typed event) into
    one (an endpoint's sender sets it).
    """

    __slots__ = ("_nc", "_owned", "_encode")

    def __init__(
        self, nc: Any, *, owned: bool = False, encoder: Encoder | None = None
    ) -> None:
        self._nc = nc
        self._owned = owned
        self._encode = encoder_or_refusal(encoder, NatsMessage, "NatsSender")

    @classmethod
    async def connect(
        cls, servers: Servers, *, encoder: Encoder | None = None, **options: Any
    ) -> NatsSender:
        """Connect to ``servers``; the sender closes the connection on ``close``."""
        return cls(await _connect(servers, options), owned=True, encoder=encoder)

    async def send(self, msg: NatsMessage | Event[Any]) -> Receipt:
        """Publish ``msg`` (an event is encoded first; buffered by the client: the receipt
        means the client has it, ``flush`` waits for the server)."""
        if msg.__class__ is not NatsMessage:
            msg = self._encode(msg)
        msg = cast(NatsMessage, msg)
        try:
            await self._nc.publish(
                msg.subject,
                msg.payload,
                reply=msg.reply or "",
                headers=headers_dict(msg.headers),
            )
        except Exception as exc:
            raise NatsPublishError(
                f"publish to {msg.subject!r} failed: {exc!r}"
            ) from exc
        return Receipt(msg.subject)

    async def flush(self, timeout: float = 30.0) -> None:
        """Round-trip to the server: everything published before has reached it."""
        await self._nc.flush(timeout)

    async def close(self) -> None:
        """Flush and, when the sender opened it, close the connection."""
        if self._owned:
            await self._nc.drain()
        else:
            await self._nc.flush()


class NatsReceiver(AsyncPollingReceiver[Any, NatsMessage]):
    """Subscribe to ``subject`` (optionally in a queue group) with core NATS."""

    __slots__ = ("_nc", "_sub", "_owned")

    def __init__(self, nc: Any, sub: Any, *, owned: bool = False) -> None:
        self._nc = nc
        self._sub = sub
        self._owned = owned

    @classmethod
    async def connect(
        cls, servers: Servers, subject: str, *, queue: str = "", **options: Any
    ) -> NatsReceiver:
        """Connect and subscribe; the subscription is active when this returns."""
        nc = await _connect(servers, options)
        sub = await nc.subscribe(subject, queue=queue)
        await nc.flush()
        return cls(nc, sub, owned=True)

    async def _poll(self, timeout: float) -> Any:
        try:
            return await self._sub.next_msg(timeout=timeout)
        except NatsTimeoutError:
            return None

    def _convert(self, raw: Any) -> NatsMessage:
        return from_nats(raw)

    async def _ack(self, raw: Any) -> None:
        """Core NATS has no acknowledgement."""

    async def close(self) -> None:
        """Unsubscribe and, when the receiver opened it, close the connection."""
        await self._sub.unsubscribe()
        if self._owned:
            await self._nc.close()


class JetStreamSender(AsyncSender):
    """Publish ``NatsMessage`` values to JetStream; ``send`` returns the stream's ``PubAck``.

    ``encoder``: as for ``NatsSender``.
    """

    __slots__ = ("_nc", "_js", "_owned", "_timeout", "_encode")

    def __init__(
        self,
        nc: Any,
        *,
        owned: bool = False,
        timeout: float = 10.0,
        encoder: Encoder | None = None,
    ) -> None:
        self._nc = nc
        self._js = nc.jetstream()
        self._owned = owned
        self._timeout = timeout
        self._encode = encoder_or_refusal(encoder, NatsMessage, "JetStreamSender")

    @classmethod
    async def connect(
        cls,
        servers: Servers,
        *,
        timeout: float = 10.0,
        encoder: Encoder | None = None,
        **options: Any,
    ) -> JetStreamSender:
        """Connect to ``servers``; ``timeout`` bounds the wait for each ``PubAck``."""
        nc = await _connect(servers, options)
        return cls(nc, owned=True, timeout=timeout, encoder=encoder)

    async def send(self, msg: NatsMessage | Event[Any]) -> Receipt:
        """Publish ``msg`` (an event is encoded first) and wait until a stream stored it: the
        receipt's ``offset`` is the stream sequence, ``native`` the ``nats.js.api.PubAck``.
        """
        if msg.__class__ is not NatsMessage:
            msg = self._encode(msg)
        msg = cast(NatsMessage, msg)
        try:
            ack = await self._js.publish(
                msg.subject,
                msg.payload,
                timeout=self._timeout,
                headers=headers_dict(msg.headers),
            )
        except Exception as exc:
            raise NatsPublishError(
                f"JetStream publish to {msg.subject!r} failed: {exc!r}"
            ) from exc
        return JetStreamReceipt(msg.subject, offset=ack.seq, native=ack)

    async def close(self) -> None:
        """Close the connection when the sender opened it."""
        if self._owned:
            await self._nc.drain()


class JetStreamReceiver(AsyncPollingReceiver[Any, NatsMessage]):
    """Pull from the durable consumer ``durable`` on ``subject`` (stream looked up by subject).

    ``batch`` messages are fetched at a time; each is acknowledged after the handler returned.
    """

    __slots__ = ("_nc", "_psub", "_owned", "_batch", "_buffer")

    def __init__(
        self, nc: Any, psub: Any, *, owned: bool = False, batch: int = 64
    ) -> None:
        self._nc = nc
        self._psub = psub
        self._owned = owned
        self._batch = batch
        self._buffer: deque[Any] = deque()

    @classmethod
    async def connect(
        cls,
        servers: Servers,
        subject: str,
        durable: str,
        *,
        stream: str | None = None,
        batch: int = 64,
        **options: Any,
    ) -> JetStreamReceiver:
        """Connect and bind (or create) the durable pull consumer."""
        nc = await _connect(servers, options)
        psub = await nc.jetstream().pull_subscribe(
            subject, durable=durable, stream=stream
        )
        return cls(nc, psub, owned=True, batch=batch)

    async def _poll(self, timeout: float) -> Any:
        if not self._buffer:
            try:
                self._buffer.extend(
                    await self._psub.fetch(self._batch, timeout=timeout)
                )
            except (TimeoutError, NatsTimeoutError):
                return None
        return self._buffer.popleft() if self._buffer else None

    def _convert(self, raw: Any) -> NatsMessage:
        return from_nats(raw)

    async def _ack(self, raw: Any) -> None:
        await raw.ack()

    async def _nack(self, raw: Any) -> None:
        await raw.nak()

    async def close(self) -> None:
        """Give back fetched but unhandled messages, then close the connection."""
        while self._buffer:
            await self._buffer.popleft().nak()
        await self._psub.unsubscribe()
        if self._owned:
            await self._nc.close()
