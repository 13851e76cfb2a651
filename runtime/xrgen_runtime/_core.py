"""Core runtime types of a generated xrgen package.

This file is copied verbatim (under a DO-NOT-EDIT header) into every generated package as
``<package>/_core.py``. It must import nothing outside the standard library and pydantic, and it
must stay ``mypy --strict`` clean and black-formatted.

Contents:
- ``DecodeError``: the only exception a codec's ``decode`` raises; ``reason`` is a stable code.
- Protocol metadata (``*Binding``) carried by events, and wire messages (``*Message``) produced and
  consumed by the codecs in ``bindings/``.
- ``Event``: a CloudEvent (or plain protocol message) with canonical attribute values.
- ``UriTemplate``: RFC 6570 level-1 expansion and matching.
- ``AttrDef`` / ``OptionDef`` / ``MessageDef``: the data description of one message definition
  that the generated ``consumer.py`` and ``spark.py`` hand to the generic engines.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar
from urllib.parse import quote, unquote

from pydantic import BaseModel
from pydantic_core import to_json

from .formats import encode_payload

__all__ = [
    "CACHE_KEY_MAX",
    "CORE_ATTRIBUTE_KINDS",
    "DETAIL_MAX",
    "REQUIRED_ATTRIBUTES",
    "SPECVERSION",
    "AmqpBinding",
    "AmqpMessage",
    "AttrDef",
    "AttrValue",
    "Binding",
    "DecodeError",
    "Event",
    "HttpBinding",
    "HttpMessage",
    "KafkaBinding",
    "KafkaMessage",
    "MessageDef",
    "MqttBinding",
    "MqttMessage",
    "NatsBinding",
    "NatsMessage",
    "OptionDef",
    "PulsarBinding",
    "PulsarMessage",
    "RocketMqBinding",
    "RocketMqMessage",
    "UriTemplate",
    "WireMessage",
    "bounded_detail",
    "check_decoded",
    "check_event",
    "coerce_attribute",
    "data_bytes",
    "encode_data",
    "format_time",
    "is_attribute_name",
    "is_json_content_type",
    "is_media_type",
    "model_json",
    "new_id",
    "parse_attribute",
    "parse_time",
    "to_canonical",
]

T = TypeVar("T")

#: Canonical Python types of CloudEvents attribute values:
#: String/URI/URI-reference -> str, Integer -> int, Boolean -> bool, Binary -> bytes,
#: Timestamp -> timezone-aware datetime.
AttrValue = str | int | bool | bytes | datetime


#: the longest dead-letter detail (and ``DecodeError.detail``), in characters
DETAIL_MAX = 4096
_TRUNCATED = " ...(truncated)"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _escape_control(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def bounded_detail(text: str) -> str:
    """``text`` as one line of at most ``DETAIL_MAX`` characters: control characters (CR, LF,
    NUL, DEL, C1, U+2028/2029) written as ``\\xNN``/``\\uNNNN``, the rest cut off with a
    ``...(truncated)`` mark. Safe to put into a log line; linear in ``DETAIL_MAX``."""
    cut = len(text) > DETAIL_MAX
    if cut:
        text = text[:DETAIL_MAX]
    if _CONTROL.search(text) is not None:
        text = _CONTROL.sub(_escape_control, text)
        cut = cut or len(text) > DETAIL_MAX
    if cut:
        text = text[: DETAIL_MAX - len(_TRUNCATED)] + _TRUNCATED
    return text


class DecodeError(ValueError):
    """A wire message or event body that cannot be decoded.

    ``reason`` is a stable, machine-readable code (e.g. ``"invalid-json"``,
    ``"missing-attribute"``, ``"invalid-specversion"``, ``"invalid-attribute"``,
    ``"invalid-encoding"``, ``"unsupported-format"``); ``detail`` is for humans: one line of
    at most ``DETAIL_MAX`` characters (see :func:`bounded_detail`), whatever the input.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        if len(detail) > 200 or _CONTROL.search(detail) is not None:
            detail = bounded_detail(detail)
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


# --------------------------------------------------------------------------------------------
# Protocol metadata carried by an event (filled by producers from the message definition's
# protocol options; filled by decoders from the wire message).
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KafkaBinding:
    topic: str | None = None
    key: bytes | None = None
    partition: int | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, bytes | None], ...] = ()


@dataclass(frozen=True, slots=True)
class AmqpBinding:
    #: target node address (AMQP ``to`` / link target) when known
    address: str | None = None
    #: AMQP properties section by AMQP field name (``message-id``, ``subject``, ``to``, ...)
    properties: Mapping[str, Any] = field(default_factory=dict)
    #: application-properties that are not CloudEvents attributes
    application_properties: Mapping[str, Any] = field(default_factory=dict)
    message_annotations: Mapping[str, Any] = field(default_factory=dict)
    header: Mapping[str, Any] = field(default_factory=dict)
    footer: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MqttBinding:
    topic: str | None = None
    qos: int = 0
    retain: bool = False
    #: "5.0" or "3.1.1"
    version: str = "5.0"
    #: user properties that are not CloudEvents attributes
    user_properties: tuple[tuple[str, str], ...] = ()
    content_type: str | None = None
    response_topic: str | None = None
    correlation_data: bytes | None = None
    message_expiry_interval: int | None = None
    payload_format_indicator: int | None = None


@dataclass(frozen=True, slots=True)
class NatsBinding:
    subject: str | None = None
    reply: str | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class HttpBinding:
    method: str | None = None
    #: path without query string
    path: str | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, str], ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    status: int | None = None


@dataclass(frozen=True, slots=True)
class PulsarBinding:
    topic: str | None = None
    partition_key: str | None = None
    #: non-CloudEvents properties
    properties: Mapping[str, str] = field(default_factory=dict)
    event_time: int | None = None


@dataclass(frozen=True, slots=True)
class RocketMqBinding:
    topic: str | None = None
    tag: str | None = None
    keys: tuple[str, ...] = ()
    #: non-CloudEvents user properties
    properties: Mapping[str, str] = field(default_factory=dict)


Binding = (
    KafkaBinding
    | AmqpBinding
    | MqttBinding
    | NatsBinding
    | HttpBinding
    | PulsarBinding
    | RocketMqBinding
)


# --------------------------------------------------------------------------------------------
# Wire messages: what the codecs produce and consume, and what the adapters move.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KafkaMessage:
    topic: str
    key: bytes | None
    #: ``None`` is a tombstone (binary-mode event without data)
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    partition: int | None = None


@dataclass(frozen=True, slots=True)
class AmqpMessage:
    body: bytes | None
    #: properties section by AMQP field name: ``message-id``, ``user-id``, ``to``, ``subject``,
    #: ``reply-to``, ``correlation-id``, ``content-type``, ``content-encoding``,
    #: ``absolute-expiry-time``, ``creation-time``, ``group-id``, ``group-sequence``,
    #: ``reply-to-group-id``
    properties: Mapping[str, Any] = field(default_factory=dict)
    #: values are AMQP-native Python values: bool, int, float, str, bytes, datetime (timestamp)
    application_properties: Mapping[str, Any] = field(default_factory=dict)
    message_annotations: Mapping[str, Any] = field(default_factory=dict)
    header: Mapping[str, Any] = field(default_factory=dict)
    footer: Mapping[str, Any] = field(default_factory=dict)
    #: link target address the message is sent to / was received from (not a message section)
    address: str | None = None


@dataclass(frozen=True, slots=True)
class MqttMessage:
    topic: str
    payload: bytes
    qos: int = 0
    retain: bool = False
    #: "5.0" or "3.1.1"
    version: str = "5.0"
    content_type: str | None = None
    user_properties: tuple[tuple[str, str], ...] = ()
    response_topic: str | None = None
    correlation_data: bytes | None = None
    message_expiry_interval: int | None = None
    payload_format_indicator: int | None = None


@dataclass(frozen=True, slots=True)
class NatsMessage:
    subject: str
    payload: bytes
    headers: tuple[tuple[str, str], ...] = ()
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class HttpMessage:
    method: str
    #: request target: path plus optional ``?query``
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    #: response status for responses; ``None`` for requests
    status: int | None = None


@dataclass(frozen=True, slots=True)
class PulsarMessage:
    topic: str
    payload: bytes
    properties: Mapping[str, str] = field(default_factory=dict)
    partition_key: str | None = None
    #: event time in milliseconds since the epoch
    event_time: int | None = None


@dataclass(frozen=True, slots=True)
class RocketMqMessage:
    topic: str
    body: bytes
    properties: Mapping[str, str] = field(default_factory=dict)
    tag: str | None = None
    keys: tuple[str, ...] = ()


WireMessage = (
    KafkaMessage
    | AmqpMessage
    | MqttMessage
    | NatsMessage
    | HttpMessage
    | PulsarMessage
    | RocketMqMessage
)


# Positional constructors for the frozen dataclasses that the codecs build once per message.
# A frozen dataclass's ``__init__`` assigns each field through ``object.__setattr__`` (to get
# past its own ``__setattr__``, which raises); calling each slot's descriptor ``__set__``
# directly does the same assignment in about 60% of the time. The instances are identical.
# Arguments: every field, in declaration order (the classes built here have 4 or 5 fields).


def _builder(cls: type[T]) -> Callable[..., T]:
    new = object.__new__
    setters = [getattr(cls, f.name).__set__ for f in fields(cls)]  # type: ignore[arg-type]
    if len(setters) not in (4, 5):
        raise TypeError(
            f"_builder: {cls.__name__} has {len(setters)} fields, not 4 or 5"
        )
    s0, s1, s2, s3 = setters[:4]
    s4 = setters[4] if len(setters) == 5 else None

    def build(a: Any, b: Any, c: Any, d: Any, e: Any = None) -> T:
        o = new(cls)
        s0(o, a)
        s1(o, b)
        s2(o, c)
        s3(o, d)
        if s4 is not None:
            s4(o, e)
        return o

    return build


#: ``KafkaBinding(topic, key, partition, headers)``
new_kafka_binding: Callable[..., KafkaBinding] = _builder(KafkaBinding)
#: ``KafkaMessage(topic, key, value, headers, partition)``
new_kafka_message: Callable[..., KafkaMessage] = _builder(KafkaMessage)
#: ``HttpBinding(method, path, headers, query, status)``
new_http_binding: Callable[..., HttpBinding] = _builder(HttpBinding)
#: ``HttpMessage(method, path, headers, body, status)``
new_http_message: Callable[..., HttpMessage] = _builder(HttpMessage)


# --------------------------------------------------------------------------------------------
# Event
# --------------------------------------------------------------------------------------------


class Event(Generic[T]):
    """A CloudEvent, or a plain protocol message when ``attributes`` is empty.

    ``attributes`` maps CloudEvents attribute names (``specversion``, ``id``, ``source``,
    ``type``, ``time``, ``datacontenttype``, extensions, ...) to canonical Python values
    (see ``AttrValue``). ``data`` is the payload: a pydantic model instance for produced or
    validated events; after ``decode`` it is ``bytes`` (binary mode, ``data_base64``) or the JSON
    value of a structured event's ``data`` member; ``None`` means no data. ``binding`` is the
    protocol metadata (topic, key, qos, headers, ...).
    """

    __slots__ = ("attributes", "data", "binding")

    def __init__(
        self,
        attributes: dict[str, AttrValue],
        data: T,
        binding: Binding | None = None,
    ) -> None:
        self.attributes = attributes
        self.data = data
        self.binding = binding

    @property
    def type(self) -> str | None:
        v = self.attributes.get("type")
        return v if isinstance(v, str) else None

    @property
    def id(self) -> str | None:
        v = self.attributes.get("id")
        return v if isinstance(v, str) else None

    @property
    def source(self) -> str | None:
        v = self.attributes.get("source")
        return v if isinstance(v, str) else None

    @property
    def datacontenttype(self) -> str | None:
        v = self.attributes.get("datacontenttype")
        return v if isinstance(v, str) else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (
            self.attributes == other.attributes
            and self.data == other.data
            and self.binding == other.binding
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Event(attributes={self.attributes!r}, data={self.data!r}, binding={self.binding!r})"


def data_bytes(event: Event[Any]) -> bytes | None:
    """The payload of ``event`` as bytes, or ``None`` when it has no data.

    pydantic models serialize in the format of the event's ``datacontenttype`` (see
    ``xrgen_runtime.formats``): JSON with wire names and without fields the caller never set
    when it is JSON or absent, else the model's registered codec (Avro, Protobuf, XML);
    ``bytes`` pass through; ``str`` is UTF-8 encoded; other values are JSON.
    """
    data = event.data
    if isinstance(data, BaseModel):
        ct = event.attributes.get("datacontenttype")
        if ct is not None and ct != "application/json":
            encoded = encode_payload(data, ct if isinstance(ct, str) else None, event)
            if encoded is not None:
                return encoded[0]
        return model_json(data)
    return encode_data(data)[0]


def encode_data(data: object) -> tuple[bytes | None, bool]:
    """``(payload bytes or None, whether the codec serialized the payload as JSON)``.

    The flag is true for pydantic models and plain JSON values (dict, list, numbers, ...),
    whose implied content type is ``application/json``; it is false for ``bytes`` (opaque) and
    ``str`` (text, UTF-8 encoded).
    """
    if data is None:
        return None, False
    if type(data) is bytes:
        return data, False
    if isinstance(data, BaseModel):
        return model_json(data), True
    if isinstance(data, str):
        return data.encode(), False
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data), False
    return to_json(data), True


def model_json(model: BaseModel) -> bytes:
    """The JSON document of a pydantic model: wire names, only fields the caller set.

    Same output as ``model_dump_json(by_alias=True, exclude_unset=True)``, as bytes directly.
    """
    return model.__pydantic_serializer__.to_json(
        model, by_alias=True, exclude_unset=True
    )


# --------------------------------------------------------------------------------------------
# Canonical attribute values (CloudEvents spec.md, "Type System")
# --------------------------------------------------------------------------------------------


#: xRegistry/CloudEvents kind of every core attribute (spec.md "Context Attributes").
CORE_ATTRIBUTE_KINDS: Mapping[str, str] = {
    "specversion": "string",
    "id": "string",
    "source": "urireference",
    "type": "string",
    "datacontenttype": "string",
    "dataschema": "uri",
    "subject": "string",
    "time": "timestamp",
}
#: Attributes every CloudEvent carries (spec.md "REQUIRED Attributes").
REQUIRED_ATTRIBUTES = ("specversion", "id", "source", "type")
SPECVERSION = "1.0"
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

_NAME = re.compile(r"[a-z0-9]+")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_JSON_TYPES: dict[str, bool] = {}
#: Python >= 3.11: ``fromisoformat`` reads ``Z`` and any fraction length
_FROMISO_Z = sys.version_info >= (3, 11)


def is_attribute_name(name: str) -> bool:
    """Whether ``name`` is a valid attribute name: ``[a-z0-9]+`` and not ``data``.

    spec.md "Attribute Naming Convention": lower-case ASCII letters or digits, at least one
    character, and (1.0.3-wip) not ``data``.
    """
    return _NAME.fullmatch(name) is not None and name != "data"


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
#: (days, seconds) since the epoch and "YYYY-MM-DDTHH:MM:SS" of the last formatted time: events
#: produced "now" share their second, so format_time mostly only appends the fraction. One
#: tuple, replaced atomically, so threads never see a key with another key's text.
_LAST_SECOND: tuple[int, int, str] = (0, -1, "")


def format_time(value: datetime) -> str:
    """RFC 3339 text of ``value`` in UTC with a ``Z`` suffix (naive values count as UTC)."""
    global _LAST_SECOND
    # ``value - epoch`` is the UTC instant as (days, seconds, microseconds) in one C call,
    # whatever the offset; the date/clock text is formatted once per distinct second.
    try:
        delta = value - _EPOCH
    except TypeError:  # naive (or a tzinfo without an offset): counts as UTC
        value = value.replace(tzinfo=None)
        delta = value - _EPOCH_NAIVE
    days, seconds = delta.days, delta.seconds
    last = _LAST_SECOND
    if last[1] != seconds or last[0] != days:
        if value.tzinfo is not None and value.utcoffset():
            value = value.astimezone(timezone.utc)
        last = _LAST_SECOND = (
            days,
            seconds,
            "%04d-%02d-%02dT%02d:%02d:%02d"  # noqa: UP031 (fastest)
            % (
                value.year,
                value.month,
                value.day,
                value.hour,
                value.minute,
                value.second,
            ),
        )
    micro = delta.microseconds
    if micro:
        return "%s.%06dZ" % (last[2], micro)  # noqa: UP031 (fastest)
    return last[2] + "Z"


#: digits -> "0": the shapes below are the canonical RFC 3339 forms (``T``, ``Z`` or an
#: offset, 0-9 fraction digits) that ``datetime.fromisoformat`` reads exactly like RFC 3339
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_TIME_SHAPES = frozenset(
    b"0000-00-00T00:00:00" + (b"." + b"0" * n if n else b"") + offset
    for n in range(10)
    for offset in (b"Z", b"+00:00", b"-00:00")
)


def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 timestamp into an aware ``datetime``; ``ValueError`` if invalid.

    A strict RFC 3339 ``date-time`` regex, then ``datetime.fromisoformat`` (directly where it
    understands the text, else on a normalized form; fractions beyond microseconds are
    truncated).
    """
    # Fast path: the usual shapes (checked with one C translate, cheaper than the regex);
    # non-ASCII digits never map to b"0", so they take the strict path below.
    if _FROMISO_Z and text.encode().translate(_DIGITS_TO_ZERO) in _TIME_SHAPES:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass  # e.g. month 13: the slow path gives the same verdict
    m = _TIME.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    if _FROMISO_Z:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass
    date, clock, frac, offset = m.groups()
    if frac is not None:
        clock += frac[:7].ljust(7, "0")
    if offset in ("Z", "z"):
        offset = "+00:00"
    return datetime.fromisoformat(date + "T" + clock + offset)


#: ids for the next ``new_id`` calls; emptied in a forked child so parent and child never hand
#: out the same ids
_ID_POOL: list[str] = []
_ID_BATCH = 128
#: (position in the 36-character id, index of its digit among the 32 hex digits of the
#: 16 random bytes) for the 30 digits that are copied unchanged: all but the dashes (8, 13, 18,
#: 23), the version digit (14, always "4") and the variant digit (19)
_ID_DIGITS = [
    (pos, pos - sum(pos > dash for dash in (8, 13, 18, 23)))
    for pos in range(36)
    if pos not in (8, 13, 14, 18, 19, 23)
]
#: the variant digit: RFC 4122 variant bits ``10`` and the digit's 2 low random bits
_ID_VARIANT = bytes.maketrans(b"0123456789abcdef", b"89ab89ab89ab89ab")
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_ID_POOL.clear)


def _fill_ids() -> None:
    """Add ``_ID_BATCH`` ids to the pool (the same as ``str(uuid.UUID(bytes=b, version=4))``
    for 16 fresh ``os.urandom`` bytes ``b`` each).

    The ids are written as lines of 37 bytes: every character position is filled for all
    ids at once with one strided slice assignment (C loops), not one f-string per id.
    """
    n = _ID_BATCH
    digits = binascii.hexlify(os.urandom(16 * n))  # 32 hex digits per id
    out = bytearray(37 * n)
    for pos, index in _ID_DIGITS:
        out[pos::37] = digits[index::32]
    out[14::37] = b"4" * n
    out[19::37] = digits[16::32].translate(_ID_VARIANT)
    out[8::37] = out[13::37] = out[18::37] = out[23::37] = b"-" * n
    out[36::37] = b"\n" * n
    _ID_POOL.extend(out.decode("ascii").split())


def new_id() -> str:
    """A random (version 4) UUID in canonical form, as ``str(uuid.uuid4())``.

    122 random bits from ``os.urandom``, version nibble 4, variant bits 10, lower-case
    8-4-4-4-12 hex. Faster than ``uuid.uuid4()`` because the random bytes are read (and
    formatted) for ``_ID_BATCH`` ids at a time; ``list.pop`` is atomic, so threads never
    share an id.
    """
    try:
        return _ID_POOL.pop()
    except IndexError:
        _fill_ids()
        return _ID_POOL.pop()


def to_canonical(value: AttrValue) -> str:
    """Canonical string form of an attribute value (spec.md "Type System").

    Boolean ``true``/``false``; Integer in the 32-bit range as decimal; Timestamp RFC 3339
    with ``Z``; Binary as base64 (RFC 4648); String, URI and URI-reference as is.
    ``ValueError`` for an out-of-range Integer, ``TypeError`` for an unsupported type.
    """
    t = type(value)
    if t is str:
        return value  # type: ignore[return-value]
    if t is datetime:  # ``time``, on every event
        return format_time(value)  # type: ignore[arg-type]
    if t is bool:
        return "true" if value else "false"
    if t is int:
        if not INT32_MIN <= value <= INT32_MAX:  # type: ignore[operator]
            raise ValueError(f"integer attribute value out of 32-bit range: {value!r}")
        return str(value)
    if isinstance(value, datetime):
        return format_time(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return to_canonical(int(value))
    raise TypeError(f"not a CloudEvents attribute value: {type(value).__name__}")


def parse_attribute(name: str, text: str, kind: str | None = None) -> AttrValue:
    """Parse the canonical string ``text`` of attribute ``name`` of the given ``kind``.

    ``kind`` defaults to the core attribute's kind, else ``string`` (unknown extensions stay
    strings). Kinds: ``string``, ``uritemplate``, ``uri``, ``urireference``, ``timestamp``,
    ``integer``, ``boolean``, ``binary``. Raises ``DecodeError("invalid-attribute")``.
    """
    if kind is None:
        kind = CORE_ATTRIBUTE_KINDS.get(name, "string")
    try:
        if kind == "timestamp":
            return parse_time(text)
        if kind == "boolean":
            if text == "true" or text == "false":
                return text == "true"
            raise ValueError("boolean must be 'true' or 'false'")
        if kind == "integer":
            if _INTEGER.fullmatch(text) is None:
                raise ValueError("not an integer")
            number = int(text)
            if not INT32_MIN <= number <= INT32_MAX:
                raise ValueError("integer out of 32-bit range")
            return number
        if kind == "binary":
            return base64.b64decode(text, validate=True)
        if kind == "uri" and _URI_SCHEME.match(text) is None:
            raise ValueError("not an absolute URI")
    except (ValueError, TypeError) as exc:
        raise DecodeError("invalid-attribute", f"{name}: {exc}") from None
    return text


def coerce_attribute(name: str, value: AttrValue, kind: str) -> AttrValue:
    """Convert a decoded attribute value to the canonical Python type of ``kind``.

    Strings are parsed (``parse_attribute``); values that already have the right type pass
    through. Used by consumers that know an extension's declared kind. Raises
    ``DecodeError("invalid-attribute")`` on a mismatch.
    """
    if isinstance(value, str):
        return parse_attribute(name, value, kind)
    expected = _KIND_TYPES.get(kind, str)
    if isinstance(value, expected) and (kind != "integer" or type(value) is not bool):
        return value
    raise DecodeError("invalid-attribute", f"{name}: expected {kind}")


_KIND_TYPES: dict[str, type | tuple[type, ...]] = {
    "timestamp": datetime,
    "boolean": bool,
    "integer": int,
    "binary": bytes,
}


def is_json_content_type(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes JSON (json-format.md section 3.1).

    Absent means JSON; otherwise the media type, stripped of parameters and whitespace,
    compared case-insensitively, must have the form ``*/json`` or ``*/*+json``.
    """
    if content_type is None:
        return True
    known = _JSON_TYPES.get(content_type)
    if known is not None:
        return known
    media = content_type.split(";", 1)[0].strip().lower()
    result = "/" in media and (
        media.endswith("/json") or (media.endswith("+json") and "/" in media[:-5])
    )
    if len(content_type) <= CACHE_KEY_MAX and len(_JSON_TYPES) < 1024:
        _JSON_TYPES[content_type] = result
    return result


def check_event(attributes: Mapping[str, AttrValue]) -> None:
    """``ValueError`` unless ``attributes`` hold the required attributes of a CloudEvent.

    Encoders call this for every non-plain event: ``specversion`` must be ``"1.0"`` and
    ``id``, ``source``, ``type`` must be non-empty strings.
    """
    if attributes.get("specversion") != SPECVERSION:
        raise ValueError(
            f"event specversion must be '1.0', got {attributes.get('specversion')!r}"
        )
    for name in ("id", "source", "type"):
        value = attributes.get(name)
        if value.__class__ is str and value:
            continue  # the common case, without isinstance
        if not value or not isinstance(value, str):
            raise ValueError(f"event attribute {name!r} must be a non-empty string")


def _check_required(attributes: dict[str, AttrValue]) -> None:
    """The ``DecodeError`` for a bad ``specversion``, ``id``, ``source`` or ``type``."""
    spec = attributes.get("specversion")
    if spec != SPECVERSION:
        if spec is None:
            raise DecodeError("missing-attribute", "specversion")
        raise DecodeError("invalid-specversion", repr(spec))
    for name in ("id", "source", "type"):
        value = attributes.get(name)
        if type(value) is not str:
            if value is None:
                raise DecodeError("missing-attribute", name)
            if not isinstance(value, str):
                raise DecodeError("invalid-attribute", f"{name}: must be a string")
        if not value:
            raise DecodeError("invalid-attribute", f"{name}: must not be empty")


def check_decoded(attributes: dict[str, AttrValue]) -> dict[str, AttrValue]:
    """Validate and finish attributes decoded from a wire message (in place).

    ``specversion`` must be ``"1.0"``; ``id``, ``source``, ``type`` must be present and
    non-empty strings (nothing is invented); ``time`` text is parsed into a ``datetime``;
    optional core attributes, when present, must be non-empty strings. Raises ``DecodeError``.
    """
    get = attributes.get
    ident, source, etype = get("id"), get("source"), get("type")
    # the common case in one expression; anything else gets the detailed checks
    if not (
        get("specversion") == SPECVERSION
        and ident.__class__ is str
        and ident
        and source.__class__ is str
        and source
        and etype.__class__ is str
        and etype
    ):
        _check_required(attributes)
    time = get("time")
    if isinstance(time, str):
        # ``parse_attribute("time", time, "timestamp")`` without its dispatch on the kind
        try:
            attributes["time"] = parse_time(time)
        except (ValueError, TypeError) as exc:
            raise DecodeError("invalid-attribute", f"time: {exc}") from None
    elif time is not None:
        if not isinstance(time, datetime):
            raise DecodeError("invalid-attribute", "time: must be a timestamp")
        if time.tzinfo is None:
            attributes["time"] = time.replace(tzinfo=timezone.utc)
    # the usual optional attributes in one expression (the loop would accept them): a
    # non-empty datacontenttype string or none, no dataschema, no subject
    content_type = get("datacontenttype")
    if (
        get("dataschema") is None
        and get("subject") is None
        and (
            content_type is None
            or (content_type.__class__ is str and is_media_type(content_type))
        )
    ):
        return attributes
    for name in ("datacontenttype", "dataschema", "subject"):
        value = get(name)
        if value is None:
            continue
        if not value or not isinstance(value, str):
            raise DecodeError(
                "invalid-attribute", f"{name}: must be a non-empty string"
            )
        if name == "dataschema":
            parse_attribute(name, value, "uri")
        elif name == "datacontenttype" and not is_media_type(value):
            raise DecodeError(
                "invalid-attribute", "datacontenttype: not an RFC 2046 media type"
            )
    return attributes


#: Runtime caches (of content types, header and attribute names: texts from the wire) keep
#: keys up to ``CACHE_KEY_MAX`` characters and at most a few thousand entries, so each is
#: bounded in bytes (4,096 keys of 256 characters: at most about 4 MB, 1.2 MB for ASCII),
#: whatever the input: longer keys are computed every time instead of cached.
CACHE_KEY_MAX = 256

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"'
#: RFC 2046 / RFC 7231 section 3.1.1.1: ``type "/" subtype *( OWS ";" OWS parameter )``
#: (every repetition starts with a character its neighbours cannot take: linear)
_MEDIA_TYPE = re.compile(
    rf"{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))*[ \t]*"
)
#: media types seen valid (bounded in bytes, see ``CACHE_KEY_MAX``)
_MEDIA_TYPES_OK: set[str] = set()


def is_media_type(text: str) -> bool:
    """Whether ``text`` is an RFC 2046 media type (``type/subtype`` and parameters)."""
    if text in _MEDIA_TYPES_OK:
        return True
    if _MEDIA_TYPE.fullmatch(text) is None:
        return False
    if len(text) <= CACHE_KEY_MAX and len(_MEDIA_TYPES_OK) < 1024:
        _MEDIA_TYPES_OK.add(text)
    return True


# --------------------------------------------------------------------------------------------
# RFC 6570 level-1 URI templates
# --------------------------------------------------------------------------------------------

_VAR = re.compile(r"\{([^{}]*)\}")
_UNRESERVED_TEXT = re.compile(r"[A-Za-z0-9\-._~]*")
#: what a placeholder's expansion consists of: unreserved characters and ``%XX`` triplets
#: (a single character class: linear, nothing to backtrack)
_EXPANSION = re.compile(r"[A-Za-z0-9\-._~%]*")
_EXPANSION_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%"
)


def pct_encode_unreserved(value: str) -> str:
    """Percent-encode every character that is not RFC 3986 *unreserved* (RFC 6570 level 1).

    ``urllib.parse.quote`` with ``safe=""`` keeps exactly the unreserved set (letters, digits,
    ``-._~``) and writes upper-case hex; already-safe values skip it."""
    if _UNRESERVED_TEXT.fullmatch(value):
        return value
    return quote(value, safe="")


def pct_decode(raw: str) -> str | None:
    """A placeholder's expansion with its ``%XX`` triplets decoded (``None``: not UTF-8)."""
    if "%" not in raw:
        return raw
    try:
        return unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None


class UriTemplate:
    """An RFC 6570 level-1 template (``{var}`` simple string expansion only).

    ``expand`` percent-encodes every value; ``match`` is the inverse: it returns the
    percent-decoded placeholder values, or ``None`` when the text does not fit the template.

    Matching takes time linear in the text and uses no backtracking regex. A placeholder's
    expansion consists of unreserved characters and ``%XX`` triplets; the literal text after
    each placeholder is placed at its leftmost occurrence (the gap before it must be such an
    expansion), and the last placeholder takes the rest up to the final literal. Every
    expansion of the template matches. When an expansion is ambiguous (a value contains the
    literal that follows its placeholder, as ``.`` in ``{a}.{b}`` with ``a = "x.y"``), the
    tie-break is *leftmost-shortest*: each placeholder, in order, takes the shortest value that
    lets the rest match (``x.y.z`` gives ``a="x"``, ``b="y.z"``). A template is
    :attr:`unambiguous` when no placeholder is followed by a literal that an expansion may
    contain. A placeholder used twice carries one value: its later occurrences must repeat the
    text of the first, which is matched leftmost-shortest like any other (so an expansion such
    as ``x.y.x.y`` of ``{a}.{a}`` is not found: the only ambiguity a match can miss).
    ``match(text, known)`` matches placeholders whose values are already
    known (from another attribute) as their expansion, which settles an ambiguity that the
    other attribute fixes.
    """

    __slots__ = (
        "text",
        "names",
        "ambiguity",
        "unambiguous",
        "_literals",
        "_slots",
        "_tokens",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str] = []
        names: list[str] = []
        pos = 0
        for m in _VAR.finditer(text):
            parts.append(text[pos : m.start()])
            name = m.group(1)
            parts.append(name)
            if name not in names:
                names.append(name)
            pos = m.end()
        parts.append(text[pos:])
        self.names: tuple[str, ...] = tuple(names)
        #: literal text around the placeholders, and the placeholder of each slot
        self._literals: tuple[str, ...] = tuple(parts[0::2])
        self._slots: tuple[str, ...] = tuple(parts[1::2])
        #: (is placeholder, name or literal text), empty literals left out
        self._tokens: tuple[tuple[bool, str], ...] = tuple(
            (i % 2 == 1, p) for i, p in enumerate(parts) if p or i % 2 == 1
        )
        #: how many placeholders may have several readings: followed by a literal that an
        #: expansion may contain (or by another placeholder), or repeated
        self.ambiguity = (
            len(self._slots)
            - len(names)
            + sum(
                not literal or literal[0] in _EXPANSION_CHARS
                for literal in self._literals[1:-1]
            )
        )
        self.unambiguous = self.ambiguity == 0

    def expand(self, values: Mapping[str, object]) -> str:
        """The template with each placeholder's value percent-encoded; a placeholder without
        a value stays as written."""
        literals = self._literals
        out = [literals[0]]
        for name, literal in zip(self._slots, literals[1:], strict=True):
            if name in values:
                out.append(pct_encode_unreserved(str(values[name])))
            else:
                out.append("{" + name + "}")
            out.append(literal)
        return "".join(out)

    def match(
        self, text: str, known: Mapping[str, str] | None = None
    ) -> dict[str, str] | None:
        """The percent-decoded placeholder values of ``text``; ``None`` when it does not fit.

        ``known``: values of some placeholders fixed elsewhere; ``text`` must carry the same
        values (they are part of the result).
        """
        if known and not known.keys().isdisjoint(self.names):
            fixed = {
                name: pct_encode_unreserved(known[name])
                for name in self.names
                if name in known
            }
            raw = self._split(text, fixed)
            if raw is None:
                # the text may encode a known value in another way (``%2e`` for ``.``)
                raw = self._split(text, {})
            values = _decode_all(raw)
            if values is None or any(
                known.get(name, value) != value for name, value in values.items()
            ):
                return None
            return values
        return _decode_all(self._split(text, {}))

    def _split(self, text: str, fixed: dict[str, str]) -> dict[str, str] | None:
        """The raw (still percent-encoded) text of each placeholder, leftmost-shortest.

        ``fixed``: placeholder -> the expansion it must have (a literal). Linear in ``text``:
        one forward scan (``str.find``) per literal run plus one character-class check per
        placeholder value.
        """
        raw: dict[str, str] = dict(fixed)
        pos = 0
        pending: str | None = (
            None  # the placeholder whose value ends at the next literal
        )
        run: list[str] = []  # literal text since the last free placeholder
        for is_slot, value in self._tokens:
            if not is_slot:
                run.append(value)
                continue
            expansion = raw.get(value)
            if expansion is not None:
                run.append(expansion)  # a repeated or known placeholder: literal text
                continue
            literal = "".join(run)
            run.clear()
            if pending is None:
                if not text.startswith(literal, pos):
                    return None
            else:
                at = text.find(literal, pos)
                if at < 0 or not _EXPANSION.fullmatch(text, pos, at):
                    return None
                raw[pending] = text[pos:at]
                pos = at
            pos += len(literal)
            expansion = raw.get(value)
            if expansion is not None:  # the placeholder that just ended, repeated
                run.append(expansion)
                pending = None
            else:
                pending = value
        tail = "".join(run)
        if pending is None:
            return raw if text[pos:] == tail else None
        end = len(text) - len(tail)
        if (
            end < pos
            or not text.endswith(tail)
            or not _EXPANSION.fullmatch(text, pos, end)
        ):
            return None
        raw[pending] = text[pos:end]
        return raw

    def __repr__(self) -> str:
        return f"UriTemplate({self.text!r})"


def _decode_all(raw: dict[str, str] | None) -> dict[str, str] | None:
    """Each placeholder's raw text percent-decoded (``None`` if one is not UTF-8)."""
    if raw is None:
        return None
    values: dict[str, str] = {}
    for name, text in raw.items():
        value = pct_decode(text)
        if value is None:
            return None
        values[name] = value
    return values


# --------------------------------------------------------------------------------------------
# Message definitions as data (for the generic dispatch and Spark engines)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttrDef:
    """One CloudEvents attribute declared by a message definition.

    ``kind`` is the xRegistry attribute type: ``string``, ``uritemplate``, ``uri``,
    ``urireference``, ``timestamp``, ``integer``, ``boolean``, ``binary``.
    ``value`` is the constant the attribute must carry (``None``: free), or for
    ``uritemplate`` the template text.
    """

    name: str
    kind: str = "string"
    required: bool = False
    value: str | int | bool | None = None


@dataclass(frozen=True, slots=True)
class OptionDef:
    """One protocol option of a message definition, as a constant or a template to match.

    ``path`` addresses a field of the protocol's ``*Binding`` dataclass, then (for mapping- or
    pair-valued fields) a key: ``("topic",)``, ``("properties", "subject")``,
    ``("application_properties", "x-kind")``, ``("user_properties", "k")``,
    ``("headers", "x-h")``, ``("method",)``, ``("path",)``. ``template`` says whether ``value``
    is an RFC 6570 template (its placeholders become handler parameters) or a constant.
    """

    path: tuple[str, ...]
    value: str | int | bool
    template: bool = False


@dataclass(frozen=True, slots=True)
class MessageDef:
    """A resolved message definition as the runtime engines see it."""

    id: str
    group: str
    #: "CloudEvents/1.0" or None (plain protocol message)
    envelope: str | None
    #: CloudEvents ``type`` constant, when the definition fixes one
    type: str | None
    attributes: tuple[AttrDef, ...] = ()
    #: "KAFKA", "AMQP/1.0", "MQTT/5.0", "MQTT/3.1.1", "NATS", "HTTP", "PULSAR", "ROCKETMQ" or None
    protocol: str | None = None
    options: tuple[OptionDef, ...] = ()
    datacontenttype: str | None = None
    #: "json" (JSON Schema), "avro" or None (opaque bytes)
    schemaformat: str | None = None
    #: pydantic model of the payload, or None for opaque payloads
    model: builtins.type[BaseModel] | None = None
