"""NATS adapter (nats-py, asyncio): core NATS and JetStream senders and receivers of
``NatsMessage``.

Core NATS is at-most-once: ``NatsReceiver`` has nothing to acknowledge, and a message published
while no subscription is connected (the receiver down, or reconnecting) is not delivered to it.
``JetStreamSender`` returns the stream's ``PubAck`` (the message is stored), and
``JetStreamReceiver`` pulls from a durable consumer, acknowledges each message after the handler
returned and negatively acknowledges it (immediate redelivery) when it is given back; the
consumer's ``max_ack_pending`` bounds what a restart redelivers.

``connect`` bounds the first connection by ``connect_timeout`` (``ConnectFailed`` names the
servers) and then lets nats-py reconnect for ever, with backoff between attempts
(``reconnect_delay``); subscriptions and the JetStream consumer resume after a reconnect.
Senders refuse a message while the connection is down (``NotConnected``). ``ensure_stream``
creates a JetStream stream that does not exist, or raises ``JetStreamError`` naming it.

Headers travel as NATS headers (NATS >= 2.2). nats-py represents headers as a ``dict``, so a
message with a repeated header name raises ``ValueError`` instead of losing values.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import nats.errors as nats_errors  # type: ignore[import-untyped,import-not-found,unused-ignore]
import nats.js.errors as js_errors  # type: ignore[import-untyped,import-not-found,unused-ignore]
from nats.aio.client import Client as _Client  # type: ignore[import-untyped,import-not-found,unused-ignore]
from nats.errors import TimeoutError as NatsTimeoutError  # type: ignore[import-untyped,import-not-found,unused-ignore]
from nats.js import api as js_api  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..._event import Event
from ...adapters._connection import CONNECT_TIMEOUT, ConnectFailed, NotConnected
from ...adapters._encoding import Encoder, encoder_or_refusal
from ...adapters._loop import AsyncPollingReceiver
from ...adapters._sender import AsyncSender, Receipt, SendError
from .._common import builder
from .spec import NatsMessage

__all__ = [
    "ConnectFailed",
    "JetStreamError",
    "JetStreamReceipt",
    "JetStreamReceiver",
    "JetStreamSender",
    "NatsPublishError",
    "NatsReceiver",
    "NatsSender",
    "NotConnected",
    "connect",
    "ensure_stream",
    "from_nats",
    "headers_dict",
]

Servers = str | Sequence[str]
_log = logging.getLogger("xrgen_runtime.adapters")
#: messages a core subscription holds before nats-py drops (slow consumer); bytes likewise
PENDING_MESSAGES = 10_000
PENDING_BYTES = 64 * 1024 * 1024
#: unacknowledged messages a JetStream receiver's consumer allows unless told otherwise
MAX_ACK_PENDING = 100
#: what a lost connection raises in nats-py
_DOWN = (nats_errors.Error, OSError)
#: how long after a pull request's expiry the server's last delivery for it may still arrive
_PULL_GRACE = 0.25


#: ``NatsMessage(subject, payload, headers, reply)`` without the frozen dataclass's ``__init__``
_new_message: Callable[..., NatsMessage] = builder(NatsMessage)


class JetStreamError(Exception):
    """A JetStream stream or consumer the client needs is missing or cannot be made."""


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
    return _new_message(
        msg.subject,
        bytes(msg.data),
        tuple(headers.items()) if headers else (),
        msg.reply or None,
    )


def _servers(servers: Servers) -> list[str]:
    return [servers] if isinstance(servers, str) else list(servers)


def _where(servers: list[str]) -> str:
    out = []
    for server in servers:
        parts = urlsplit(server if "://" in server else "nats://" + server)
        out.append(f"{parts.hostname}:{parts.port or 4222}")
    return ", ".join(out)


class _Watch:
    """The connection's callbacks: one warning per outage (no traceback per attempt), a note
    when it is back, and the backoff between reconnect attempts."""

    def __init__(self, where: str, delay: tuple[float, float]) -> None:
        self.where = where
        self.first, self.longest = delay
        #: connecting the first time: errors are kept for ``ConnectFailed``, not logged
        self.connecting = True
        self.last: Exception | None = None
        self.down = False

    async def error(self, exc: Exception) -> None:
        if self.connecting:
            if not isinstance(exc, nats_errors.NoServersError):
                self.last = exc
        elif isinstance(exc, nats_errors.SlowConsumerError):
            _log.warning(
                "NATS %s: slow consumer, messages dropped: %s", self.where, exc
            )
        elif not self.down:
            self.down = True
            _log.warning(
                "NATS %s: %s: %s; reconnecting", self.where, type(exc).__name__, exc
            )
        else:
            _log.debug("NATS %s: %s", self.where, exc)

    async def disconnected(self) -> None:
        self.down = True

    async def reconnected(self) -> None:
        self.down = False
        _log.info("NATS %s: reconnected", self.where)

    def choose(self, servers: list[Any], info: dict[str, Any]) -> tuple[Any, float]:
        """nats-py's ``reconnect_to_server_handler``: the server tried least, after a delay
        that doubles with its failed attempts."""
        server = min(servers, key=lambda s: s.reconnects)
        if not server.reconnects:
            return server, 0.0
        delay = min(self.longest, self.first * 2 ** (server.reconnects - 1))
        return server, delay * (1.0 + 0.2 * random.random())


async def connect(
    servers: Servers,
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    reconnect_delay: tuple[float, float] = (0.1, 5.0),
    **options: Any,
) -> Any:
    """A connected nats-py client: each server tried within ``connect_timeout`` in all, else
    ``ConnectFailed``; after that nats-py reconnects for ever with backoff
    (``reconnect_delay``: first and longest delay). ``options``: more ``nats.connect``
    arguments."""
    urls = _servers(servers)
    where = _where(urls)
    watch = _Watch(where, reconnect_delay)
    wanted = options.pop("max_reconnect_attempts", -1)
    wait = options.pop("reconnect_time_wait", None)
    options.setdefault("error_cb", watch.error)
    options.setdefault("disconnected_cb", watch.disconnected)
    options.setdefault("reconnected_cb", watch.reconnected)
    options.setdefault("reconnect_to_server_handler", watch.choose)
    nc = _Client()
    try:
        # nats-py retries the first connection for ever unless attempts are limited
        await asyncio.wait_for(
            nc.connect(
                servers=urls,
                connect_timeout=max(1, int(connect_timeout)),
                max_reconnect_attempts=1,
                reconnect_time_wait=cast(int, 0.1),  # a float works
                **options,
            ),
            connect_timeout,
        )
    except (asyncio.TimeoutError, *_DOWN) as exc:
        with contextlib.suppress(Exception):
            await nc.close()
        cause = watch.last or exc
        reason = f"{type(cause).__name__}: {cause}".rstrip(": ")
        if isinstance(exc, asyncio.TimeoutError) and watch.last is None:
            reason = f"no answer in {connect_timeout}s"
        host, _, port = where.split(", ")[0].rpartition(":")
        raise ConnectFailed(
            "NATS", host if len(urls) == 1 else where, port, reason
        ) from None
    nc.options["max_reconnect_attempts"] = wanted
    if wait is not None:
        nc.options["reconnect_time_wait"] = wait
    watch.connecting = False
    return nc


async def _close(nc: Any, drain: bool = False) -> None:
    """Close (``drain``: after the messages published so far), also when the connection is
    already lost."""
    try:
        await (nc.drain() if drain else nc.close())
    except _DOWN as exc:
        _log.debug("NATS close: %s", exc)
        with contextlib.suppress(*_DOWN):
            await nc.close()


def _refuse(nc: Any, what: str) -> None:
    if not nc.is_connected:
        raise NotConnected(f"NATS connection is down (reconnecting); {what} not sent")


async def ensure_stream(
    js: Any,
    name: str,
    subjects: Sequence[str],
    *,
    create: bool,
    settings: Mapping[str, Any] | None = None,
) -> None:
    """Make sure the JetStream stream ``name`` exists: create it (storing ``subjects``, with
    ``settings``: more ``StreamConfig`` fields) when ``create``, else ``JetStreamError``.
    """
    try:
        await js.stream_info(name)
        return
    except js_errors.NotFoundError:
        pass
    if not create:
        raise JetStreamError(
            f"JetStream stream {name!r} does not exist: create it, or let the client "
            "create it (the endpoint's jetstream option 'create': true)"
        ) from None
    try:
        await js.add_stream(
            js_api.StreamConfig(name=name, subjects=list(subjects), **(settings or {}))
        )
    except js_errors.BadRequestError as exc:
        with contextlib.suppress(js_errors.NotFoundError):
            await js.stream_info(name)  # created by another client meanwhile
            return
        raise JetStreamError(
            f"JetStream stream {name!r} cannot be created: {exc}"
        ) from None


class NatsPublishError(SendError):
    """The client could not publish, or no stream stored the message (JetStream)."""


class JetStreamNoStream(NatsPublishError, JetStreamError):
    """No JetStream stream stores the subject a message was published to."""


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

    ``send`` raises ``NotConnected`` while the connection is down. ``encoder`` turns what
    ``send`` gets other than a ``NatsMessage`` (a typed event) into one (an endpoint's sender
    sets it).
    """

    __slots__ = ("_nc", "_owned", "_encode", "_publish")

    def __init__(
        self, nc: Any, *, owned: bool = False, encoder: Encoder | None = None
    ) -> None:
        self._nc = nc
        self._publish = nc.publish
        self._owned = owned
        self._encode = encoder_or_refusal(encoder, NatsMessage, "NatsSender")

    @classmethod
    async def connect(
        cls, servers: Servers, *, encoder: Encoder | None = None, **options: Any
    ) -> NatsSender:
        """Connect to ``servers`` (``connect``); the sender closes the connection on
        ``close``."""
        return cls(await connect(servers, **options), owned=True, encoder=encoder)

    async def send(self, msg: NatsMessage | Event[Any]) -> Receipt:
        """Publish ``msg`` (an event is encoded first; buffered by the client: the receipt
        means the client has it, ``flush`` waits for the server)."""
        if msg.__class__ is not NatsMessage:
            msg = self._encode(msg)
        msg = cast(NatsMessage, msg)
        if not self._nc.is_connected:
            _refuse(self._nc, "message")
        try:
            await self._publish(
                msg.subject,
                msg.payload,
                reply=msg.reply or "",
                headers=headers_dict(msg.headers) if msg.headers else None,
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
            await _close(self._nc, drain=True)
        else:
            await self._nc.flush()


class NatsReceiver(AsyncPollingReceiver[Any, NatsMessage]):
    """Subscribe to ``subject`` (optionally in a queue group) with core NATS (at most once:
    see the module doc). The subscription holds at most ``pending_messages`` messages not
    yet handled; beyond that nats-py drops messages and reports a slow consumer."""

    __slots__ = ("_nc", "_sub", "_owned")

    def __init__(self, nc: Any, sub: Any, *, owned: bool = False) -> None:
        self._nc = nc
        self._sub = sub
        self._owned = owned

    @classmethod
    async def connect(
        cls,
        servers: Servers,
        subject: str,
        *,
        queue: str = "",
        pending_messages: int = PENDING_MESSAGES,
        **options: Any,
    ) -> NatsReceiver:
        """Connect and subscribe; the subscription is active when this returns."""
        nc = await connect(servers, **options)
        sub = await nc.subscribe(
            subject,
            queue=queue,
            pending_msgs_limit=pending_messages,
            pending_bytes_limit=PENDING_BYTES,
        )
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
        with contextlib.suppress(*_DOWN):
            await self._sub.unsubscribe()
        if self._owned:
            await _close(self._nc)


class JetStreamSender(AsyncSender):
    """Publish ``NatsMessage`` values to JetStream; ``send`` returns the stream's ``PubAck``.

    ``send`` raises ``NotConnected`` while the connection is down, and ``JetStreamError`` when
    no stream stores the subject. ``encoder``: as for ``NatsSender``.
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
        stream: str | None = None,
        subjects: Sequence[str] = (),
        create: bool = False,
        stream_settings: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> JetStreamSender:
        """Connect to ``servers`` (``connect``); ``timeout`` bounds the wait for each
        ``PubAck``. With ``stream``, the stream is made sure of first (``ensure_stream``).
        """
        nc = await connect(servers, **options)
        sender = cls(nc, owned=True, timeout=timeout, encoder=encoder)
        if stream is not None:
            try:
                await ensure_stream(
                    sender._js,
                    stream,
                    subjects,
                    create=create,
                    settings=stream_settings,
                )
            except BaseException:
                await nc.close()
                raise
        return sender

    async def send(self, msg: NatsMessage | Event[Any]) -> Receipt:
        """Publish ``msg`` (an event is encoded first) and wait until a stream stored it: the
        receipt's ``offset`` is the stream sequence, ``native`` the ``nats.js.api.PubAck``.
        """
        if msg.__class__ is not NatsMessage:
            msg = self._encode(msg)
        msg = cast(NatsMessage, msg)
        if not self._nc.is_connected:
            _refuse(self._nc, "message")
        try:
            ack = await self._js.publish(
                msg.subject,
                msg.payload,
                timeout=self._timeout,
                headers=headers_dict(msg.headers) if msg.headers else None,
            )
        except js_errors.NoStreamResponseError:
            raise JetStreamNoStream(
                f"no JetStream stream stores subject {msg.subject!r}"
            ) from None
        except Exception as exc:
            raise NatsPublishError(
                f"JetStream publish to {msg.subject!r} failed: {exc!r}"
            ) from exc
        return JetStreamReceipt(msg.subject, offset=ack.seq, native=ack)

    async def close(self) -> None:
        """Close the connection when the sender opened it."""
        if self._owned:
            await _close(self._nc, drain=True)


def consumer_config(
    *,
    ack_wait: float | None = None,
    max_deliver: int | None = None,
    max_ack_pending: int = MAX_ACK_PENDING,
    backoff: Sequence[float] | None = None,
    deliver_policy: str | None = None,
) -> Any:
    """The ``ConsumerConfig`` of a durable pull consumer (explicit acknowledgements)."""
    config = js_api.ConsumerConfig(
        ack_policy=js_api.AckPolicy.EXPLICIT,
        ack_wait=ack_wait,
        max_deliver=max_deliver,
        max_ack_pending=max_ack_pending,
        backoff=list(backoff) if backoff else None,
    )
    if deliver_policy is not None:
        config.deliver_policy = js_api.DeliverPolicy(deliver_policy)
    return config


class JetStreamReceiver(AsyncPollingReceiver[Any, NatsMessage]):
    """Pull from the durable consumer ``durable`` on ``subject`` (the stream ``stream``, else
    the one storing the subject).

    Up to ``batch`` messages are fetched at a time (at most the consumer's
    ``max_ack_pending``); each is acknowledged after the handler returned. Fetches and
    acknowledgements while the connection is down wait for it: an acknowledgement that does
    not reach the server leaves the message to be redelivered after ``ack_wait``.
    """

    __slots__ = ("_nc", "_psub", "_owned", "_batch", "_buffer", "_pulling_until")

    def __init__(
        self, nc: Any, psub: Any, *, owned: bool = False, batch: int = 64
    ) -> None:
        self._nc = nc
        self._psub = psub
        self._owned = owned
        self._batch = batch
        self._buffer: deque[Any] = deque()
        #: the loop time until which a pull request of the last fetch may still deliver
        self._pulling_until = 0.0

    @classmethod
    async def connect(
        cls,
        servers: Servers,
        subject: str,
        durable: str,
        *,
        stream: str | None = None,
        create: bool = False,
        stream_settings: Mapping[str, Any] | None = None,
        subjects: Sequence[str] = (),
        batch: int = 64,
        consumer: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> JetStreamReceiver:
        """Connect and bind (or create) the durable pull consumer; ``consumer``: keyword
        arguments of ``consumer_config``. With ``stream`` the stream is made sure of first
        (``ensure_stream``, storing ``subjects`` or else ``subject``)."""
        nc = await connect(servers, **options)
        js = nc.jetstream()
        config = consumer_config(**(consumer or {}))
        try:
            if stream is not None:
                await ensure_stream(
                    js,
                    stream,
                    list(subjects) or [subject],
                    create=create,
                    settings=stream_settings,
                )
            else:
                try:
                    stream = await js.find_stream_name_by_subject(subject)
                except js_errors.NotFoundError:
                    raise JetStreamError(
                        f"no JetStream stream stores subject {subject!r}: create one, or "
                        "name it (the endpoint's jetstream option 'stream', with 'create')"
                    ) from None
            psub = await js.pull_subscribe(
                subject, durable=durable, stream=stream, config=config
            )
        except BaseException:
            await nc.close()
            raise
        return cls(
            nc, psub, owned=True, batch=min(batch, config.max_ack_pending or batch)
        )

    async def _poll(self, timeout: float) -> Any:
        if not self._buffer:
            self._pulling_until = asyncio.get_running_loop().time() + timeout
            try:
                self._buffer.extend(
                    await self._psub.fetch(self._batch, timeout=timeout)
                )
            except (TimeoutError, NatsTimeoutError):
                return None
            except _DOWN as exc:  # reconnecting: wait for it
                _log.debug("NATS fetch failed: %s", exc)
                await asyncio.sleep(timeout)
                return None
        return self._buffer.popleft() if self._buffer else None

    def _convert(self, raw: Any) -> NatsMessage:
        return from_nats(raw)

    async def _ack(self, raw: Any) -> None:
        try:
            await raw.ack()
        except _DOWN as exc:  # redelivered after ack_wait
            _log.debug("NATS ack failed: %s", exc)

    async def _nack(self, raw: Any) -> None:
        try:
            await raw.nak()
        except _DOWN as exc:  # redelivered after ack_wait
            _log.debug("NATS nak failed: %s", exc)

    async def close(self) -> None:
        """Give back fetched but unhandled messages, and those a pull request of the last
        fetch delivers after the fetch returned (it may, until the request expires), then
        close the connection. Without this they would wait for ``ack_wait`` on the server.
        """
        with contextlib.suppress(*_DOWN):
            await self._give_back_pulled()
            await self._psub.unsubscribe()
        if self._owned:
            await _close(self._nc)

    async def _give_back_pulled(self) -> None:
        loop = asyncio.get_running_loop()
        # nats-py keeps what arrives for the pull subscription in this subscription's queue
        # and hands it out only through fetch, which would pull more from the server
        sub = getattr(self._psub, "_sub", None)
        until = self._pulling_until + _PULL_GRACE
        while True:
            while self._buffer:
                await self._buffer.popleft().nak()
            if sub is None:
                return
            left = until - loop.time()
            if left <= 0 and not sub.pending_msgs:
                return
            try:
                msg = await sub.next_msg(timeout=max(left, 0.001))
            except (TimeoutError, NatsTimeoutError):
                return
            if not (msg.headers and msg.headers.get("Status")):  # not a status reply
                self._buffer.append(msg)
