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

from collections.abc import Callable, Mapping
from typing import Any

from ..._errors import DecodeError
from ..._event import Event, data_bytes
from .._common import builder, check_mode, invalid_message
from .._properties import PropertyMap
from .spec import PulsarBinding, PulsarMessage

__all__ = ["PulsarBinding", "PulsarMessage", "encode", "decode"]

CONTENT_TYPE = "CE-datacontenttype"
#: ``PulsarBinding(topic, partition_key, properties, event_time)``
_new_binding: Callable[..., PulsarBinding] = builder(PulsarBinding)
#: ``PulsarMessage(topic, payload, properties, partition_key, event_time)``
_new_message: Callable[..., PulsarMessage] = builder(PulsarMessage)


def _binding(message: PulsarMessage, properties: dict[str, str]) -> PulsarBinding:
    return _new_binding(
        message.topic, message.partition_key, properties, message.event_time
    )


_MAP = PropertyMap("CE-", CONTENT_TYPE, "CE-ContentType", binding=_binding)


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
    if not event.attributes:
        plain = dict(properties or {})
        return PulsarMessage(
            topic, data_bytes(event) or b"", plain, partition_key, event_time
        )
    payload, out = _MAP.encode(event, binary, properties)
    return _new_message(topic, payload, out, partition_key, event_time)


def decode(message: PulsarMessage) -> Event[Any]:
    """Decode a Pulsar message (mode from ``CE-datacontenttype``); raises ``DecodeError``."""
    try:
        return _MAP.decode(message, message.properties, message.payload)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None
