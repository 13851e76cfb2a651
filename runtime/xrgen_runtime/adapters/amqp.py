"""AMQP 1.0 adapter (python-qpid-proton): ``AmqpSender`` and ``AmqpReceiver`` move ``AmqpMessage``.

Sections map one to one: the body goes into a single ``data`` section; ``properties`` by AMQP
field name (``message-id``, ``to``, ``content-type``, ``creation-time``, ...);
``application_properties`` and ``message_annotations`` keep native AMQP types (bool, long,
double, string, binary, timestamp <-> timezone-aware ``datetime``); ``header`` by AMQP field
name (``durable``, ``priority``, ``ttl`` in milliseconds, ``first-acquirer``,
``delivery-count``). Proton's message API has no footer: sending a non-empty ``footer``
raises ``ValueError`` rather than dropping it. A received ``amqp-value`` body that is a string
becomes its UTF-8 bytes; any other non-binary body becomes its AMQP encoding (so a codec
rejects it and the dispatcher dead-letters it: nothing is dropped).

The sender pipelines: ``send`` returns a future settled by the broker's disposition, and waits
only when ``max_in_flight`` messages are unsettled. The receiver accepts a message after the
handler returned and releases it (``released``: the broker requeues it) when the handler raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

import cproton  # type: ignore[import-untyped,import-not-found,unused-ignore]
import proton  # type: ignore[import-untyped,import-not-found,unused-ignore]
from proton.utils import BlockingConnection  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..bindings import AmqpMessage
from ._loop import PollingReceiver
from ._sender import Sender

__all__ = [
    "AmqpDeliveryError",
    "AmqpReceiver",
    "AmqpSender",
    "from_proton",
    "to_proton",
]

#: properties section: AMQP field name -> proton ``Message`` attribute
_PROPERTIES = {
    "message-id": "id",
    "user-id": "user_id",
    "to": "address",
    "subject": "subject",
    "reply-to": "reply_to",
    "correlation-id": "correlation_id",
    "content-type": "content_type",
    "content-encoding": "content_encoding",
    "absolute-expiry-time": "expiry_time",
    "creation-time": "creation_time",
    "group-id": "group_id",
    "group-sequence": "group_sequence",
    "reply-to-group-id": "reply_to_group_id",
}
#: symbol fields whose proton getter turns "unset" into the text "None": read them raw
_RAW_SYMBOLS = {
    "content-type": cproton.pn_message_get_content_type,
    "content-encoding": cproton.pn_message_get_content_encoding,
}
_TIMESTAMPS = frozenset(("absolute-expiry-time", "creation-time"))
_HEADER_DEFAULTS: dict[str, Any] = {
    "durable": False,
    "priority": 4,
    "ttl": 0,
    "first-acquirer": False,
    "delivery-count": 0,
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class AmqpDeliveryError(Exception):
    """The broker did not accept a message (rejected, released or modified)."""


# --------------------------------------------------------------------------------------------
# value conversion
# --------------------------------------------------------------------------------------------


def _ms(value: datetime) -> int:
    if value.tzinfo is None:
        raise ValueError("AMQP timestamps need a timezone-aware datetime")
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def _from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def to_amqp_value(value: Any) -> Any:
    """A Python value as proton encodes it natively (``datetime`` -> AMQP timestamp)."""
    if isinstance(value, datetime):
        return proton.timestamp(_ms(value))
    return value


def from_amqp_value(value: Any) -> Any:
    """A decoded AMQP value as a plain Python value (timestamp -> aware ``datetime``)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, proton.timestamp):
        return _from_ms(int(value))
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, memoryview | bytearray):
        return bytes(value)
    return value


def _annotations_out(values: Mapping[str, Any]) -> dict[Any, Any]:
    return {
        proton.symbol(k) if isinstance(k, str) else proton.ulong(k): to_amqp_value(v)
        for k, v in values.items()
    }


def _plain(values: Mapping[Any, Any] | None) -> dict[str, Any]:
    if not values:
        return {}
    return {str(k): from_amqp_value(v) for k, v in values.items()}


# --------------------------------------------------------------------------------------------
# message conversion
# --------------------------------------------------------------------------------------------


def to_proton(msg: AmqpMessage) -> Any:
    """A proton ``Message`` carrying every section of ``msg``."""
    if msg.footer:
        raise ValueError("python-qpid-proton cannot send an AMQP footer")
    out: Any = proton.Message()
    if msg.body is not None:
        out.body = msg.body
        out.inferred = True  # bytes -> one data section (not an amqp-value)
    for name, value in msg.properties.items():
        attr = _PROPERTIES.get(name)
        if attr is None:
            raise ValueError(f"unknown AMQP properties field {name!r}")
        if name in _TIMESTAMPS:
            ms = _ms(value) if isinstance(value, datetime) else int(value)
            value = ms / 1000  # proton takes seconds
        setattr(out, attr, value)
    for name, value in msg.header.items():
        if name == "ttl":
            out.ttl = int(value) / 1000
        elif name in _HEADER_DEFAULTS:
            setattr(out, name.replace("-", "_"), value)
        else:
            raise ValueError(f"unknown AMQP header field {name!r}")
    if msg.application_properties:
        out.properties = {
            k: to_amqp_value(v) for k, v in msg.application_properties.items()
        }
    if msg.message_annotations:
        out.annotations = _annotations_out(msg.message_annotations)
    return out


def _body(message: Any) -> bytes | None:
    body = message.body
    if body is None:
        return None
    if isinstance(body, bytes | memoryview | bytearray):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    data = proton.Data()
    data.put_object(body)
    return bytes(data.encode())


def _properties(message: Any) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for name, attr in _PROPERTIES.items():
        raw = _RAW_SYMBOLS.get(name)
        value = getattr(message, attr) if raw is None else raw(message._msg)
        if value is None or value == 0 or value == b"" or value == "":
            continue  # proton reports unset fields as None / 0 / empty
        if name in _TIMESTAMPS:
            value = _from_ms(round(value * 1000))
        elif isinstance(value, proton.ulong):
            value = int(value)
        elif isinstance(value, str):  # symbol -> str
            value = str(value)
        elif isinstance(value, memoryview):
            value = bytes(value)
        props[name] = value
    return props


def _header(message: Any) -> dict[str, Any]:
    header: dict[str, Any] = {}
    for name, default in _HEADER_DEFAULTS.items():
        value = getattr(message, name.replace("-", "_"))
        if name == "ttl":
            value = round(value * 1000)
        if value != default:
            header[name] = value
    return header


def from_proton(message: Any, address: str | None = None) -> AmqpMessage:
    """An ``AmqpMessage`` from a received proton ``Message`` (``address``: link source)."""
    return AmqpMessage(
        body=_body(message),
        properties=_properties(message),
        application_properties=_plain(message.properties),
        message_annotations=_plain(message.annotations),
        header=_header(message),
        address=address,
    )


# --------------------------------------------------------------------------------------------
# sender and receiver
# --------------------------------------------------------------------------------------------


class AmqpSender(Sender):
    """Send ``AmqpMessage`` values over one AMQP 1.0 connection.

    Each message goes to ``msg.address`` or, when that is ``None``, to ``address`` (one link
    per target address). ``url`` is ``amqp://user:password@host:port``.
    """

    __slots__ = ("_conn", "_address", "_links", "_in_flight", "_max_in_flight")

    def __init__(
        self,
        url: str,
        address: str | None = None,
        *,
        timeout: float = 10.0,
        max_in_flight: int = 1000,
    ) -> None:
        self._conn: Any = BlockingConnection(url, timeout=timeout)
        self._address = address
        self._links: dict[str | None, Any] = {}
        self._in_flight: list[tuple[Any, Future[None]]] = []
        self._max_in_flight = max_in_flight

    def _link(self, address: str | None) -> Any:
        link = self._links.get(address)
        if link is None:
            link = self._links[address] = self._conn.create_sender(address).link
        return link

    def send(self, msg: AmqpMessage) -> Future[None]:
        """Send ``msg``; the future resolves when the broker accepted it."""
        address = msg.address if msg.address is not None else self._address
        delivery = self._link(address).send(to_proton(msg))
        future: Future[None] = Future()
        self._in_flight.append((delivery, future))
        if len(self._in_flight) >= self._max_in_flight:
            self.flush()
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the broker settled every message sent so far.

        Raises ``AmqpDeliveryError`` if any was not accepted (all futures are resolved first).
        """
        in_flight, self._in_flight = self._in_flight, []
        self._conn.wait(
            lambda: all(d.settled for d, _ in in_flight),
            timeout=timeout,
            msg="waiting for AMQP dispositions",
        )
        failed = 0
        for delivery, future in in_flight:
            if delivery.remote_state == proton.Delivery.ACCEPTED:
                future.set_result(None)
            else:
                failed += 1
                future.set_exception(
                    AmqpDeliveryError(f"delivery state {delivery.remote_state}")
                )
        if failed:
            raise AmqpDeliveryError(f"{failed} AMQP message(s) not accepted")

    def _release(self) -> None:
        """Close the connection."""
        self._conn.close()


class AmqpReceiver(PollingReceiver[Any, AmqpMessage]):
    """Receive from ``address`` with ``prefetch`` credit; accept after handling."""

    __slots__ = ("_conn", "_link", "_address")

    def __init__(
        self,
        url: str,
        address: str,
        *,
        prefetch: int = 100,
        timeout: float = 10.0,
    ) -> None:
        self._conn: Any = BlockingConnection(url, timeout=timeout)
        self._address = address
        self._link: Any = self._conn.create_receiver(address, credit=prefetch)

    def _poll(self, timeout: float) -> Any:
        try:
            return self._link.receive(timeout=timeout)
        except proton.Timeout:
            return None

    def _convert(self, raw: Any) -> AmqpMessage:
        return from_proton(raw, self._address)

    def _ack(self, raw: Any) -> None:
        self._link.accept()

    def _nack(self, raw: Any) -> None:
        self._link.release(delivered=False)

    def close(self) -> None:
        """Close the link and the connection (unsettled messages return to the queue)."""
        self._conn.close()
