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

Each client has one connection, served by a thread of its own (``_io``), which reconnects
with backoff when it drops. The sender pipelines: ``send`` returns a future resolved by the
broker's disposition, and waits only when ``max_in_flight`` messages are unsettled; while the
connection is down ``send`` raises ``NotConnected``, and the futures of messages in flight when
it dropped fail with ``NotConnected`` (they may or may not have reached the broker). The
receiver holds at most ``prefetch`` unsettled messages (credit is granted as messages are
settled, so a restart redelivers at most that many), accepts a message as soon as its handler
returned and releases it (``released``: the broker requeues it) when it is given back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any, cast

import cproton  # type: ignore[import-untyped,import-not-found,unused-ignore]
import proton  # type: ignore[import-untyped,import-not-found,unused-ignore]
from proton.reactor import ReceiverOption, SenderOption  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..._event import Event
from ...adapters._connection import CONNECT_TIMEOUT, NotConnected
from ...adapters._encoding import Encoder, encoder_or_refusal
from ...adapters._loop import PollingReceiver
from ...adapters._sender import Receipt, Sender
from ._io import AmqpDeliveryError
from ._links import Receiving, Sending
from .spec import AmqpMessage

__all__ = [
    "AmqpDeliveryError",
    "AmqpReceiver",
    "AmqpSender",
    "LinkSettings",
    "NotConnected",
    "connect_options",
    "from_proton",
    "to_proton",
]

#: properties section: AMQP field name -> proton ``Message`` attribute (to send)
_ATTRIBUTES = {
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
#: properties section: AMQP field name -> the proton getter of its value, called on the
#: message's C handle (proton's ``Message`` properties wrap the same calls, at twice the cost;
#: the symbol fields' properties would also turn "unset" into the text "None")
_PROPERTIES: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("message-id", cproton.pn_message_get_id),
    ("user-id", cproton.pn_message_get_user_id),
    ("to", cproton.pn_message_get_address),
    ("subject", cproton.pn_message_get_subject),
    ("reply-to", cproton.pn_message_get_reply_to),
    ("correlation-id", cproton.pn_message_get_correlation_id),
    ("content-type", cproton.pn_message_get_content_type),
    ("content-encoding", cproton.pn_message_get_content_encoding),
    ("absolute-expiry-time", cproton.pn_message_get_expiry_time),  # ms
    ("creation-time", cproton.pn_message_get_creation_time),  # ms
    ("group-id", cproton.pn_message_get_group_id),
    ("group-sequence", cproton.pn_message_get_group_sequence),
    ("reply-to-group-id", cproton.pn_message_get_reply_to_group_id),
)
_TIMESTAMPS = frozenset(("absolute-expiry-time", "creation-time"))
#: header section: field -> (its proton getter, its default: left out when it holds that)
_HEADER: tuple[tuple[str, Callable[[Any], Any], Any], ...] = (
    ("durable", cproton.pn_message_is_durable, False),
    ("priority", cproton.pn_message_get_priority, 4),
    ("ttl", cproton.pn_message_get_ttl, 0),  # ms
    ("first-acquirer", cproton.pn_message_is_first_acquirer, False),
    ("delivery-count", cproton.pn_message_get_delivery_count, 0),
)
_HEADER_NAMES = frozenset(name for name, _, _ in _HEADER)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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


def check_sendable(msg: AmqpMessage) -> None:
    """``ValueError`` when proton cannot send ``msg`` as it is: a footer, or a properties or
    header field AMQP does not have."""
    if msg.footer:
        raise ValueError("python-qpid-proton cannot send an AMQP footer")
    for name in msg.properties:
        if name not in _ATTRIBUTES:
            raise ValueError(f"unknown AMQP properties field {name!r}")
    for name in msg.header:
        if name not in _HEADER_NAMES:
            raise ValueError(f"unknown AMQP header field {name!r}")


def to_proton(msg: AmqpMessage) -> Any:
    """A proton ``Message`` carrying every section of ``msg``."""
    check_sendable(msg)
    return _to_proton(msg)


def _encoded(msg: AmqpMessage) -> bytes:
    """``msg`` as proton encodes it for a transfer (``msg`` passed ``check_sendable``)."""
    encoded: bytes = _to_proton(msg).encode()  # a bytearray: streamed as it is
    return encoded


def _to_proton(msg: AmqpMessage) -> Any:
    out: Any = proton.Message()
    if msg.body is not None:
        out.body = msg.body
        out.inferred = True  # bytes -> one data section (not an amqp-value)
    for name, value in msg.properties.items():
        if name in _TIMESTAMPS:
            ms = _ms(value) if isinstance(value, datetime) else int(value)
            value = ms / 1000  # proton takes seconds
        setattr(out, _ATTRIBUTES[name], value)
    for name, value in msg.header.items():
        if name == "ttl":
            out.ttl = int(value) / 1000
        else:
            setattr(out, name.replace("-", "_"), value)
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
    handle = message._msg
    for name, get in _PROPERTIES:
        value = get(handle)
        if value is None or value == 0 or value == b"" or value == "":
            continue  # proton reports unset fields as None / 0 / empty
        if name in _TIMESTAMPS:
            value = _from_ms(value)
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
    handle = message._msg
    for name, get, default in _HEADER:
        value = get(handle)
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
# connection and link settings
# --------------------------------------------------------------------------------------------

_DURABILITY = {
    "none": proton.Terminus.NONDURABLE,
    "configuration": proton.Terminus.CONFIGURATION,
    "unsettled-state": proton.Terminus.DELIVERIES,
}
_EXPIRY = {
    "link-detach": proton.Terminus.EXPIRE_WITH_LINK,
    "session-end": proton.Terminus.EXPIRE_WITH_SESSION,
    "connection-close": proton.Terminus.EXPIRE_WITH_CONNECTION,
    "never": proton.Terminus.EXPIRE_NEVER,
}
_DISTRIBUTION = {
    "move": proton.Terminus.DIST_MODE_MOVE,
    "copy": proton.Terminus.DIST_MODE_COPY,
}
_SND_SETTLE = {
    "unsettled": proton.Link.SND_UNSETTLED,
    "settled": proton.Link.SND_SETTLED,
    "mixed": proton.Link.SND_MIXED,
}
_RCV_SETTLE = {"first": proton.Link.RCV_FIRST, "second": proton.Link.RCV_SECOND}
#: source filter keys whose string value is a JMS-style selector (described type)
_SELECTOR_KEYS = frozenset({"selector", "jms-selector"})
_SELECTOR = proton.symbol("apache.org:selector-filter:string")


def _pick(table: Mapping[str, Any], name: str, value: Any) -> Any:
    try:
        return table[value]
    except KeyError:
        raise ValueError(
            f"AMQP link setting {name}: {value!r} is not one of {sorted(table)}"
        ) from None


def _symbols(data: Any, values: Any) -> None:
    data.put_array(False, proton.Data.SYMBOL)
    data.enter()
    for value in values:
        data.put_symbol(str(value))
    data.exit()


class LinkSettings(ReceiverOption, SenderOption):
    """Terminus and link settings applied when a link attaches: ``properties`` (link
    properties), ``capabilities`` (terminus capabilities), ``durability`` (``none``,
    ``configuration``, ``unsettled-state``), ``expiry_policy`` (``link-detach``,
    ``session-end``, ``connection-close``, ``never``), ``timeout`` (seconds),
    ``distribution_mode`` (``move``, ``copy``; source), ``filters`` (source filter map; a
    ``selector``/``jms-selector`` string becomes an ``apache.org:selector-filter:string``),
    ``sender_settle_mode`` (``unsettled``, ``settled``,
    ``mixed``), ``receiver_settle_mode`` (``first``, ``second``). The terminus is the target of
    a sending link and the source of a receiving one."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = dict(settings)

    def test(self, link: Any) -> bool:
        """Both kinds of link (``ReceiverOption.test`` alone would skip sending links)."""
        return True

    def apply(self, link: Any) -> None:
        s = self.settings
        terminus = link.source if link.is_receiver else link.target
        if s.get("properties"):
            link.properties = {
                proton.symbol(str(k)): v for k, v in s["properties"].items()
            }
        if s.get("capabilities"):
            _symbols(terminus.capabilities, s["capabilities"])
        if s.get("durability") is not None:
            terminus.durability = _pick(_DURABILITY, "durability", s["durability"])
        if s.get("expiry_policy") is not None:
            terminus.expiry_policy = _pick(_EXPIRY, "expiry_policy", s["expiry_policy"])
        if s.get("timeout") is not None:
            terminus.timeout = int(s["timeout"])
        if link.is_receiver:
            if s.get("distribution_mode") is not None:
                terminus.distribution_mode = _pick(
                    _DISTRIBUTION, "distribution_mode", s["distribution_mode"]
                )
            if s.get("filters"):
                terminus.filter.put_dict(_filters(s["filters"]))
        if s.get("sender_settle_mode") is not None:
            link.snd_settle_mode = _pick(
                _SND_SETTLE, "sender_settle_mode", s["sender_settle_mode"]
            )
        if s.get("receiver_settle_mode") is not None:
            link.rcv_settle_mode = _pick(
                _RCV_SETTLE, "receiver_settle_mode", s["receiver_settle_mode"]
            )


def _filters(filters: Mapping[str, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in filters.items():
        if str(key) in _SELECTOR_KEYS and isinstance(value, str):
            value = proton.Described(_SELECTOR, value)
        out[proton.symbol(str(key))] = value
    return out


def _ssl_domain(tls: Mapping[str, Any]) -> Any:
    domain = proton.SSLDomain(proton.SSLDomain.MODE_CLIENT)
    if tls.get("ca_file"):
        domain.set_trusted_ca_db(tls["ca_file"])
        domain.set_peer_authentication(proton.SSLDomain.VERIFY_PEER_NAME)
    if tls.get("cert_file"):
        domain.set_credentials(
            tls["cert_file"],
            tls.get("key_file") or tls["cert_file"],
            tls.get("key_password"),
        )
    return domain


def connect_options(
    *,
    user: str | None = None,
    password: str | None = None,
    allowed_mechs: str | None = None,
    tls: Mapping[str, Any] | None = None,
    connection_properties: Mapping[str, Any] | None = None,
    connection_capabilities: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The keyword arguments of proton's ``Container.connect``: SASL credentials, TLS
    (``ca_file``, ``cert_file``, ``key_file``, ``key_password``), Open-frame properties and
    desired capabilities."""
    kwargs: dict[str, Any] = {}
    if user is not None or password is not None:
        kwargs["user"] = user or ""
        kwargs["password"] = password
    if allowed_mechs:
        kwargs["allowed_mechs"] = allowed_mechs
    if tls is not None:
        kwargs["ssl_domain"] = _ssl_domain(tls)
    if connection_properties:
        kwargs["properties"] = {
            proton.symbol(str(k)): v for k, v in connection_properties.items()
        }
    if connection_capabilities:
        kwargs["desired_capabilities"] = proton.SymbolList(
            [str(c) for c in connection_capabilities]
        )
    return kwargs


# --------------------------------------------------------------------------------------------
# sender and receiver
# --------------------------------------------------------------------------------------------


class AmqpSender(Sender):
    """Send ``AmqpMessage`` values over one AMQP 1.0 connection.

    Each message goes to ``msg.address`` or, when that is ``None``, to ``address`` (one link
    per target address). ``url`` is ``amqp://host:port`` (or a list, tried in order on each
    connect; user information in it is read by proton too); ``connection`` are the other
    ``connect_options`` (``user``, ``password``, ``allowed_mechs``, ``tls``,
    ``connection_properties``, ``connection_capabilities``); ``link`` the ``LinkSettings`` of
    every link. ``timeout`` bounds the first connection (``ConnectFailed``). A link sending
    pre-settled (``sender_settle_mode: settled``) gets no disposition: its futures resolve
    when the message is handed to the connection. ``encoder`` turns what ``send`` gets other
    than an ``AmqpMessage`` (a typed event) into one (an endpoint's sender sets it).
    """

    __slots__ = ("_io", "_address", "_encode", "_timeout")

    def __init__(
        self,
        url: str | Sequence[str],
        address: str | None = None,
        *,
        timeout: float = CONNECT_TIMEOUT,
        max_in_flight: int = 1000,
        link: Mapping[str, Any] | None = None,
        encoder: Encoder | None = None,
        **connection: Any,
    ) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        self._address = address
        self._timeout = timeout
        self._encode = encoder_or_refusal(encoder, AmqpMessage, "AmqpSender")
        options = [LinkSettings(link)] if link else None
        self._io = Sending(
            urls,
            connect_options(**connection),
            timeout,
            address,
            options,
            max_in_flight=max_in_flight,
            encode=_encoded,
        )
        self._io.start()

    def send(self, msg: AmqpMessage | Event[Any]) -> Future[Receipt]:
        """Send ``msg`` (an event is encoded first); the future resolves when the broker
        accepted it. Raises ``NotConnected`` at once while the connection is down."""
        if msg.__class__ is not AmqpMessage:
            msg = self._encode(msg)
        msg = cast(AmqpMessage, msg)
        check_sendable(msg)
        address = msg.address if msg.address is not None else self._address
        # made into a proton message by the connection's thread: the caller's thread then
        # makes no proton call, and the two do not take the GIL from each other per call
        return self._io.send(address, msg, self._timeout)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the broker settled every message sent so far.

        Raises the first failure since the last ``flush`` (``AmqpDeliveryError``: not
        accepted; ``NotConnected``: in flight when the connection dropped) once every future
        is resolved."""
        self._io.flush(timeout)

    def _release(self) -> None:
        """Close the connection."""
        self._io.stop(self._timeout)


class AmqpReceiver(PollingReceiver[Any, AmqpMessage]):
    """Receive from ``address`` with at most ``prefetch`` unsettled messages; accept after
    handling, release what is given back.

    ``dynamic`` asks the broker for a dynamic source node (``address`` ``None``); ``link``
    are the ``LinkSettings`` of the link, ``connection`` the other ``connect_options`` (see
    ``AmqpSender``). Messages the broker sends pre-settled (``sender_settle_mode: settled``)
    have nothing to accept or release. The connection reconnects by itself; a message
    received on a connection that has since dropped is not handed out (the broker sends it
    again).
    """

    __slots__ = ("_io", "_next", "_timeout")

    def __init__(
        self,
        url: str | Sequence[str],
        address: str | None,
        *,
        prefetch: int = 100,
        timeout: float = CONNECT_TIMEOUT,
        dynamic: bool = False,
        link: Mapping[str, Any] | None = None,
        **connection: Any,
    ) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        options = [LinkSettings(link)] if link else None
        self._timeout = timeout
        self._io = Receiving(
            urls,
            connect_options(**connection),
            timeout,
            address,
            options,
            prefetch=prefetch,
            dynamic=dynamic,
        )
        self._next = self._io.next
        self._io.start()

    def _poll(self, timeout: float) -> Any:
        item = self._next(timeout)
        if item is None or item[0] != self._io.generation:
            return None  # none, or its connection dropped: the broker sends it again
        return item

    def _convert(self, raw: Any) -> AmqpMessage:
        return from_proton(raw[2], self._io.address)

    @property
    def address(self) -> str | None:
        """The source node (for a dynamic source: the address the broker gave it)."""
        return self._io.address

    def _ack(self, raw: Any) -> None:
        if not self._io.presettled:
            self._io.outcome(raw[0], raw[1], proton.Delivery.ACCEPTED)

    def _nack(self, raw: Any) -> None:
        if not self._io.presettled:
            self._io.outcome(raw[0], raw[1], proton.Delivery.RELEASED)

    def _settle(self) -> None:
        """Send the settlements handed over so far (``run`` returns with them sent)."""
        self._io.flush_outcomes()

    def close(self) -> None:
        """Send the settlements so far, then close the link and the connection (unsettled
        messages return to the queue)."""
        self._io.stop(self._timeout)
