"""CloudEvents attribute values: their canonical text and back, and the checks of an event's
attributes that encoders and decoders make (spec.md "Type System", "REQUIRED Attributes").
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from datetime import datetime, timezone

from ._cloudevents import (
    CORE_ATTRIBUTE_KINDS,
    INT32_MAX,
    INT32_MIN,
    KIND_TYPES,
    SPECVERSION,
    AttrValue,
)
from ._errors import DecodeError
from ._media import _MEDIA_TYPES_OK, is_media_type
from ._time import format_time, parse_time

__all__ = [
    "check_decoded",
    "check_event",
    "coerce_attribute",
    "parse_attribute",
    "to_canonical",
]

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


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
    expected = KIND_TYPES.get(kind, str)
    if isinstance(value, expected) and (kind != "integer" or type(value) is not bool):
        return value
    raise DecodeError("invalid-attribute", f"{name}: expected {kind}")


def has_required(attributes: dict[str, AttrValue]) -> bool:
    """Whether ``attributes`` hold the required attributes as the usual event does: one
    expression, ``False`` for anything else (the caller's detailed checks then say what).
    A ``dict`` parameter: compiled, each ``attributes.get`` is a C lookup (over a ``Mapping``
    or a bound ``get`` each would be a Python call).
    """
    ident = attributes.get("id")
    source = attributes.get("source")
    etype = attributes.get("type")
    return bool(
        attributes.get("specversion") == SPECVERSION
        and ident.__class__ is str
        and ident
        and source.__class__ is str
        and source
        and etype.__class__ is str
        and etype
    )


def check_event(attributes: Mapping[str, AttrValue]) -> None:
    """``ValueError`` unless ``attributes`` hold the required attributes of a CloudEvent.

    Encoders call this for every non-plain event: ``specversion`` must be ``"1.0"`` and
    ``id``, ``source``, ``type`` must be non-empty strings.
    """
    if has_required(attributes if type(attributes) is dict else dict(attributes)):
        return
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
    if not has_required(attributes):
        _check_required(attributes)
    time = attributes.get("time")
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
    content_type = attributes.get("datacontenttype")
    if (
        attributes.get("dataschema") is None
        and attributes.get("subject") is None
        and (
            content_type is None
            or (
                content_type.__class__ is str
                # ``is_media_type`` without its call for a known media type
                and (content_type in _MEDIA_TYPES_OK or is_media_type(content_type))
            )
        )
    ):
        return attributes
    for name in ("datacontenttype", "dataschema", "subject"):
        value = attributes.get(name)
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
