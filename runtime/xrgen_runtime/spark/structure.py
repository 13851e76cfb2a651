"""JSON Structure payloads in the Spark decoder: from the parsed wire value to the typed one.

JSON Structure writes some types in a representation ``from_json`` cannot read into their Spark
type (``int64`` as a JSON string, a tuple as a JSON array of mixed types), and some Spark types
are narrower than what ``from_json`` accepts (a ``byte`` column takes 200 and wraps it). So a
JSON Structure payload is parsed with a *wire type* and converted with native expressions by
a *conversion tree* (JSON, written by ``xrgen.formats.jsonstructure.spark``):

- ``None``: the parsed value is the value;
- ``{"k": "leaf", "re": regex, "lo": n, "hi": n, "text": max, "neg": max, "in": [...],
  "to": sql type}``: the value must match ``re``, lie in ``[lo, hi]``, as digit text not exceed
  ``text`` (``neg`` for a negative one), be one of ``in``, and ``TRY_CAST`` to ``to``;
- ``{"k": "struct", "f": [[name, node], ...]}``: the struct's fields (those not listed as is);
- ``{"k": "array", "e": node}`` / ``{"k": "map", "v": node}``: each element / value;
- ``{"k": "tuple", "e": [[name, wire type, node], ...]}``: a JSON array (parsed as
  ``array<string>``) of exactly these elements, each read from its text;
- ``{"k": "one", "f": [names], "inner": node}``: a struct with exactly one field set.

:func:`convert` gives the typed value and whether the payload is invalid (a value outside its
type: the row is dead-lettered ``validation-error`` / ``invalid payload``).
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    DataType,
    MapType,
    StringType,
    StructType,
    _parse_datatype_json_value,
)

from . import sql as S
from .sql import Expr as X

__all__ = ["convert"]

_FALSE = S.lit(False)


def convert(value: X, node: Any, wire: DataType) -> tuple[X, X]:
    """(typed value, invalid) of ``value`` (parsed with the wire type ``wire``)."""
    if node is None:
        return value, _FALSE
    kind = node.get("k")
    if kind == "leaf":
        return _leaf(value, node)
    if kind == "struct" and isinstance(wire, StructType):
        return _struct(value, node.get("f") or [], wire)
    if kind == "one" and isinstance(wire, StructType):
        inner, bad = convert(value, node.get("inner"), wire)
        count = functools.reduce(
            operator.add,
            (S.when(value[name].isNotNull(), 1).otherwise(0) for name in node["f"]),
        )
        return inner, _or(bad, value.isNotNull() & (count != 1))
    if kind == "array" and isinstance(wire, ArrayType):
        elem = node.get("e")
        typed = S.higher(
            "transform", value, lambda x: convert(x, elem, wire.elementType)[0]
        )
        bad = S.higher("exists", value, lambda x: convert(x, elem, wire.elementType)[1])
        return typed, S.coalesce(bad, False)
    if kind == "map" and isinstance(wire, MapType):
        val = node.get("v")
        typed = S.map_values(value, lambda x: convert(x, val, wire.valueType)[0])
        bad = S.higher(
            "exists",
            S.fn("map_values", value),
            lambda x: convert(x, val, wire.valueType)[1],
        )
        return typed, S.coalesce(bad, False)
    if kind == "tuple":
        return _tuple(value, node.get("e") or [])
    raise ValueError(f"unknown JSON Structure conversion {kind!r}")


def _or(*conds: X) -> X:
    real = [c for c in conds if c is not _FALSE]
    if not real:
        return _FALSE
    return S.coalesce(functools.reduce(operator.or_, real), False)


def _leaf(value: X, node: dict[str, Any]) -> tuple[X, X]:
    ok: list[X] = []
    if node.get("re"):
        ok.append(value.rlike(node["re"]))
    if node.get("lo") is not None:
        ok.append(value >= S.lit(node["lo"]))
    if node.get("hi") is not None:
        ok.append(value <= S.lit(node["hi"]))
    if node.get("text"):
        ok.append(_digits_within(value, node["text"], node.get("neg")))
    if node.get("in") is not None:
        ok.append(value.isin(node["in"]))
    typed = value
    if node.get("to"):
        typed = value.try_cast(node["to"])
        ok.append(typed.isNotNull())
    if not ok:
        return value, _FALSE
    good = functools.reduce(operator.and_, ok)
    return typed, value.isNotNull() & ~S.coalesce(good, False)


def _digits_within(value: X, high: str, neg: str | None) -> X:
    """Whether digit text (no leading zeros; a ``-`` only when ``neg`` is given) stays
    within ``high`` (``neg`` for negative values): by length, then by text."""

    def within(digits: X, limit: str) -> X:
        n = S.fn("length", digits)
        return (n < len(limit)) | ((n == len(limit)) & (digits <= S.lit(limit)))

    if neg is None:
        return within(value, high)
    negative = value.startswith("-")
    return S.when(negative, within(S.fn("substring", value, 2), neg)).otherwise(
        within(value, high)
    )


def _struct(value: X, fields: list[Any], wire: StructType) -> tuple[X, X]:
    nodes = {name: node for name, node in fields}
    parts: list[tuple[str, object]] = []
    bad: list[X] = []
    for f in wire.fields:
        child = value[f.name]
        if f.name in nodes:
            typed, invalid = convert(child, nodes[f.name], f.dataType)
            parts.append((f.name, typed))
            bad.append(invalid)
        else:
            parts.append((f.name, child))
    typed_struct = S.when(value.isNull(), S.lit(None)).otherwise(S.named_struct(parts))
    return typed_struct, _or(*bad)


def _tuple(value: X, elements: list[Any]) -> tuple[X, X]:
    parts: list[tuple[str, object]] = []
    bad: list[X] = [value.isNotNull() & (S.fn("size", value) != len(elements))]
    for i, (name, wire_json, node) in enumerate(elements):
        text = S.fn("try_element_at", value, i + 1)
        wire = _parse_datatype_json_value(wire_json)
        if isinstance(wire, StringType):
            parsed = text
        elif isinstance(wire, BinaryType):
            parsed = S.fn("try_to_binary", text, "base64")
        elif isinstance(wire, (StructType, ArrayType, MapType)):
            parsed = S.from_json(text, wire, {"mode": "PERMISSIVE"})
        else:
            parsed = text.try_cast(wire.simpleString())
        typed, invalid = convert(parsed, node, wire)
        parts.append((name, typed))
        bad += [text.isNotNull() & parsed.isNull(), invalid]
    typed_struct = S.when(value.isNull(), S.lit(None)).otherwise(S.named_struct(parts))
    return typed_struct, _or(*bad)
