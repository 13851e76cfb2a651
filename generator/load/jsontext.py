"""JSON documents -> JSON data within ``Limits``: syntax errors with ``line:col``, nesting,
string length, NaN/Infinity, over-long integers and duplicate keys, each with its pointer."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from ..diagnostics import pointer
from ..limits import MAX_INT_DIGITS, Limits
from .errors import (
    XRG_DUPLICATE_KEY,
    XRG_NOT_JSON,
    XRG_TOO_DEEP,
    XRG_TOO_LARGE,
    SourceError,
)


def _scan(data: Any, limits: Limits, strings: bool) -> int | None:
    """One pass over a parsed document, level by level: the number of object keys, or
    ``None`` when something is nested deeper than ``max_depth`` or (with ``strings``) a string
    value is longer than ``max_string_chars`` (``_check_tree`` then finds where). Iterative:
    a deep document must not exhaust the interpreter stack."""
    smax = limits.max_string_chars
    level: list[Any] = [data]
    depth = 1
    keys = 0
    while level:
        if depth > limits.max_depth:
            return None
        below: list[Any] = []
        extend = below.extend
        for node in level:
            if type(node) is dict:
                keys += len(node)
                values: Any = node.values()
            else:
                values = node
            extend([v for v in values if type(v) is dict or type(v) is list])
            if strings:
                for v in values:
                    if type(v) is str and len(v) > smax:
                        return None
        level = below
        depth += 1
    return keys


def _first_too_deep(data: Any, limit: int) -> str | None:
    """The JSON Pointer of the first container nested deeper than ``limit``, else ``None``."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return path_to(data, node)
        for v in node.values() if type(node) is dict else node:
            if type(v) is dict or type(v) is list:
                stack.append((v, depth + 1))
    return None


def path_to(root: Any, target: Any) -> str:
    """The JSON Pointer of the container ``target`` (by identity) inside ``root``."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if node is target:
            return pointer(*path)
        items = node.items() if type(node) is dict else enumerate(node)
        for k, v in items:
            if type(v) is dict or type(v) is list:
                stack.append((v, (*path, str(k))))
    return ""


def _long_string(data: Any, limit: int) -> str | None:
    """The pointer of the first string (value or key) longer than ``limit`` characters."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        for k, v in items:
            if (type(k) is str and len(k) > limit) or (type(v) is str and len(v) > limit):
                return pointer(*path, str(k))
            if type(v) is dict or type(v) is list:
                stack.append((v, (*path, str(k))))
    return None


def _refuse_constant(name: str) -> Any:
    raise SourceError(XRG_NOT_JSON, f"{name} is not a JSON number")


#: a key in JSON text: a string, optional whitespace, a colon
_JSON_KEY = re.compile(r'"\s*:')


def parse_json(text: str, limits: Limits) -> Any:
    try:
        # 1e400 would parse as inf: catalogs hold few floats, so checking each costs little
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise SourceError(
            "XRG101", f"invalid JSON at line {e.lineno}:{e.colno}: {e.msg}"
        ) from None
    except RecursionError:
        raise SourceError(
            XRG_TOO_DEEP, f"arrays and objects nested deeper than {limits.max_depth} levels"
        ) from None
    except ValueError:  # int() past sys.get_int_max_str_digits()
        raise SourceError(
            XRG_NOT_JSON, f"an integer has more than {MAX_INT_DIGITS} digits"
        ) from None
    _check_tree(data, limits, text)
    return data


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise SourceError(XRG_NOT_JSON, f"{text} is too large for a floating-point number")
    return value


def _check_tree(data: Any, limits: Limits, text: str) -> None:
    """Depth, string length and duplicate keys of a parsed JSON document.

    Duplicate keys: every key in the text is a string followed by a colon, so when the text
    has as many ``":`` as the parsed objects have keys, no key was repeated (the fast path,
    a C-speed count); otherwise (a repeat, or ``":`` inside a string) the text is parsed
    again, seeing every object's key list."""
    if type(data) is not dict and type(data) is not list:
        if type(data) is str and len(data) > limits.max_string_chars:
            raise SourceError(
                XRG_TOO_LARGE, f"a string longer than {limits.max_string_chars} characters"
            )
        return
    # no string can be longer than the text it is in
    keys = _scan(data, limits, strings=len(text) > limits.max_string_chars)
    if keys is None:
        deep = _first_too_deep(data, limits.max_depth)
        if deep is not None:
            raise SourceError(
                XRG_TOO_DEEP,
                f"arrays and objects nested deeper than {limits.max_depth} levels",
                deep,
            )
        long = _long_string(data, limits.max_string_chars)
        raise SourceError(
            XRG_TOO_LARGE, f"a string longer than {limits.max_string_chars} characters", long or ""
        )
    if keys != text.count('":') and keys != _JSON_KEY.subn("", text)[1]:
        _find_duplicate_key(text)


def _find_duplicate_key(text: str) -> None:
    """Parse ``text`` again with every object's key list; raise XRG109 at the first repeat."""
    duplicates: list[tuple[dict[str, Any], str]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for k, _ in pairs:
                if k in seen:
                    duplicates.append((d, k))
                    break
                seen.add(k)
        return d

    data = json.loads(text, object_pairs_hook=pairs_hook)
    if duplicates:
        d, key = duplicates[0]
        raise SourceError(
            XRG_DUPLICATE_KEY,
            f"duplicate key {key!r}: an object may hold each key once",
            path_to(data, d) + pointer(key),
        )
