"""Structural checks of an embedded Avro schema (names, required members, definition before
use), as (pointer suffix, message) pairs."""

from __future__ import annotations

import re
from typing import Any

Data = dict[str, Any]

_PRIMITIVE_NAMES = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)
_AVRO_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_AVRO_NAMESPACE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def avro_problems(schema: Any) -> list[tuple[str, str]]:
    """Structural problems of an Avro schema as (pointer suffix, message) pairs: records need
    ``fields`` with names and types, enums ``symbols``, arrays ``items``, maps ``values``,
    fixed a ``size``; names follow the Avro name rules; named types are defined before use."""
    out: list[tuple[str, str]] = []
    _avro(schema, "", "", set(), out)
    return out


def _avro(s: Any, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> None:
    if isinstance(s, str):
        if s not in _PRIMITIVE_NAMES and s not in named and (ns + "." + s) not in named:
            out.append((ptr, f"unknown type '{s}'"))
        return
    if isinstance(s, list):
        for i, branch in enumerate(s):
            if isinstance(branch, list):
                out.append((ptr + f"/{i}", "a union must not directly contain a union"))
            else:
                _avro(branch, ptr + f"/{i}", ns, named, out)
        return
    if not isinstance(s, dict):
        out.append((ptr, "expected a type name, an object or a union array"))
        return
    kind = s.get("type")
    if kind in ("record", "error", "enum", "fixed"):
        ns = _avro_define(s, ptr, ns, named, out)
    if kind in ("record", "error"):
        _avro_fields(s, ptr, ns, named, out)
    elif kind == "enum":
        symbols = s.get("symbols")
        if not isinstance(symbols, list) or not all(
            isinstance(x, str) and _AVRO_NAME.match(x) for x in symbols
        ):
            out.append((ptr + "/symbols", "enum 'symbols' must be an array of Avro names"))
        elif len(set(symbols)) != len(symbols):
            out.append((ptr + "/symbols", "enum symbols must be unique"))
    elif kind == "array":
        _avro_child(s, "items", ptr, ns, named, out)
    elif kind == "map":
        _avro_child(s, "values", ptr, ns, named, out)
    elif kind == "fixed":
        size = s.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            out.append((ptr + "/size", "fixed 'size' must be a non-negative integer"))
    elif kind in _PRIMITIVE_NAMES:
        return
    elif kind is None:
        out.append((ptr, "missing 'type'"))
    else:
        _avro(kind, ptr + "/type", ns, named, out)


def _avro_define(s: Data, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> str:
    name = s.get("name")
    space = s.get("namespace")
    if isinstance(space, str) and space and not _AVRO_NAMESPACE.match(space):
        out.append((ptr + "/namespace", f"invalid namespace '{space}'"))
    if not isinstance(name, str) or not _AVRO_NAMESPACE.match(name):
        out.append((ptr + "/name", f"named type needs a valid 'name', not {name!r}"))
        return ns
    if "." in name:
        ns, _, short = name.rpartition(".")
    else:
        ns = space if isinstance(space, str) else ns
        short = name
    named.update({short, f"{ns}.{short}" if ns else short})
    return ns


def _avro_fields(s: Data, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> None:
    fields = s.get("fields")
    if not isinstance(fields, list):
        out.append((ptr + "/fields", "a record needs a 'fields' array"))
        return
    seen: set[str] = set()
    for i, f in enumerate(fields):
        fptr = ptr + f"/fields/{i}"
        if not isinstance(f, dict):
            out.append((fptr, "a field must be an object"))
            continue
        fname = f.get("name")
        if not isinstance(fname, str) or not _AVRO_NAME.match(fname):
            out.append((fptr + "/name", f"invalid field name {fname!r}"))
        elif fname in seen:
            out.append((fptr + "/name", f"duplicate field name '{fname}'"))
        else:
            seen.add(fname)
        if "type" not in f:
            out.append((fptr, "a field needs a 'type'"))
        else:
            _avro(f["type"], fptr + "/type", ns, named, out)


def _avro_child(
    s: Data, key: str, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]
) -> None:
    if key not in s:
        out.append((ptr, f"'{s.get('type')}' needs '{key}'"))
    else:
        _avro(s[key], ptr + "/" + key, ns, named, out)
