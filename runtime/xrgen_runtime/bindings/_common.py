"""Helpers shared by the binding codecs: wire names, content modes, payloads, percent-encoding,
fast constructors of the wire types.

Private to ``bindings/``; the public surface is each binding module's ``encode``/``decode``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from .._attributes import to_canonical
from .._cloudevents import (
    CORE_ATTRIBUTE_KINDS,
    JSON_BATCH_MEDIA_TYPE,
    JSON_MEDIA_TYPE,
    STRUCTURED_PREFIX,
    AttrValue,
    is_attribute_name,
)
from .._errors import DecodeError
from .._event import Event, encode_data, model_json
from .._limits import CACHE_KEY_MAX
from ..formats import encode_payload

T = TypeVar("T")

#: media type of the JSON event format
CE_JSON = JSON_MEDIA_TYPE
#: media type of the JSON batch format
CE_JSON_BATCH = JSON_BATCH_MEDIA_TYPE
#: implied ``datacontenttype`` of a payload the codec serializes as JSON (spec.md
#: "datacontenttype": "the target datacontenttype SHOULD be set explicitly to the implied
#: datacontenttype of the source")
APPLICATION_JSON = "application/json"

BINARY = "binary"
STRUCTURED = "structured"
BATCH = "batch"

#: classification of a wire header name: the content type field
CONTENT = ":content"
#: classification of a wire header name: not a CloudEvents header
OTHER = ""

_CACHE_LIMIT = 4096
_MODES: dict[str, str] = {}


def content_mode(content_type: str | None) -> str:
    """``BINARY``, ``STRUCTURED`` (JSON format) or ``BATCH`` for a content type.

    Bindings section "Content Modes": a content type prefixed with ``application/cloudevents``
    (case-insensitive, 1.0.3-wip) is structured, anything else binary; the batch media type
    is checked first because it shares the prefix. A structured event in a format other than
    JSON raises ``DecodeError("unsupported-format")``.
    """
    if content_type is None:
        return BINARY
    mode = _MODES.get(content_type)
    if mode is None:
        media = content_type.split(";", 1)[0].strip().lower()
        if not media.startswith(STRUCTURED_PREFIX):
            mode = BINARY
        elif media == CE_JSON_BATCH:
            mode = BATCH
        elif media == CE_JSON:
            mode = STRUCTURED
        else:
            raise DecodeError("unsupported-format", content_type)
        if len(content_type) <= CACHE_KEY_MAX and len(_MODES) < _CACHE_LIMIT:
            _MODES[content_type] = mode
    return mode


def check_mode(mode: str) -> bool:
    """``True`` for binary mode, ``False`` for structured; ``ValueError`` otherwise."""
    if mode == BINARY:
        return True
    if mode == STRUCTURED:
        return False
    raise ValueError(f"mode must be 'binary' or 'structured', not {mode!r}")


def binary_payload(event: Event[Any]) -> tuple[bytes | None, str | None]:
    """The payload bytes and the content type of a binary-mode message.

    The content type is the ``datacontenttype`` attribute; when it is absent and the codec
    serialized the payload as JSON (a pydantic model or a JSON value), it is the implied
    ``application/json``. Opaque ``bytes`` and ``str`` payloads get no invented type.
    """
    data = event.data
    payload: bytes | None
    content_type = event.attributes.get("datacontenttype")
    # the common case, before encode_data's other checks
    if isinstance(data, BaseModel):
        if content_type is None or content_type == APPLICATION_JSON:
            payload, is_json = model_json(data), True
        else:
            # the format of the content type (xrgen_runtime.formats): JSON or a codec's
            encoded = encode_payload(
                data, content_type if type(content_type) is str else None, event
            )
            if encoded is None:
                payload, is_json = model_json(data), True
            else:
                payload, is_json = encoded[0], False
    else:
        payload, is_json = encode_data(data)
    if content_type is None:
        return payload, APPLICATION_JSON if is_json else None
    if type(content_type) is not str:
        raise ValueError("datacontenttype must be a string")
    return payload, content_type


class WireNames:
    """Attribute name -> wire name (``prefix + name``), validated once and cached.

    Usage on the hot path: ``names.out.get(name) or names.add(name)``.
    """

    __slots__ = ("prefix", "out")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.out: dict[str, str] = {n: prefix + n for n in CORE_ATTRIBUTE_KINDS}

    def add(self, name: str) -> str:
        """Validate ``name`` (spec.md naming rules) and return its wire name."""
        if not is_attribute_name(name):
            raise ValueError(f"invalid CloudEvents attribute name {name!r}")
        wire = self.prefix + name
        if len(name) <= CACHE_KEY_MAX and len(self.out) < _CACHE_LIMIT:
            self.out[name] = wire
        return wire


class HeaderNames:
    """Classifies received header names: attribute name, ``CONTENT`` or ``OTHER``.

    ``prefix`` marks CloudEvents attributes; ``content`` lists the names of the content type
    field (compared after case folding when ``fold`` is true, as for HTTP and NATS header
    names, which are case-insensitive). A prefixed name whose rest is not a valid attribute
    name raises ``DecodeError("invalid-attribute-name")``.
    """

    __slots__ = ("prefix", "content", "fold", "cache")

    def __init__(self, prefix: str, content: tuple[str, ...], fold: bool) -> None:
        self.prefix = prefix.lower() if fold else prefix
        self.content = content
        self.fold = fold
        self.cache: dict[str, str] = {}

    def classify(self, header: str) -> str:
        """The classification of ``header`` (cached)."""
        key = header.lower() if self.fold else header
        if key in self.content:
            kind = CONTENT
        elif key.startswith(self.prefix):
            kind = key[len(self.prefix) :]
            if not is_attribute_name(kind):
                raise DecodeError("invalid-attribute-name", repr(header))
        else:
            kind = OTHER
        if len(header) <= CACHE_KEY_MAX and len(self.cache) < _CACHE_LIMIT:
            self.cache[header] = kind
        return kind


def put(attributes: dict[str, AttrValue], name: str, value: AttrValue) -> None:
    """Store a received attribute; spec.md: an attribute appears at most once."""
    if name in attributes:
        raise DecodeError("duplicate-attribute", name)
    attributes[name] = value


def utf8(name: str, raw: bytes) -> str:
    """Decode a UTF-8 header value or raise ``DecodeError("invalid-encoding")``."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("invalid-encoding", f"{name}: not UTF-8") from None
    except AttributeError:
        raise DecodeError("invalid-message", f"{name}: not bytes") from None


def canonical(value: AttrValue) -> str:
    """``to_canonical`` with a fast path for strings."""
    return value if type(value) is str else to_canonical(value)


def invalid_message(exc: Exception) -> DecodeError:
    """The ``DecodeError`` for an input that is not a well-formed wire message object."""
    return DecodeError("invalid-message", f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------------------------
# Percent-encoding of header values (http-protocol-binding.md section 3.1.3.2; the NATS binding
# copies it word for word)
# --------------------------------------------------------------------------------------------

_HEX = "0123456789ABCDEFabcdef"
_SAFE = frozenset(chr(c) for c in range(0x21, 0x7F)) - {'"', "%"}


def is_pct_safe(value: str) -> bool:
    """Whether ``pct_encode(value)`` is ``value`` (only U+0021-U+007E, no ``"`` or ``%``)."""
    return (
        value.isascii()
        and value.isprintable()
        and " " not in value
        and '"' not in value
        and "%" not in value
    )


def pct_encode(value: str) -> str:
    """Percent-encode space, ``"``, ``%`` and every character outside U+0021-U+007E.

    Each such character is encoded as the ``%XY`` (upper-case hex) of each of its UTF-8 bytes.
    ``ValueError`` for an unpaired surrogate (not a valid CloudEvents String).
    """
    if is_pct_safe(value):
        return value
    safe = _SAFE
    return "".join(
        ch if ch in safe else "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
        for ch in value
    )


def pct_decode(value: str) -> str:
    """One round of percent-decoding; invalid UTF-8 (e.g. overlong ``%C0%A0``) is rejected.

    Lower-case hex and needlessly encoded characters are accepted (MUST). A ``%`` not followed
    by two hex digits raises ``DecodeError("invalid-encoding")``, as does invalid UTF-8.
    """
    if "%" not in value:
        return value
    parts = value.split("%")
    try:
        out = bytearray(parts[0].encode("utf-8"))
        for part in parts[1:]:
            if len(part) < 2 or part[0] not in _HEX or part[1] not in _HEX:
                raise DecodeError(
                    "invalid-encoding", f"bad percent-escape in {value!r}"
                )
            out.append(int(part[:2], 16))
            out += part[2:].encode("utf-8")
        return out.decode("utf-8")
    except UnicodeError:
        raise DecodeError("invalid-encoding", f"invalid UTF-8 in {value!r}") from None


def unquote_http(value: str) -> str:
    """Undo the RFC 7230 section 3.2.6 quoted-strings in a header value.

    Every quoted-string in the value (the whole value, or a part such as ``a "b\\"c" d``)
    loses its quotes and backslash escapes; the text around them stays as is. One pass over
    the value. An unterminated quoted-string raises ``DecodeError("invalid-encoding")``.
    """
    if '"' not in value:
        return value
    out: list[str] = []
    quoted = escaped = False
    for ch in value:
        if escaped:
            out.append(ch)
            escaped = False
        elif not quoted:
            if ch == '"':
                quoted = True
            else:
                out.append(ch)
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = False
        else:
            out.append(ch)
    if quoted:
        raise DecodeError("invalid-encoding", "unterminated quoted-string")
    return "".join(out)


def collect(
    pairs: Iterable[tuple[str, Any]], names: HeaderNames, escaped: bool
) -> tuple[dict[str, AttrValue], str | None, list[tuple[str, Any]]]:
    """Split received string headers into attributes, content type and other headers.

    ``escaped``: values are quoted-string unescaped and percent-decoded (HTTP and NATS
    section 3.1.3.2); otherwise they are taken as canonical strings. An attribute or the
    content type given twice raises ``DecodeError("duplicate-attribute")``.
    """
    attributes: dict[str, AttrValue] = {}
    content_type: str | None = None
    other: list[tuple[str, Any]] = []
    cache = names.cache
    for name, value in pairs:
        kind = cache.get(name)
        if kind is None:
            kind = names.classify(name)
        if type(value) is not str and not isinstance(value, str):
            raise DecodeError("invalid-message", f"{name}: value is not a string")
        if not kind:
            if len(name) == 1:
                check_pairs(pairs)  # a two-character string unpacks like a pair
            other.append((name, value))
            continue
        if kind == CONTENT:
            if content_type is not None:
                raise DecodeError("duplicate-attribute", "content type")
            content_type = value
            continue
        if escaped and ("%" in value or '"' in value):
            value = pct_decode(unquote_http(value))
        if kind in attributes:
            raise DecodeError("duplicate-attribute", kind)
        attributes[kind] = value
    return attributes, content_type, other


def check_pairs(pairs: Iterable[Any]) -> None:
    """``DecodeError("invalid-message")`` unless every item of ``pairs`` is a (name, value)
    tuple or list."""
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise DecodeError("invalid-message", "an item is not a (name, value) pair")


def foreign(
    pairs: Iterable[tuple[str, Any]], names: HeaderNames
) -> list[tuple[str, Any]]:
    """Binding headers/properties that are neither CloudEvents attributes nor content type."""
    out: list[tuple[str, Any]] = []
    for name, value in pairs:
        try:
            kind = names.cache.get(name)
            if kind is None:
                kind = names.classify(name)
        except DecodeError:
            continue
        if not kind:
            out.append((name, value))
    return out


# --------------------------------------------------------------------------------------------
# Positional constructors for the frozen dataclasses that the codecs build once per message.
# A frozen dataclass's ``__init__`` assigns each field through ``object.__setattr__`` (to get
# past its own ``__setattr__``, which raises); calling each slot's descriptor ``__set__``
# directly does the same assignment in about 60% of the time. The instances are identical.
# Arguments: every field, in declaration order.
# --------------------------------------------------------------------------------------------


def builder(cls: type[T]) -> Callable[..., T]:
    """The positional constructor of the frozen, slotted dataclass ``cls`` (4 or more
    fields; every field given)."""
    new = object.__new__
    setters = [getattr(cls, f.name).__set__ for f in fields(cls)]  # type: ignore[arg-type]
    if len(setters) < 4:
        raise TypeError(f"builder: {cls.__name__} has {len(setters)} fields, not 4+")
    if len(setters) > 5:  # one call per field, unrolled (a loop over them takes ~1.4x)
        space: dict[str, Any] = {"new": new, "cls": cls}
        space.update((f"s{i}", s) for i, s in enumerate(setters))
        values = ", ".join(f"v{i}" for i in range(len(setters)))
        calls = "".join(f"    s{i}(o, v{i})\n" for i in range(len(setters)))
        code = f"def build_many({values}):\n    o = new(cls)\n{calls}    return o\n"
        exec(code, space)  # noqa: S102  (text made above from field counts only)
        return cast(Callable[..., T], space["build_many"])
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
