"""Apache Pulsar binding, adapted from the unmerged draft (cloudevents/spec PR #237).

The draft dates from CloudEvents 0.1 and was never merged; adapting it to 1.0 is our
documented choice:

- binary mode: the payload is the data; every attribute, including ``datacontenttype``, <->
  message property ``CE-<name>`` with the 1.0 attribute name (``CE-id``, ``CE-time``,
  ``CE-datacontenttype``) and the canonical string value (property names are case-sensitive);
  the draft's ``CE-X-`` extension prefix is obsolete and not used;
- structured mode: the payload is the JSON format and property ``CE-datacontenttype`` holds
  ``application/cloudevents+json``;
- detection: ``CE-datacontenttype`` (or the draft's ``CE-ContentType``) prefixed
  ``application/cloudevents`` (case-insensitive) -> structured; else ``CE-`` properties ->
  binary; else a plain Pulsar message (``attributes == {}``). An empty payload is "no data".
- As in the other bindings, a missing ``datacontenttype`` is written as the implied
  ``application/json`` when the codec serialized a pydantic model / JSON value.

Routing: ``topic`` (required), ``partition_key``, ``event_time`` and extra properties come
from the event's ``PulsarBinding`` unless overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._attributes import check_decoded, check_event
from .._errors import DecodeError
from .._event import Event, data_bytes
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
from ._pulsar import PulsarBinding, PulsarMessage

__all__ = ["PulsarBinding", "PulsarMessage", "encode", "decode"]

CONTENT_TYPE = "CE-datacontenttype"
_NAMES = WireNames("CE-")
_PROPS = HeaderNames("CE-", (CONTENT_TYPE, "CE-ContentType"), fold=False)


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    topic: str | None = None,
    properties: Mapping[str, str] | None = None,
    partition_key: str | None = None,
    event_time: int | None = None,
) -> PulsarMessage:
    """Encode ``event`` as a Pulsar message; keyword arguments override the event's binding."""
    binary = check_mode(mode)
    b = event.binding if type(event.binding) is PulsarBinding else None
    if b is not None:
        topic = topic or b.topic
        partition_key = partition_key or b.partition_key
        event_time = b.event_time if event_time is None else event_time
        if properties is None:
            properties = b.properties
    if not topic:
        raise ValueError(
            "pulsar.encode: no topic; set PulsarBinding(topic=...) on the event or pass topic="
        )
    attributes = event.attributes
    if not attributes:
        plain = dict(properties or {})
        return PulsarMessage(
            topic, data_bytes(event) or b"", plain, partition_key, event_time
        )
    check_event(attributes)
    out = dict(foreign(properties.items(), _PROPS)) if properties else {}
    if not binary:
        out[CONTENT_TYPE] = CE_JSON
        payload = jsonformat.encode(event)
        return PulsarMessage(topic, payload, out, partition_key, event_time)
    data, content_type = binary_payload(event)
    names = _NAMES.out
    for n, v in attributes.items():
        out[names.get(n) or _NAMES.add(n)] = canonical(v)
    if content_type is not None:
        out[CONTENT_TYPE] = content_type
    return PulsarMessage(topic, data or b"", out, partition_key, event_time)


def decode(message: PulsarMessage) -> Event[Any]:
    """Decode a Pulsar message (mode from ``CE-datacontenttype``); raises ``DecodeError``."""
    try:
        attributes, content_type, other = collect(
            message.properties.items(), _PROPS, False
        )
        mode = content_mode(content_type)
        binding = PulsarBinding(
            message.topic, message.partition_key, dict(other), message.event_time
        )
        if mode == STRUCTURED:
            return jsonformat.from_parsed(jsonformat.parse(message.payload), binding)
        if mode != BINARY:
            raise DecodeError("unsupported-format", "batch mode is HTTP only")
        if not attributes and content_type is None:
            return Event({}, message.payload or None, binding)
        if content_type is not None:
            attributes["datacontenttype"] = content_type
        return Event(check_decoded(attributes), message.payload or None, binding)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None
