"""MQTT protocol binding (``bindings/mqtt-protocol-binding.md``), MQTT 5.0 and 3.1.1.

MQTT 5.0 binary mode (section 3.2): the payload is the data; ``datacontenttype`` <-> the
PUBLISH ``Content Type`` property; every other attribute <-> a User Property named exactly as
the attribute (no prefix) with the canonical string value. When ``datacontenttype`` is absent
and the codec serialized a pydantic model / JSON value, ``Content Type: application/json`` is
written (spec.md: set the implied type explicitly).

MQTT 5.0 structured mode (section 3.1): ``Content Type: application/cloudevents+json`` and the
JSON format as payload.

MQTT 3.1.1 (section 3.1): structured only; the payload is the JSON format (no content type
field exists). ``encode`` in binary mode for a 3.1.1 message raises ``ValueError``.

Decoding (our documented choices where the spec is silent):

- 5.0: ``Content Type`` prefixed ``application/cloudevents`` (case-insensitive) ->
  structured. Otherwise the message is a binary CloudEvent when it has a ``specversion`` User
  Property: User Properties named ``[a-z0-9]+`` are attributes, the others stay in
  ``MqttBinding.user_properties``. A ``datacontenttype`` User Property (as in the spec's own
  example) is accepted; ``Content Type`` wins over it. Without ``specversion`` it is a plain
  MQTT message (``attributes == {}``) and all properties stay in the binding.
- 3.1.1: a payload that is a JSON object with ``specversion`` is a structured CloudEvent,
  anything else a plain message.
- An empty payload is "no data".

Routing: ``topic`` (required), ``qos``, ``retain``, ``version`` and the other PUBLISH
properties come from the event's ``MqttBinding`` unless overridden.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._attributes import check_decoded, check_event
from ..._cloudevents import is_attribute_name
from ..._errors import DecodeError
from ..._event import Event, data_bytes
from ..._limits import CACHE_KEY_MAX
from .. import jsonformat
from .._common import (
    _CACHE_LIMIT,
    _MODES,
    BINARY,
    CE_JSON,
    STRUCTURED,
    binary_payload,
    builder,
    canonical,
    check_mode,
    check_pairs,
    content_mode,
    invalid_message,
)
from .spec import MqttBinding, MqttMessage

__all__ = ["MqttBinding", "MqttMessage", "encode", "decode"]

_Pairs = tuple[tuple[str, str], ...]
_DEFAULT = MqttBinding()
_VALID: dict[str, bool] = {}


def _is_attribute(name: str) -> bool:
    valid = _VALID.get(name)
    if valid is None:
        valid = is_attribute_name(name)
        if len(name) <= CACHE_KEY_MAX and len(_VALID) < 4096:
            _VALID[name] = valid
    return valid


def _checked(name: str) -> str:
    if not _is_attribute(name):
        raise ValueError(f"invalid CloudEvents attribute name {name!r}")
    return name


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    topic: str | None = None,
    qos: int | None = None,
    retain: bool | None = None,
    version: str | None = None,
    user_properties: _Pairs | None = None,
    response_topic: str | None = None,
    correlation_data: bytes | None = None,
    message_expiry_interval: int | None = None,
    payload_format_indicator: int | None = None,
) -> MqttMessage:
    """Encode ``event`` as an MQTT PUBLISH; keyword arguments override the event's binding."""
    binary = check_mode(mode)
    b = event.binding if type(event.binding) is MqttBinding else _DEFAULT
    topic = topic or b.topic
    if not topic:
        raise ValueError(
            "mqtt.encode: no topic; set MqttBinding(topic=...) on the event or pass topic="
        )
    version = version or b.version
    if version not in ("5.0", "3.1.1"):
        raise ValueError(
            f"mqtt.encode: version must be '5.0' or '3.1.1', not {version!r}"
        )
    v5 = version == "5.0"
    props = b.user_properties if user_properties is None else user_properties
    attributes = event.attributes
    content_type: str | None
    if not attributes:
        payload = data_bytes(event) or b""
        content_type = b.content_type
    else:
        check_event(attributes)
        if not binary:
            payload = jsonformat.encode(event)
            content_type = CE_JSON if v5 else None
            props = tuple(p for p in props if p[0] not in attributes)
        elif not v5:
            raise ValueError("mqtt.encode: MQTT 3.1.1 supports structured mode only")
        else:
            data, content_type = binary_payload(event)
            payload = data or b""
            out = [
                (_checked(n), canonical(v))
                for n, v in attributes.items()
                if n != "datacontenttype"
            ]
            out += [p for p in props if p[0] not in attributes]
            props = tuple(out)
    return MqttMessage(
        topic,
        payload,
        b.qos if qos is None else qos,
        b.retain if retain is None else retain,
        version,
        content_type if v5 else None,
        props if v5 else (),
        response_topic or b.response_topic,
        correlation_data if correlation_data is not None else b.correlation_data,
        message_expiry_interval or b.message_expiry_interval,
        (
            payload_format_indicator
            if payload_format_indicator is not None
            else b.payload_format_indicator
        ),
    )


_build_binding: Callable[..., MqttBinding] = builder(MqttBinding)
#: (topic, qos, retain, version) -> the binding of the messages received there that carry no
#: other PUBLISH property (the usual CloudEvent): bindings are immutable, so they share one
#: instance instead of building ten fields per message; bounded like the other caches of wire
#: text (``_limits``)
_SHARED: dict[tuple[str, int, bool, str], MqttBinding] = {}


def _binding(
    message: MqttMessage, props: _Pairs, content_type: str | None
) -> MqttBinding:
    # read untyped: compiled code reading a field declared ``int`` would make ``True`` a
    # ``1``, and refuse an ``int`` where a ``bool`` is declared
    untyped: Any = message
    topic: object = untyped.topic
    qos: object = untyped.qos
    retain: object = untyped.retain
    version: object = untyped.version
    if (
        not props
        and content_type is None
        and message.response_topic is None
        and message.correlation_data is None
        and message.message_expiry_interval is None
        and message.payload_format_indicator is None
        and topic.__class__ is str
        and qos.__class__ is int
        and retain.__class__ is bool
        and version.__class__ is str
    ):
        key = (topic, qos, retain, version)
        shared = _SHARED.get(key)
        if shared is None:
            shared = _build_binding(
                topic, qos, retain, version, (), None, None, None, None, None
            )
            if len(topic) <= CACHE_KEY_MAX and len(_SHARED) < _CACHE_LIMIT:
                _SHARED[key] = shared
        return shared
    return _build_binding(
        topic,
        qos,
        retain,
        version,
        props,
        content_type,
        message.response_topic,
        message.correlation_data,
        message.message_expiry_interval,
        message.payload_format_indicator,
    )


def decode(message: MqttMessage) -> Event[Any]:
    """Decode an MQTT PUBLISH (5.0 or 3.1.1); raises ``DecodeError``."""
    try:
        return _decode(message)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None


def _check_property(props: _Pairs, name: str, value: object) -> None:
    """``DecodeError("invalid-message")`` for a user property that is not a pair of strings."""
    if type(value) is not str and not isinstance(value, str):
        raise DecodeError("invalid-message", f"{name}: value is not a string")
    if len(name) == 1:
        check_pairs(props)  # a two-character string unpacks like a pair


def _decode(message: MqttMessage) -> Event[Any]:
    payload = message.payload
    if message.version == "3.1.1":
        event = jsonformat.sniff(payload)
        if event is None:
            return Event({}, payload or None, _binding(message, (), None))
        event.binding = _binding(message, (), None)
        return event
    content_type = message.content_type
    # ``content_mode`` without the call for an absent or known content type
    mode = BINARY if content_type is None else _MODES.get(content_type)
    if mode is None:
        mode = content_mode(content_type)
    props = message.user_properties
    if mode == STRUCTURED:
        obj = jsonformat.parse(payload)
        event = jsonformat.from_parsed(obj, None)
        # the sender MAY repeat attributes as user properties: drop only those
        own = tuple(p for p in props if p[0] not in event.attributes)
        event.binding = _binding(message, own, None)
        return event
    if mode != BINARY:
        raise DecodeError("unsupported-format", "batch mode is HTTP only")
    # one pass: the attributes (user properties named like one) and the other properties;
    # without ``specversion`` it is a plain message and every property stays in the binding
    attributes: dict[str, Any] = {}
    other: list[tuple[str, str]] = []
    problem: DecodeError | None = None  # raised for a CloudEvent only
    valid = _VALID
    for name, value in props:
        is_attribute = valid.get(name)
        if is_attribute is None:
            is_attribute = _is_attribute(name)
        if not is_attribute:
            try:
                _check_property(props, name, value)
            except DecodeError:
                if problem is not None and any(n == "specversion" for n, _ in props):
                    raise problem from None  # a CloudEvent's first fault, as it came
                raise
            other.append((name, value))
        elif problem is not None:
            continue
        elif type(value) is not str:
            problem = DecodeError("invalid-message", f"{name}: value is not a string")
        elif name in attributes:
            problem = DecodeError("duplicate-attribute", name)
        else:
            attributes[name] = value
    if "specversion" not in attributes:
        for name, value in props:
            _check_property(props, name, value)
        return Event({}, payload or None, _binding(message, props, content_type))
    if problem is not None:
        raise problem
    if content_type is not None:
        attributes["datacontenttype"] = content_type
    binding = _binding(message, tuple(other) if other else (), None)
    return Event(check_decoded(attributes), payload or None, binding)
