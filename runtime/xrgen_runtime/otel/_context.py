"""The W3C trace context of an event: its CloudEvents Distributed Tracing extension
attributes ``traceparent`` and ``tracestate`` read into an OpenTelemetry ``Context``, and a
span context written as them.

Reads exactly what OpenTelemetry's ``TraceContextTextMapPropagator`` accepts (same pattern,
same refusals: version ``ff``, a version ``00`` value with trailing fields, all-zero ids,
values over 512 characters, a ``tracestate`` over its maximum length), without the generic
carrier machinery (the dispatcher reads one per message).
"""

from __future__ import annotations

import re

from opentelemetry.context import Context
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    TraceFlags,
    TraceState,
    set_span_in_context,
)

__all__ = ["parent_context", "traceparent", "tracestate"]

_TRACEPARENT = re.compile(
    "^[ \t]*([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:(-.*)|[ \t]*)$"
)
#: the longest ``traceparent`` and ``tracestate`` values read (as OpenTelemetry's propagator)
_CANONICAL = re.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}")
_MAX = 512
_MAX_STATE = 8192
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
_EMPTY = Context()
#: every two-digit lowercase hex ``trace-flags`` value, as ``TraceFlags``
_FLAGS = {f"{i:02x}": TraceFlags(i) for i in range(256)}


def parent_context(value: object, state: object) -> Context | None:
    """The remote context of a ``traceparent`` (and ``tracestate``) attribute value, or
    ``None`` when there is none or it is not valid."""
    if value.__class__ is not str or len(value) > _MAX:
        return None
    if len(value) == 55 and _CANONICAL.fullmatch(value) is not None:
        # the usual value, as a version 00 writer makes it: no blanks, no trailing fields
        version, trace_id, span_id, flags = (
            value[:2],
            value[3:35],
            value[36:52],
            value[53:],
        )
        rest = None
    else:
        match = _TRACEPARENT.match(value)
        if match is None:
            return None
        version, trace_id, span_id, flags, rest = match.groups()
    if trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN or version == "ff":
        return None
    if version == "00" and rest:
        return None
    trace_state = None
    if state.__class__ is str and len(state) <= _MAX_STATE:
        trace_state = TraceState.from_header([state])
    span_context = SpanContext(
        int(trace_id, 16),
        int(span_id, 16),
        True,
        _FLAGS[flags],
        trace_state,
    )
    return set_span_in_context(NonRecordingSpan(span_context), _EMPTY)


def traceparent(span_context: SpanContext) -> str:
    """``span_context`` as a W3C ``traceparent`` value (version 00)."""
    return (
        f"00-{span_context.trace_id:032x}-{span_context.span_id:016x}"
        f"-{span_context.trace_flags:02x}"
    )


def tracestate(span_context: SpanContext) -> str | None:
    """``span_context``'s trace state as a W3C ``tracestate`` value, ``None`` when empty."""
    state = span_context.trace_state
    return state.to_header() if state else None
