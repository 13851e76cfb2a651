"""NATS protocol binding (``bindings/nats-protocol-binding.md``), pure functions.

Binary mode (1.0.3-wip, NATS >= 2.2 headers): the payload is the data; every attribute,
**including** ``datacontenttype``, <-> header ``ce-<name>`` (the spec's examples use
``ce-datacontenttype``; no ``Content-Type`` is written). Values are canonical strings,
percent-encoded and decoded exactly as in the HTTP binding (section 3.1.3.2, quoted-strings
undone on receipt, invalid UTF-8 rejected). Header names are case-insensitive. An empty payload
is "no data". Like HTTP, a missing ``datacontenttype`` is written as the implied
``application/json`` when the codec serialized a pydantic model / JSON value.

Structured mode (v1.0.2 and 1.0.3-wip): the JSON format as payload, with header
``Content-Type: application/cloudevents+json``.

Mode detection: a ``Content-Type`` header prefixed ``application/cloudevents``
(case-insensitive) -> structured; else ``ce-`` headers -> binary; a message without either
(e.g. from a server before 2.2, where NATS was structured-only) is structured when its payload
is a JSON object with ``specversion``, and otherwise a plain NATS message
(``attributes == {}``). In binary mode a ``Content-Type`` header stays in
``NatsBinding.headers``.

Routing: ``subject`` (required, ``ValueError`` if missing), ``reply`` and extra headers come
from the event's ``NatsBinding`` unless overridden.
"""

from __future__ import annotations

from typing import Any

from ..._attributes import check_decoded, check_event
from ..._errors import DecodeError
from ..._event import Event, data_bytes
from .. import jsonformat
from .._common import (
    _MODES,
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
    pct_encode,
)
from .spec import NatsBinding, NatsMessage

__all__ = ["NatsBinding", "NatsMessage", "encode", "decode"]

CONTENT_TYPE = "Content-Type"
_NAMES = WireNames("ce-")
_HEADERS = HeaderNames("ce-", ("content-type",), fold=True)
_Pairs = tuple[tuple[str, str], ...]


def encode(
    event: Event[Any],
    mode: str = "binary",
    *,
    subject: str | None = None,
    reply: str | None = None,
    headers: _Pairs | None = None,
) -> NatsMessage:
    """Encode ``event`` as a NATS message; keyword arguments override the event's binding."""
    binary = check_mode(mode)
    b = event.binding if type(event.binding) is NatsBinding else None
    if b is not None:
        subject = subject or b.subject
        reply = reply or b.reply
        if headers is None:
            headers = b.headers
    if not subject:
        raise ValueError(
            "nats.encode: no subject; set NatsBinding(subject=...) on the event or pass subject="
        )
    attributes = event.attributes
    if not attributes:
        return NatsMessage(subject, data_bytes(event) or b"", headers or (), reply)
    check_event(attributes)
    if not binary:
        out = [(CONTENT_TYPE, CE_JSON)]
        if headers:
            out += foreign(headers, _HEADERS)
        return NatsMessage(subject, jsonformat.encode(event), tuple(out), reply)
    payload, content_type = binary_payload(event)
    names = _NAMES.out
    out = [
        ((names.get(n) or _NAMES.add(n)), pct_encode(canonical(v)))
        for n, v in attributes.items()
        if n != "datacontenttype"
    ]
    if content_type is not None:
        out.append(("ce-datacontenttype", pct_encode(content_type)))
    if headers:
        out += foreign(headers, _HEADERS)
    return NatsMessage(subject, payload or b"", tuple(out), reply)


def decode(message: NatsMessage) -> Event[Any]:
    """Decode a NATS message (mode from ``Content-Type``); raises ``DecodeError``."""
    try:
        attributes, content_type, other = collect(message.headers, _HEADERS, True)
        # ``content_mode`` without the call for an absent or known content type
        mode = BINARY if content_type is None else _MODES.get(content_type)
        if mode is None:
            mode = content_mode(content_type)
        binding = NatsBinding(message.subject, message.reply, tuple(other))
        if mode == STRUCTURED:
            return jsonformat.from_parsed(jsonformat.parse(message.payload), binding)
        if mode != BINARY:
            raise DecodeError("unsupported-format", "batch mode is HTTP only")
        if not attributes:
            plain = NatsBinding(message.subject, message.reply, tuple(message.headers))
            if content_type is None:
                event = jsonformat.sniff(message.payload)
                if event is not None:
                    event.binding = plain
                    return event
            return Event({}, message.payload or None, plain)
        if content_type is not None:
            binding = NatsBinding(
                message.subject,
                message.reply,
                tuple(other) + ((_content_header(message), content_type),),
            )
        return Event(check_decoded(attributes), message.payload or None, binding)
    except DecodeError:
        raise
    except Exception as exc:
        raise invalid_message(exc) from None


def _content_header(message: NatsMessage) -> str:
    """The spelling of the ``Content-Type`` header name as received."""
    for name, _ in message.headers:
        if name.lower() == "content-type":
            return name
    return CONTENT_TYPE
