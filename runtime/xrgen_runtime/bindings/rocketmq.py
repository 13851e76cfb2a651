"""Apache RocketMQ binding, from the draft (rocketmq-externals, identical to spec PR #352).

- binary mode: the body is the data; ``datacontenttype`` <-> user property
  ``CE_contenttype``; every other attribute <-> user property ``CE_<name>`` with the
  canonical string value. An event without data gets the one-byte body ``0x00`` and a binary
  body of ``0x00`` (or empty) decodes as "no data", as sdk-java's ``rocketmq`` module does
  (RocketMQ rejects empty bodies). Unlike sdk-java's writer, extensions are also written with
  the ``CE_`` prefix, so they round-trip.
- structured mode: the body is the JSON format and ``CE_contenttype`` is
  ``application/cloudevents+json``.
- detection: ``CE_contenttype`` (or the draft's spelling ``CE_contentType``) prefixed
  ``application/cloudevents`` (case-insensitive) -> structured; else ``CE_`` properties ->
  binary; else a plain RocketMQ message (``attributes == {}``).
- As in the other bindings, a missing ``datacontenttype`` is written as the implied
  ``application/json`` when the codec serialized a pydantic model / JSON value.

Routing: ``topic`` (required), ``tag``, ``keys`` and extra user properties come from the
event's ``RocketMqBinding`` unless overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._attributes import check_decoded, check_event
from .._errors import DecodeError
from .._event import Event, data_bytes
from ..formats import wire_format
from . import jsonformat
from ._common import (
    BINARY,
    CE_JSON,
    STRUCTURED,
    HeaderNames,
    WireNames,
    binary_payload,
    canonical,
    check_mode,
    collect,
    content_mode,
    foreign,
    invalid_message,
)
from ._rocketmq import RocketMqBinding, RocketMqMessage

__all__ = ["RocketMqBinding", "RocketMqMessage", "encode", "decode"]

CONTENT_TYPE = "CE_contenttype"
NO_DATA = b"\x00"
_NAMES = WireNames("CE_")
_PROPS = HeaderNames("CE_", (CONTENT_TYPE, "CE_contentType"), fold=False)


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    topic: str | None = None,
    tag: str | None = None,
    keys: tuple[str, ...] | None = None,
    properties: Mapping[str, str] | None = None,
) -> RocketMqMessage:
    """Encode ``event`` as a RocketMQ message; keyword arguments override the binding."""
    binary = check_mode(mode)
    b = event.binding if type(event.binding) is RocketMqBinding else None
    if b is not None:
        topic = topic or b.topic
        tag = tag or b.tag
        keys = b.keys if keys is None else keys
        if properties is None:
            properties = b.properties
    if not topic:
        raise ValueError(
            "rocketmq.encode: no topic; set RocketMqBinding(topic=...) on the event or pass "
            "topic="
        )
    attributes = event.attributes
    if not attributes:
        body = data_bytes(event) or b""
        return RocketMqMessage(topic, body, dict(properties or {}), tag, keys or ())
    check_event(attributes)
    out = dict(foreign(properties.items(), _PROPS)) if properties else {}
    if not binary:
        out[CONTENT_TYPE] = CE_JSON
        return RocketMqMessage(topic, jsonformat.encode(event), out, tag, keys or ())
    data, content_type = binary_payload(event)
    names = _NAMES.out
    for n, v in attributes.items():
        if n != "datacontenttype":
            out[names.get(n) or _NAMES.add(n)] = canonical(v)
    if content_type is not None:
        out[CONTENT_TYPE] = content_type
    return RocketMqMessage(
        topic, NO_DATA if data is None else data, out, tag, keys or ()
    )


def decode(message: RocketMqMessage) -> Event[Any]:
    """Decode a RocketMQ message (mode from ``CE_contenttype``); raises ``DecodeError``."""
    try:
        attributes, content_type, other = collect(
            message.properties.items(), _PROPS, False
        )
        mode = content_mode(content_type)
        binding = RocketMqBinding(
            message.topic, message.tag, tuple(message.keys), dict(other)
        )
        if mode == STRUCTURED:
            return jsonformat.from_parsed(jsonformat.parse(message.body), binding)
        if mode != BINARY:
            raise DecodeError("unsupported-format", "batch mode is HTTP only")
        body = message.body
        if not attributes and content_type is None:
            return Event({}, body or None, binding)
        if content_type is not None:
            if "datacontenttype" in attributes:
                raise DecodeError("duplicate-attribute", "datacontenttype")
            attributes["datacontenttype"] = content_type
        # the no-data marker 0x00 is a whole datum in Avro (a record of one empty string)
        no_data = not body or (body == NO_DATA and wire_format(content_type) != "avro")
        data = None if no_data else body
        return Event(check_decoded(attributes), data, binding)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None
