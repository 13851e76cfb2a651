"""Kafka protocol binding (``bindings/kafka-protocol-binding.md``), pure functions.

Binary mode (section 3.2):

- the value is the data bytes; an event without data has value ``None`` (a tombstone in a
  compacted topic, 1.0.3-wip); an empty ``bytes`` payload stays ``b""``;
- ``datacontenttype`` <-> the ``content-type`` header; when absent and the codec serialized a
  pydantic model / JSON value, ``content-type: application/json`` is written (spec.md: set the
  implied type explicitly), so the decoded event then carries that ``datacontenttype``;
- every other attribute <-> header ``ce_<name>`` with the UTF-8 canonical string (no
  percent-encoding); received names are matched case-insensitively; decoded extensions stay
  strings (use ``_attributes.coerce_attribute`` with the declared kind).

Structured mode (section 3.3): ``content-type: application/cloudevents+json`` and the JSON
format as value. An event without data is not a tombstone there.

Mode detection (section 3.1 / 1.0.3-wip): a ``content-type`` header starting with
``application/cloudevents`` (case-insensitive) is structured, anything else binary; a message
without any ``ce_`` header (and not structured) is a plain Kafka message:
``Event(attributes={}, data=value, binding=KafkaBinding(...))``.

Keys (section 3.1): by default the record key is the user-provided key (``KafkaBinding.key`` or
``key=``). ``key_mapper=partitionkey_key_mapper`` opts in to the Partitioning extension's
``partitionkey`` as key (an event without it keeps its own key); the event is never modified
and ``ce_partitionkey`` is still sent.
Decoding never turns the key into an attribute; it lands in ``KafkaBinding.key``.

Routing: ``topic`` comes from the event's ``KafkaBinding`` unless overridden; a missing topic
raises ``ValueError``. Non-CloudEvents headers of the binding are appended (a ``content-type``
or ``ce_`` header among them is dropped: the event defines those).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from ..._attributes import check_decoded, check_event, has_required, to_canonical
from ..._cloudevents import AttrValue
from ..._errors import DecodeError
from ..._event import Event, data_bytes
from ..._time import format_time
from .. import jsonformat
from .._common import (
    _MODES,
    APPLICATION_JSON,
    BINARY,
    CE_JSON,
    CONTENT,
    STRUCTURED,
    HeaderNames,
    WireNames,
    binary_payload,
    builder,
    canonical,
    check_mode,
    content_mode,
    invalid_message,
)
from .spec import KafkaBinding, KafkaMessage

__all__ = [
    "KafkaBinding",
    "KafkaMessage",
    "KeyMapper",
    "partitionkey_key_mapper",
    "encode",
    "decode",
]

#: ``KafkaBinding(topic, key, partition, headers)``
new_kafka_binding: Callable[..., KafkaBinding] = builder(KafkaBinding)
#: ``KafkaMessage(topic, key, value, headers, partition)``
new_kafka_message: Callable[..., KafkaMessage] = builder(KafkaMessage)

#: A key mapper (section 3.1): computes the record key from an event without modifying it.
KeyMapper = Callable[[Event[Any]], bytes | None]

CONTENT_TYPE = "content-type"
_CT_JSON = CE_JSON.encode()
#: the headers of a structured-mode record without binding headers
_CT_HEADERS: tuple[tuple[str, bytes | None], ...] = ((CONTENT_TYPE, _CT_JSON),)
_NAMES = WireNames("ce_")
_HEADERS = HeaderNames("ce_", (CONTENT_TYPE,), fold=True)


def partitionkey_key_mapper(event: Event[Any]) -> bytes | None:
    """Opt-in key mapper: the ``partitionkey`` attribute, as is, UTF-8 (section 3.1).

    An event without ``partitionkey`` keeps its own key (``KafkaBinding.key``, or none).
    """
    value = event.attributes.get("partitionkey")
    if value is None:
        b = event.binding
        return b.key if isinstance(b, KafkaBinding) else None
    return canonical(value).encode()


def _extra(
    headers: tuple[tuple[str, bytes | None], ...],
) -> list[tuple[str, bytes | None]]:
    """Binding headers that do not collide with CloudEvents headers."""
    return [
        (k, v)
        for k, v in headers
        if not (k.lower() == CONTENT_TYPE or k[:3].lower() == "ce_")
    ]


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    topic: str | None = None,
    key: bytes | None = None,
    partition: int | None = None,
    headers: tuple[tuple[str, bytes | None], ...] | None = None,
    key_mapper: KeyMapper | None = None,
) -> KafkaMessage:
    """Encode ``event`` as a Kafka record; keyword arguments override the event's binding.

    ``key`` wins over ``key_mapper``, which wins over ``KafkaBinding.key``. ``ValueError`` for
    a bad mode, a missing topic, or an event without the required attributes.
    """
    binary = True if mode == BINARY else check_mode(mode)
    b = event.binding if type(event.binding) is KafkaBinding else None
    if b is not None:
        topic = topic or b.topic
        partition = b.partition if partition is None else partition
        if headers is None:
            headers = b.headers
    if not topic:
        raise ValueError(
            "kafka.encode: no topic; set KafkaBinding(topic=...) on the event or pass topic="
        )
    if key is None:
        key = key_mapper(event) if key_mapper is not None else b.key if b else None
    attributes = event.attributes
    if not attributes:
        return KafkaMessage(topic, key, data_bytes(event), headers or (), partition)
    if not binary:
        # first: ``jsonformat.encode`` starts with the ``check_event`` of the binary path
        document = jsonformat.encode(event)
        if not headers:
            return new_kafka_message(topic, key, document, _CT_HEADERS, partition)
        out: list[tuple[str, bytes | None]] = [(CONTENT_TYPE, _CT_JSON)]
        out += _extra(headers)
        return new_kafka_message(topic, key, document, tuple(out), partition)
    if not has_required(attributes):  # ``check_event``'s usual case without its call
        check_event(attributes)
    data = event.data
    value: bytes | None
    content_type = attributes.get("datacontenttype")
    if (content_type is None or content_type == APPLICATION_JSON) and isinstance(
        data, BaseModel
    ):
        # ``binary_payload`` for a JSON model payload: its JSON, ``application/json``
        value = data.__pydantic_serializer__.to_json(
            data, by_alias=True, exclude_unset=True
        )
        content_type = APPLICATION_JSON
    else:
        value, content_type = binary_payload(event)
    names = _NAMES.out
    # ``canonical`` inlined: most values are already canonical strings, ``time`` a datetime
    out = [
        (
            (names.get(n) or _NAMES.add(n)),
            (
                v
                if v.__class__ is str
                else format_time(v) if v.__class__ is datetime else to_canonical(v)
            ).encode(),
        )
        for n, v in attributes.items()
        if n != "datacontenttype"
    ]
    if content_type is not None:
        out.append((CONTENT_TYPE, content_type.encode()))
    if headers:
        out += _extra(headers)
    return new_kafka_message(topic, key, value, tuple(out), partition)


def decode(message: KafkaMessage) -> Event[Any]:
    """Decode a Kafka record (mode detected from ``content-type``); raises ``DecodeError``."""
    try:
        return _decode(message)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None


def _decode(message: KafkaMessage) -> Event[Any]:
    attributes: dict[str, AttrValue] = {}
    content_type: str | None = None
    other: list[tuple[str, bytes | None]] = []
    cache = _HEADERS.cache
    for name, raw in message.headers:
        kind = cache.get(name)
        if kind is None:
            kind = _HEADERS.classify(name)
        if not kind or raw is None:  # ``OTHER``
            if raw.__class__ is not bytes and raw is not None:
                if not isinstance(raw, bytes):
                    raise DecodeError("invalid-message", f"header {name!r}: not bytes")
            other.append((name, raw))
            continue
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            raise DecodeError(
                "invalid-encoding", f"header {name!r} is not UTF-8"
            ) from None
        if kind == CONTENT:
            if content_type is not None:
                raise DecodeError("duplicate-attribute", "content-type")
            content_type = text
        elif kind in attributes:  # ``put``, inlined
            raise DecodeError("duplicate-attribute", kind)
        else:
            attributes[kind] = text
    # ``content_mode`` without the call for an absent or known content type
    mode = BINARY if content_type is None else _MODES.get(content_type)
    if mode is None:
        mode = content_mode(content_type)
    binding = new_kafka_binding(
        message.topic, message.key, message.partition, tuple(other) if other else ()
    )
    if mode == STRUCTURED:
        if message.value is None:
            raise DecodeError("invalid-json", "structured message without value")
        return jsonformat.from_parsed(jsonformat.parse(message.value), binding)
    if mode != BINARY:
        raise DecodeError("unsupported-format", "batch mode is HTTP only")
    if not attributes:
        headers = tuple(message.headers)
        plain = KafkaBinding(message.topic, message.key, message.partition, headers)
        return Event({}, message.value, plain)
    if content_type is not None:
        if "datacontenttype" in attributes:  # ``put``, inlined
            raise DecodeError("duplicate-attribute", "datacontenttype")
        attributes["datacontenttype"] = content_type
    return Event(check_decoded(attributes), message.value, binding)
