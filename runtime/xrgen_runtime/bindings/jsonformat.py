"""CloudEvents JSON event format (``formats/json-format.md``), single events and batches.

Encoding (section 3):

- every attribute is a top-level member; Boolean and Integer as JSON ``true``/``false`` and
  numbers, Timestamp as RFC 3339 text with ``Z``, Binary as base64, others as strings;
- ``bytes`` data is written as ``data_base64`` (no ``datacontenttype`` is added);
- other data goes into ``data``: as a JSON value when ``datacontenttype`` is absent or JSON
  (``*/json``, ``*/*+json``), a pydantic model as its JSON document (spliced in without a
  round trip through Python objects); for a non-JSON ``datacontenttype`` as a string. No
  ``datacontenttype`` is invented in structured mode: the format implies ``application/json``.

Decoding:

- the body must be a JSON object; ``null`` members are unset; names must be ``[a-z0-9]+``;
  ``specversion``, ``id``, ``source``, ``type`` are required (nothing is invented);
- ``time`` becomes an aware ``datetime``; extension values keep their JSON type (string,
  boolean, 32-bit integer); other JSON types are rejected;
- ``data_base64`` becomes ``bytes``; ``data`` stays the JSON value (``dict``, ``list``,
  ``str``, number, ...), a string is never parsed again; with a non-JSON ``datacontenttype``
  ``data`` must be a string.

Batches (section 4, ``application/cloudevents-batch+json``) are JSON arrays of events.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from pydantic_core import from_json, to_json

from .._attributes import check_decoded, check_event, to_canonical
from .._cloudevents import (
    CORE_ATTRIBUTE_KINDS,
    INT32_MAX,
    INT32_MIN,
    JSON_BATCH_MEDIA_TYPE,
    JSON_MEDIA_TYPE,
    AttrValue,
    is_attribute_name,
)
from .._errors import DecodeError
from .._event import Event, encode_data, model_json
from .._limits import CACHE_KEY_MAX
from .._media import is_json_content_type
from .._time import format_time
from ..formats import encode_payload
from . import Binding
from ._common import APPLICATION_JSON

__all__ = [
    "MEDIA_TYPE",
    "BATCH_MEDIA_TYPE",
    "encode",
    "decode",
    "encode_batch",
    "decode_batch",
]

MEDIA_TYPE = JSON_MEDIA_TYPE
BATCH_MEDIA_TYPE = JSON_BATCH_MEDIA_TYPE

#: ``_join(values)`` raises ``TypeError`` unless every value is a ``str`` (or a subclass of it):
#: half the cost of ``set(map(type, values)) <= {str}``, for where a subclass makes no difference
_join = "".join
#: attribute names known valid: the core ones, and those seen (bounded, see ``_check_names``)
_NAMES: set[str] = set(CORE_ATTRIBUTE_KINDS)


#: pydantic-core's JSON (Rust): several times faster than the stdlib ``json`` module here.
_dumps = to_json
_loads = from_json


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------


def _check_names(attributes: dict[str, AttrValue]) -> None:
    """``ValueError`` for an invalid attribute name; valid ones are remembered in ``_NAMES``."""
    for name in attributes:
        if not is_attribute_name(name):
            raise ValueError(f"invalid CloudEvents attribute name {name!r}")
        if len(name) <= CACHE_KEY_MAX and len(_NAMES) < 4096:
            _NAMES.add(name)


def _convert(attributes: dict[str, AttrValue], out: dict[str, Any]) -> None:
    """Set the JSON member of every non-string attribute in ``out`` (json-format.md section
    2.2 type mapping): Boolean and Integer stay JSON values, others become their canonical
    string."""
    for name, value in attributes.items():
        t = value.__class__
        if t is str or t is bool:
            continue
        if t is int:
            if not INT32_MIN <= value <= INT32_MAX:  # type: ignore[operator]
                raise ValueError(f"attribute {name!r} out of 32-bit range")
            continue
        text = to_canonical(value)
        if isinstance(value, bool):
            out[name] = text == "true"
        elif isinstance(value, int):
            out[name] = int(text)
        else:
            out[name] = text


def encode(event: Event[Any]) -> bytes:
    """The event as a JSON-format document (UTF-8 bytes).

    Checks the attributes with ``check_event`` before anything else (the binding codecs rely
    on that): ``ValueError`` for an event without the required attributes.
    """
    attributes = event.attributes
    check_event(attributes)
    if not _NAMES.issuperset(attributes):
        _check_names(attributes)
    out: dict[str, Any] = dict(attributes)
    # Fast path: ``time`` is the only non-string value of the usual event. With only
    # strings left, ``_convert`` would change nothing but turn a ``str`` subclass into a
    # ``str``, which serializes to the same JSON string.
    time = out.get("time")
    if time.__class__ is datetime:
        out["time"] = format_time(time)
    try:
        _join(out.values())
    except TypeError:
        _convert(attributes, out)
    data = event.data
    content_type: Any = attributes.get("datacontenttype")
    if isinstance(data, BaseModel) and (
        not isinstance(content_type, str)  # absent (or not a string): JSON is implied
        or content_type == APPLICATION_JSON  # the usual type, without the call
        or is_json_content_type(content_type)
    ):
        # the model's JSON document spliced in as ``data`` (no round trip through Python
        # objects)
        return b"".join((_dumps(out)[:-1], b',"data":', model_json(data), b"}"))
    if isinstance(data, BaseModel):
        # a non-JSON content type: the model in that format (Avro, Protobuf, XML), binary
        # formats as ``data_base64``, text formats as a ``data`` string
        encoded = encode_payload(
            data, content_type if isinstance(content_type, str) else None, event
        )
        if encoded is None:
            return b"".join((_dumps(out)[:-1], b',"data":', model_json(data), b"}"))
        payload, codec = encoded
        if codec.binary:
            out["data_base64"] = base64.b64encode(payload).decode("ascii")
        else:
            out["data"] = payload.decode("utf-8")
        return _dumps(out)
    if data is None:
        return _dumps(out)
    if isinstance(data, (bytes, bytearray, memoryview)):
        out["data_base64"] = base64.b64encode(data).decode("ascii")
        return _dumps(out)
    if is_json_content_type(content_type if isinstance(content_type, str) else None):
        out["data"] = data
    elif isinstance(data, str):
        out["data"] = data
    else:
        payload = encode_data(data)[0] or b""
        try:
            out["data"] = payload.decode("utf-8")
        except UnicodeDecodeError:
            out["data_base64"] = base64.b64encode(payload).decode("ascii")
    return _dumps(out)


def encode_batch(events: Iterable[Event[Any]]) -> bytes:
    """A JSON batch (json-format.md section 4): an array of JSON-format events."""
    return b"[" + b",".join([encode(ev) for ev in events]) + b"]"


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


def parse(body: bytes | str) -> Any:
    """``json.loads`` raising ``DecodeError("invalid-json")``."""
    try:
        # cache_strings="keys": values (ids, times) rarely repeat, caching them only costs
        return _loads(body, cache_strings="keys")
    except (ValueError, RecursionError, TypeError) as exc:  # from_json: ValueError
        raise DecodeError("invalid-json", str(exc)[:200]) from None


def from_object(obj: Any, binding: Binding | None = None) -> Event[Any]:
    """Build an event from a parsed JSON-format object (``obj`` stays as given)."""
    if type(obj) is not dict:
        raise DecodeError("invalid-json", "a CloudEvent must be a JSON object")
    members: dict[str, Any] = dict(obj)
    data, data_base64 = members.pop("data", None), members.pop("data_base64", None)
    return _finish(_attributes(members), data, data_base64, binding)


def from_parsed(obj: Any, binding: Binding | None = None) -> Event[Any]:
    """``from_object`` for an object that ``parse`` just returned (the codecs' case), faster.

    The parsed object is ours: the data members are popped from it instead of from a copy,
    and when it holds known attribute names with string values only (the usual event) it
    becomes the attributes as is, which ``_attributes`` would copy unchanged. ``_join``
    tells the string values apart exactly here: parsed JSON holds no ``str`` subclasses.
    """
    if type(obj) is not dict:
        return from_object(obj)  # raises the error for a non-object
    data, data_base64 = obj.pop("data", None), obj.pop("data_base64", None)
    if _NAMES.issuperset(obj):
        try:
            _join(obj.values())
        except TypeError:
            pass
        else:
            return _finish(obj, data, data_base64, binding)
    return _finish(_attributes(obj), data, data_base64, binding)


def _attributes(members: dict[str, Any]) -> dict[str, AttrValue]:
    """The attributes among the members of an event without its data members: names checked,
    ``null`` members dropped, values checked (string, boolean or 32-bit integer)."""
    attributes: dict[str, AttrValue] = {}
    for name, value in members.items():
        if value is None:
            continue
        if name not in _NAMES:
            if not is_attribute_name(name):
                raise DecodeError("invalid-attribute-name", repr(name))
            if len(name) <= CACHE_KEY_MAX and len(_NAMES) < 4096:
                _NAMES.add(name)
        t = type(value)
        if t is str or t is bool:
            attributes[name] = value
        elif t is int and INT32_MIN <= value <= INT32_MAX:
            attributes[name] = value
        else:
            raise DecodeError("invalid-attribute", f"{name}: unsupported JSON value")
    return attributes


def _finish(
    attributes: dict[str, AttrValue],
    data: Any,
    data_base64: Any,
    binding: Binding | None,
) -> Event[Any]:
    """``from_object`` after the attributes are collected: checks and the payload.

    ``data`` and ``data_base64`` are ``None`` when absent or ``null``.
    """
    check_decoded(attributes)
    if data_base64 is not None:
        if data is not None:
            raise DecodeError("invalid-data", "both data and data_base64")
        if type(data_base64) is not str:
            raise DecodeError("invalid-data", "data_base64 must be a string")
        try:
            data = base64.b64decode(data_base64, validate=True)
        except (binascii.Error, ValueError):
            raise DecodeError("invalid-encoding", "data_base64 is not base64") from None
    elif data is not None and type(data) is not str:
        content_type: Any = attributes.get("datacontenttype")
        # ``is_json_content_type``, without the call for the usual type
        if content_type != APPLICATION_JSON and not is_json_content_type(content_type):
            raise DecodeError("invalid-data", "non-JSON data must be a string")
    return Event(attributes, data, binding)


def decode(body: bytes | str) -> Event[Any]:
    """Parse a JSON-format event; raises ``DecodeError`` (never anything else)."""
    try:
        return from_parsed(parse(body))
    except DecodeError:
        raise
    except Exception as exc:  # a contract: decode raises only DecodeError
        raise DecodeError("invalid-message", f"{type(exc).__name__}: {exc}") from None


def decode_batch(body: bytes | str) -> list[Event[Any]]:
    """Parse a JSON batch (an array of events, possibly empty)."""
    try:
        items = parse(body)
        if type(items) is not list:
            raise DecodeError("invalid-batch", "a batch must be a JSON array")
        return [from_parsed(item, None) for item in items]
    except DecodeError:
        raise
    except Exception as exc:
        raise DecodeError("invalid-message", f"{type(exc).__name__}: {exc}") from None


def sniff(payload: bytes) -> Event[Any] | None:
    """The structured event in ``payload`` if it is a JSON object with ``specversion``.

    For transports where a CloudEvent may arrive without any content type (MQTT 3.1.1, NATS
    before headers): anything else is a plain message (``None``).
    """
    head = payload[:1]
    if head != b"{" and not (head.isspace() and payload.lstrip()[:1] == b"{"):
        return None
    try:
        obj = _loads(payload, cache_strings="keys")
    except (ValueError, RecursionError):
        return None
    if type(obj) is not dict or "specversion" not in obj:
        return None
    return from_parsed(obj, None)
