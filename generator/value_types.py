"""The value types of xRegistry attributes and CloudEvents attributes: for each type, a check
that a constant value fits it (``None`` when it does, else why not), and the RFC 6570 level 1
template rule of ``string``, ``symbol`` and ``uritemplate`` values."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_SYMBOL = re.compile(r"^[A-Za-z0-9_]+$")
_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DURATION = re.compile(
    r"^-?P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$"
)


def template_problem(value: str) -> str | None:
    """Why ``value`` is not an RFC 6570 level 1 template (``None`` when it is)."""
    stripped = _PLACEHOLDER.sub("", value)
    if "{" in stripped or "}" in stripped:
        return "unbalanced '{' or '}'"
    for name in _PLACEHOLDER.findall(value):
        if not _SYMBOL.match(name):
            return f"placeholder '{{{name}}}' must be letters, digits and '_'"
    return None


def _is_str(v: Any) -> str | None:
    return None if isinstance(v, str) else "expected a string"


def _templated_str(v: Any) -> str | None:
    return _is_str(v) or template_problem(v)


def _is_int(v: Any) -> str | None:
    return None if isinstance(v, int) and not isinstance(v, bool) else "expected an integer"


def _is_number(v: Any) -> str | None:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    return None if ok else "expected a number"


def _is_bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "expected true or false"


def _is_timestamp(v: Any) -> str | None:
    if not isinstance(v, str):
        return "expected an RFC 3339 timestamp string"
    return None if _TIMESTAMP.match(v) else "expected an RFC 3339 timestamp"


def _is_duration(v: Any) -> str | None:
    ok = isinstance(v, str) and _DURATION.match(v)
    return None if ok else "expected an ISO 8601 duration like 'PT5M'"


def _is_binary(v: Any) -> str | None:
    if not isinstance(v, str):
        return "expected a base64 string"
    try:
        base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        return "expected base64"
    return None


#: xRegistry/CloudEvents attribute type -> value check (None when the value fits)
VALUE_CHECKS: dict[str, Callable[[Any], str | None]] = {
    "any": lambda v: None,
    "string": _templated_str,
    "symbol": _templated_str,
    "uritemplate": _templated_str,
    "uri": _is_str,
    "urireference": _is_str,
    "timestamp": _is_timestamp,
    "duration": _is_duration,
    "integer": _is_int,
    "number": _is_number,
    "boolean": _is_bool,
    "binary": _is_binary,
}
