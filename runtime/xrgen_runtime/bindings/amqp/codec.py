"""AMQP 1.0 protocol binding (``bindings/amqp-protocol-binding.md``), pure functions.

Binary mode (section 3.1): the body (application-data) is the data; ``datacontenttype`` <->
the ``content-type`` field of the properties section; every other attribute <-> an
application-property ``cloudEvents_<name>`` (1.0.3-wip prefix; ``separator=":"`` writes the
v1.0.2 ``cloudEvents:`` form). Values use the native AMQP types of section 3.1.4: Boolean ->
boolean, Integer -> long (a Python ``int`` in the 32-bit range), Binary -> binary (``bytes``),
String/URI/URI-reference -> string, Timestamp -> timestamp (a ``datetime``) when the value has
millisecond precision, since AMQP timestamps are ms64; a timestamp with sub-millisecond
digits is sent as its canonical string instead (allowed: "MAY forward values as canonical
strings"), so nothing is lost. When ``datacontenttype`` is absent and the codec serialized a
pydantic model / JSON value, ``content-type: application/json`` is written (spec.md: set the
implied type explicitly).

Structured mode (section 3.2): ``content-type: application/cloudevents+json; charset=utf-8``
and the JSON format as body.

Decoding: mode from ``content-type`` (prefix ``application/cloudevents``, case-insensitive).
Both prefixes ``cloudEvents_`` and ``cloudEvents:`` are understood, one per message (mixing
raises ``DecodeError("mixed-separators")``); both value forms are accepted: native values keep
their type (``bool``, ``int``, ``bytes``, aware ``datetime``; a naive ``datetime`` is UTC),
strings stay strings except ``time``, which is parsed. A message without ``cloudEvents``
properties is a plain AMQP message (``attributes == {}``).

Routing: ``address`` and the message sections come from the event's ``AmqpBinding`` unless
overridden; no field is required (the link target may decide).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from ..._attributes import check_decoded, check_event, to_canonical
from ..._cloudevents import INT32_MAX, INT32_MIN, AttrValue, is_attribute_name
from ..._errors import DecodeError
from ..._event import Event, data_bytes
from ..._limits import CACHE_KEY_MAX
from .. import jsonformat
from .._common import (
    _MODES,
    BINARY,
    CE_JSON,
    STRUCTURED,
    binary_payload,
    builder,
    check_mode,
    content_mode,
    invalid_message,
)
from .spec import AmqpBinding, AmqpMessage

__all__ = ["AmqpBinding", "AmqpMessage", "encode", "decode"]

CONTENT_TYPE = "content-type"
STRUCTURED_CONTENT_TYPE = CE_JSON + "; charset=utf-8"
PREFIX = "cloudEvents"
_PREFIX_LEN = len(PREFIX) + 1
_DEFAULT = AmqpBinding()
_EMPTY: Mapping[str, Any] = {}
_NAMES: dict[str, str] = {}
_new_binding: Callable[..., AmqpBinding] = builder(AmqpBinding)
_VALID: set[str] = set()


def _native(value: AttrValue) -> Any:
    """The AMQP-native form of an attribute value (section 3.1.4)."""
    t = type(value)
    if t is str or t is bool or t is bytes:
        return value
    if t is int:
        if not INT32_MIN <= value <= INT32_MAX:  # type: ignore[operator]
            raise ValueError(f"integer attribute value out of 32-bit range: {value!r}")
        return value
    if isinstance(value, datetime):
        if value.microsecond % 1000:
            return to_canonical(value)
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _native(int(value))
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return to_canonical(value)


def _is_ce(key: str) -> bool:
    return key.startswith(PREFIX) and key[_PREFIX_LEN - 1 : _PREFIX_LEN] in ("_", ":")


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    address: str | None = None,
    properties: Mapping[str, Any] | None = None,
    application_properties: Mapping[str, Any] | None = None,
    message_annotations: Mapping[str, Any] | None = None,
    header: Mapping[str, Any] | None = None,
    footer: Mapping[str, Any] | None = None,
    separator: str = "_",
) -> AmqpMessage:
    """Encode ``event`` as an AMQP message; keyword arguments override the event's binding."""
    binary = check_mode(mode)
    if separator not in ("_", ":"):
        raise ValueError("amqp.encode: separator must be '_' or ':'")
    b = event.binding if type(event.binding) is AmqpBinding else _DEFAULT
    props = dict(b.properties if properties is None else properties)
    app = (
        b.application_properties
        if application_properties is None
        else application_properties
    )
    sections = (
        b.message_annotations if message_annotations is None else message_annotations,
        b.header if header is None else header,
        b.footer if footer is None else footer,
        address or b.address,
    )
    attributes = event.attributes
    if not attributes:
        return AmqpMessage(data_bytes(event), props, dict(app), *sections)
    check_event(attributes)
    app_out = {k: v for k, v in app.items() if not _is_ce(k)} if app else {}
    if not binary:
        props[CONTENT_TYPE] = STRUCTURED_CONTENT_TYPE
        return AmqpMessage(jsonformat.encode(event), props, app_out, *sections)
    body, content_type = binary_payload(event)
    if content_type is None:
        props.pop(CONTENT_TYPE, None)
    else:
        props[CONTENT_TYPE] = content_type
    prefix = PREFIX + separator
    for name, value in attributes.items():
        if name != "datacontenttype":
            if name not in _VALID:
                if not is_attribute_name(name):
                    raise ValueError(f"invalid CloudEvents attribute name {name!r}")
                if len(name) <= CACHE_KEY_MAX and len(_VALID) < 4096:
                    _VALID.add(name)
            app_out[prefix + name] = _native(value)
    return AmqpMessage(body, props, app_out, *sections)


def decode(message: AmqpMessage) -> Event[Any]:
    """Decode an AMQP message (mode from ``content-type``); raises ``DecodeError``."""
    try:
        return _decode(message)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None


def _attribute_name(key: str) -> str:
    name = _NAMES.get(key)
    if name is None:
        name = key[_PREFIX_LEN:]
        if not is_attribute_name(name):
            raise DecodeError("invalid-attribute-name", repr(key))
        if len(key) <= CACHE_KEY_MAX and len(_NAMES) < 4096:
            _NAMES[key] = name
    return name


def _value(name: str, value: Any) -> AttrValue:
    """An application-property value in either form (section 3.1.4, receivers MUST accept
    both); Integers are relaxed to any ``int`` in the 32-bit range."""
    t = type(value)
    if t is str or t is bool or t is bytes:
        return value  # type: ignore[no-any-return]
    if t is int and INT32_MIN <= value <= INT32_MAX:
        return value  # type: ignore[no-any-return]
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    raise DecodeError(
        "invalid-attribute", f"{name}: unsupported AMQP value {t.__name__}"
    )


def _keys_checked(section: Any) -> Any:
    """``section``; ``DecodeError("invalid-message")`` when one of its keys is not a string."""
    for key in section:
        if key.__class__ is not str and not isinstance(key, str):
            raise DecodeError("invalid-message", "a section's key is not a string")
    return section


def _decode(message: AmqpMessage) -> Event[Any]:
    props = message.properties
    # the keys of the sections that are usually empty; ``properties`` is read below
    if message.message_annotations or message.header or message.footer:
        _keys_checked(message.message_annotations)
        _keys_checked(message.header)
        _keys_checked(message.footer)
    content_type = props.get(CONTENT_TYPE) if props else None
    if content_type is not None and type(content_type) is not str:
        raise DecodeError("invalid-message", "content-type is not a string")
    # ``content_mode`` without the call for an absent or known content type
    mode = BINARY if content_type is None else _MODES.get(content_type)
    if mode is None:
        mode = content_mode(content_type)
    body: Any = message.body
    if type(body) is str:
        body = body.encode()
    attributes: dict[str, AttrValue] = {}
    other: dict[str, Any] = {}
    separator = ""
    known = _NAMES
    for key, value in message.application_properties.items():
        # a name seen before: its attribute name without the prefix tests
        name = known.get(key) if type(key) is str else None
        if name is None:
            if not (type(key) is str and _is_ce(key)):
                if not isinstance(key, str):
                    raise DecodeError(
                        "invalid-message", "a property name is not a string"
                    )
                other[key] = value
                continue
            name = _attribute_name(key)
        if key[_PREFIX_LEN - 1] != separator:
            if separator:
                raise DecodeError("mixed-separators", "cloudEvents_ and cloudEvents:")
            separator = key[_PREFIX_LEN - 1]
        if value is None:
            continue
        if name in attributes:
            raise DecodeError("duplicate-attribute", name)
        attributes[name] = value if type(value) is str else _value(name, value)
    if mode == STRUCTURED:
        rest = {k: v for k, v in _keys_checked(props).items() if k != CONTENT_TYPE}
        binding = _binding(message, rest, other)
        return jsonformat.from_parsed(jsonformat.parse(body or b""), binding)
    if mode != BINARY:
        raise DecodeError("unsupported-format", "batch mode is HTTP only")
    if not attributes:
        binding = _binding(
            message, dict(_keys_checked(props)), dict(message.application_properties)
        )
        return Event({}, body, binding)
    if content_type is not None:
        if "datacontenttype" in attributes:
            raise DecodeError("duplicate-attribute", "datacontenttype")
        attributes["datacontenttype"] = content_type
    rest = {
        k: v
        for k, v in props.items()
        if (k.__class__ is str or _keys_checked((k,))) and k != CONTENT_TYPE
    }
    return Event(check_decoded(attributes), body, _binding(message, rest, other))


def _binding(
    message: AmqpMessage, properties: dict[str, Any], app: dict[str, Any]
) -> AmqpBinding:
    return _new_binding(
        message.address,
        properties,
        app,
        message.message_annotations,
        message.header,
        message.footer,
    )
