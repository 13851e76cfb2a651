"""HTTP protocol binding (``bindings/http-protocol-binding.md``), pure functions.

Binary mode (section 3.1): the body is the data; ``datacontenttype`` <-> ``Content-Type``
(no ``ce-datacontenttype`` header is written); every other attribute <-> header
``ce-<name>``. Values are canonical strings percent-encoded per section 3.1.3.2: space, ``"``,
``%`` and every character outside U+0021-U+007E become ``%XY`` of their UTF-8 bytes
(upper-case hex). Decoding undoes every RFC 7230 quoted-string in the value (the whole value
or a part of it), then does one round of
percent-decoding (lower-case hex accepted, invalid UTF-8 such as ``%C0%A0`` rejected). Header
names are case-insensitive. An empty body is "no data". When ``datacontenttype`` is absent and
the codec serialized a pydantic model / JSON value, ``Content-Type: application/json`` is
written (spec.md: set the implied type explicitly).

Structured mode (section 3.2): ``Content-Type: application/cloudevents+json; charset=UTF-8``
and the JSON format as body. Batch mode (section 3.3): ``encode_batch`` / ``decode_batch``
with ``application/cloudevents-batch+json``; ``decode`` of a batch raises
``DecodeError("unexpected-batch")``.

Mode detection: ``Content-Type`` prefixed ``application/cloudevents-batch`` -> batch, else
prefixed ``application/cloudevents`` -> structured (case-insensitive), else binary; a binary
message without ``ce-`` headers is a plain HTTP message (``attributes == {}``).

Routing: ``method`` (default ``POST``), ``path`` (default ``/``), ``query`` and ``status``
come from the event's ``HttpBinding`` unless overridden; ``decode`` splits the request target
into ``HttpBinding.path`` and ``HttpBinding.query``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ..._attributes import check_decoded, check_event, to_canonical
from ..._errors import DecodeError
from ..._event import Event, data_bytes
from .. import jsonformat
from .._common import (
    _MODES,
    BATCH,
    BINARY,
    CE_JSON_BATCH,
    CONTENT,
    STRUCTURED,
    HeaderNames,
    WireNames,
    binary_payload,
    builder,
    check_mode,
    collect,
    content_mode,
    foreign,
    invalid_message,
    is_pct_safe,
    pct_encode,
)
from .spec import HttpBinding, HttpMessage

__all__ = [
    "HttpBinding",
    "HttpMessage",
    "encode",
    "decode",
    "encode_batch",
    "decode_batch",
]

#: ``HttpBinding(method, path, headers, query, status)``
new_http_binding: Callable[..., HttpBinding] = builder(HttpBinding)
#: ``HttpMessage(method, path, headers, body, status)``
new_http_message: Callable[..., HttpMessage] = builder(HttpMessage)

CONTENT_TYPE = "content-type"
STRUCTURED_CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8"
BATCH_CONTENT_TYPE = CE_JSON_BATCH + "; charset=UTF-8"
_NAMES = WireNames("ce-")
_HEADERS = HeaderNames("ce-", (CONTENT_TYPE,), fold=True)
_Pairs = tuple[tuple[str, str], ...]


def _route(
    event: Event[Any] | None,
    method: str | None,
    path: str | None,
    query: _Pairs | None,
    headers: _Pairs | None,
    status: int | None,
) -> tuple[str, str, list[tuple[str, str]], int | None]:
    """Method, request target, extra headers and status from overrides and the binding."""
    b = event.binding if event is not None else None
    if type(b) is HttpBinding:
        method = method or b.method
        path = path or b.path
        query = b.query if query is None else query
        headers = b.headers if headers is None else headers
        status = b.status if status is None else status
    target = path or "/"
    if query:
        target += "?" + urlencode(query)
    extra = foreign(headers, _HEADERS) if headers else []
    return method or "POST", target, extra, status


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    method: str | None = None,
    path: str | None = None,
    query: _Pairs | None = None,
    headers: _Pairs | None = None,
    status: int | None = None,
) -> HttpMessage:
    """Encode ``event`` as an HTTP request (or response, with ``status``)."""
    binary = check_mode(mode)
    method, target, extra, status = _route(event, method, path, query, headers, status)
    attributes = event.attributes
    if not attributes:
        plain = tuple(headers) if headers is not None else _plain_headers(event)
        return HttpMessage(method, target, plain, data_bytes(event) or b"", status)
    if not binary:
        # ``jsonformat.encode`` starts with the ``check_event`` of the binary path
        document = jsonformat.encode(event)
        structured = ((CONTENT_TYPE, STRUCTURED_CONTENT_TYPE), *extra)
        return new_http_message(method, target, structured, document, status)
    check_event(attributes)
    body, content_type = binary_payload(event)
    names = _NAMES.out
    # ``canonical`` inlined: most values are already canonical strings
    out = [
        (
            (names.get(n) or _NAMES.add(n)),
            v if v.__class__ is str else to_canonical(v),
        )
        for n, v in attributes.items()
        if n != "datacontenttype"
    ]
    # Fast path: one check of all values joined; usually none needs percent-encoding
    if not is_pct_safe("".join([v for _, v in out])):
        out = [(n, pct_encode(v)) for n, v in out]
    if content_type is not None:
        out.append((CONTENT_TYPE, content_type))
    out += extra
    return new_http_message(method, target, tuple(out), body or b"", status)


def _plain_headers(event: Event[Any]) -> _Pairs:
    b = event.binding
    return b.headers if type(b) is HttpBinding else ()


def encode_batch(
    events: Iterable[Event[Any]],
    *,
    method: str | None = None,
    path: str | None = None,
    query: _Pairs | None = None,
    headers: _Pairs | None = None,
    status: int | None = None,
) -> HttpMessage:
    """Encode events as one batch request (section 3.3); routing from the first event."""
    events = list(events)
    first = events[0] if events else None
    method, target, extra, status = _route(first, method, path, query, headers, status)
    out = [(CONTENT_TYPE, BATCH_CONTENT_TYPE)]
    out += extra
    body = jsonformat.encode_batch(events)
    return HttpMessage(method, target, tuple(out), body, status)


def _binding(message: HttpMessage, headers: list[tuple[str, str]]) -> HttpBinding:
    path, query = message.path, ""
    # split off the query only where there is one (``partition`` is the costly part)
    if path.__class__ is not str or "?" in path:
        path, _, query = path.partition("?")
    pairs = tuple(parse_qsl(query, keep_blank_values=True)) if query else ()
    return new_http_binding(message.method, path, tuple(headers), pairs, message.status)


def decode(message: HttpMessage) -> Event[Any]:
    """Decode an HTTP message (mode from ``Content-Type``); raises ``DecodeError``."""
    try:
        attributes, content_type, other = collect(message.headers, _HEADERS, True)
        # ``content_mode`` without the call for an absent or known content type
        mode = BINARY if content_type is None else _MODES.get(content_type)
        if mode is None:
            mode = content_mode(content_type)
        if mode == STRUCTURED:
            obj = jsonformat.parse(message.body)
            return jsonformat.from_parsed(obj, _binding(message, other))
        if mode == BATCH:
            raise DecodeError("unexpected-batch", "use http.decode_batch")
        data = message.body or None
        if not attributes:
            return Event({}, data, _binding(message, list(message.headers)))
        if content_type is not None:
            if "datacontenttype" in attributes:
                raise DecodeError("duplicate-attribute", "datacontenttype")
            attributes["datacontenttype"] = content_type
        return Event(check_decoded(attributes), data, _binding(message, other))
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None


def decode_batch(message: HttpMessage) -> list[Event[Any]]:
    """Decode a batch (section 3.3); a non-batch message gives a one-event list."""
    try:
        content_type = None
        for name, value in message.headers:
            if _HEADERS.classify(name) == CONTENT:
                content_type = value
        if content_mode(content_type) != BATCH:
            return [decode(message)]
        _, _, other = collect(message.headers, _HEADERS, True)
        binding = _binding(message, other)
        events = jsonformat.decode_batch(message.body)
        for event in events:
            event.binding = binding
        return events
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None
