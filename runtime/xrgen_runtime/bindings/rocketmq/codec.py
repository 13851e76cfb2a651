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

from collections.abc import Callable, Mapping
from typing import Any

from ..._errors import DecodeError
from ..._event import Event, data_bytes
from .._common import builder, check_mode, invalid_message
from .._properties import PropertyMap
from .spec import RocketMqBinding, RocketMqMessage

__all__ = ["RocketMqBinding", "RocketMqMessage", "encode", "decode"]

CONTENT_TYPE = "CE_contenttype"
NO_DATA = b"\x00"
#: ``RocketMqBinding(topic, tag, keys, properties)``
_new_binding: Callable[..., RocketMqBinding] = builder(RocketMqBinding)
#: ``RocketMqMessage(topic, body, properties, tag, keys)``
_new_message: Callable[..., RocketMqMessage] = builder(RocketMqMessage)


def _binding(message: RocketMqMessage, properties: dict[str, str]) -> RocketMqBinding:
    keys = tuple(message.keys)
    for key in keys:
        if type(key) is not str and not isinstance(key, str):
            raise DecodeError("invalid-message", "a key is not a string")
    return _new_binding(message.topic, message.tag, keys, properties)


_MAP = PropertyMap(
    "CE_", CONTENT_TYPE, "CE_contentType", binding=_binding, no_data=NO_DATA
)


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
    if not event.attributes:
        body = data_bytes(event) or b""
        return RocketMqMessage(topic, body, dict(properties or {}), tag, keys or ())
    body, out = _MAP.encode(event, binary, properties)
    return _new_message(topic, body, out, tag, keys or ())


def decode(message: RocketMqMessage) -> Event[Any]:
    """Decode a RocketMQ message (mode from ``CE_contenttype``); raises ``DecodeError``."""
    try:
        return _MAP.decode(message, message.properties, message.body)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None
