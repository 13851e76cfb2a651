"""Expression building blocks of the decoder (SQL text, :mod:`.sql`): conjunctions,
``CASE`` chains, header pairs, the error struct, target index sets and type lookups, and
the wrapped ``from_json`` parse of payloads and envelopes.
"""

from __future__ import annotations

import functools
import json
import operator
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
    _parse_datatype_json_value,
)

from . import names as N
from . import sql as S
from .sql import Expr as X

STRING = StringType()
#: buckets of CloudEvents type -> target index (:func:`type_lookup`)
_TYPE_MAPS = ArrayType(MapType(STRING, IntegerType()))
#: ``from_json`` options: strict JSON as the codecs read it (Spark's default accepts
#: single-quoted strings)
_PARSE = {
    "mode": "PERMISSIVE",
    "columnNameOfCorruptRecord": N.CORRUPT_FIELD,
    "allowSingleQuotes": "false",
}
#: above this many CloudEvents types in one match branch, :func:`type_lookup` uses buckets
_TYPES_PER_BUCKET = 16


def all_of(conditions: Iterable[X]) -> X:
    """The conjunction of one or more conditions."""
    return functools.reduce(operator.and_, conditions)


def any_of(conds: Sequence[X]) -> X:
    """Whether one of ``conds`` holds (false for none, and where all are ``NULL``)."""
    if not conds:
        return S.lit(False)
    return S.coalesce(functools.reduce(operator.or_, conds), False)


def case(branches: Sequence[tuple[X, X]], otherwise: X | None = None) -> X:
    """``CASE WHEN c1 THEN v1 ... [ELSE otherwise] END`` (``NULL`` when no branch)."""
    if not branches:
        return otherwise if otherwise is not None else S.lit(None)
    expr = S.when(branches[0][0], branches[0][1])
    for cond, value in branches[1:]:
        expr = expr.when(cond, value)
    return expr.otherwise(otherwise) if otherwise is not None else expr


def as_text(col: X) -> X:
    """``col`` as a string."""
    return col.cast("string")


def pair(pairs: X, key: str, caseless: bool = False) -> X:
    """Value of the first ``key`` entry of an ``array<struct<key,value>>`` (``None`` if absent)."""
    keys = pairs.getField("key")
    if caseless:
        keys = S.higher("transform", keys, lambda k: S.fn("lower", k))
        key = key.lower()
    position = S.fn("array_position", keys, key).cast("int") - 1
    return S.fn("get", pairs.getField("value"), position)


def err(reason: str, detail: X | str) -> X:
    """The error struct of a dead letter."""
    return S.named_struct([("reason", reason), ("detail", detail)])


def isin_indexes(name: str, indexes: Sequence[int]) -> X:
    """Whether column ``name`` holds one of ``indexes`` (target indexes: plain ints); the
    optimizer turns a long ``IN`` list into a hash set."""
    return S.col(name).isin(int(i) for i in indexes)


def type_lookup(types: Mapping[str, int], key: X) -> X:
    """``types[key]`` (``NULL`` when absent) from map literals: code of one size for any count.

    Spark finds a key in a map by comparing it with each key in turn, so past
    :data:`_TYPES_PER_BUCKET` types the map is split into buckets by ``crc32`` of the key and
    a row compares with one bucket's keys. Spark's ``crc32`` of a string is zlib's of its UTF-8
    bytes (Java writes ``?`` for an unpaired surrogate, as ``errors="replace"`` does).

    The maps are ONE JSON text literal that the optimizer folds (``from_json`` of a
    constant) into map literals.
    """
    buckets = -(-len(types) // _TYPES_PER_BUCKET)
    parts: list[dict[str, int]] = [{} for _ in range(buckets)]
    for name, index in types.items():
        parts[zlib.crc32(name.encode("utf-8", "replace")) % buckets][name] = index
    maps = S.from_json(S.lit(json.dumps(parts)), _TYPE_MAPS)
    if buckets == 1:
        return S.fn("try_element_at", S.fn("element_at", maps, 1), key)
    bucket = (S.fn("crc32", key) % buckets + 1).cast("int")
    return S.fn("try_element_at", S.fn("element_at", maps, bucket), key)


def wrapped(text: X) -> X:
    """``{"v":<text>,"_xr_end":true}``: a payload (or envelope) as a member of a wrapper.

    ``from_json`` stops after the first JSON value of its input: text after it is ignored.
    As the first member of a wrapper, text after the value breaks the wrapper's syntax
    (``{"a":1} x``: the row gets the corrupt-record field) or closes the wrapper before
    the last member (``{"a":1}}``, ``{"a":1}},{...``: ``_xr_end`` stays null), so
    :func:`unparsed` rejects it as the codecs do. Not detected: text that goes on with
    members of the wrapper itself (``{"a":1},"b":2``), which no JSON writer produces.
    """
    return S.concat('{"v":', text, f',"{N.END_FIELD}":true}}')


def parse_wrapped(wrapped: X, dtype: DataType | None) -> X:
    """``from_json`` of :func:`wrapped` text as ``struct<v, _xr_end, _xr_corrupt>``.

    Wrapping the payload puts the corrupt-record field beside it, so the payload itself is
    the plain field ``v`` (no struct rebuild to drop the extra field), every payload type
    (struct, array, map, primitive) is checked the same way, and text after the value is
    rejected (see :func:`wrapped`).
    """
    return S.from_json(wrapped, parse_result(dtype or STRING), _PARSE)


def parse_result(dtype: DataType) -> StructType:
    """The type of a parse result: ``struct<v: dtype, _xr_end, _xr_corrupt>``."""
    return StructType(
        [
            StructField("v", dtype),
            StructField(N.END_FIELD, BooleanType()),
            StructField(N.CORRUPT_FIELD, STRING),
        ]
    )


def unparsed(parsed: X) -> X:
    """Whether a :func:`parse_wrapped` result is not one valid JSON value of its type."""
    return (
        parsed.isNull()
        | parsed[N.CORRUPT_FIELD].isNotNull()
        | parsed[N.END_FIELD].isNull()
    )


def typed_read(envelope: X) -> X:
    """Whether an envelope parsed with a typed ``data`` was read as one JSON object (its
    corrupt-record field may be set: see ``envelope.ok``)."""
    return (
        envelope.isNotNull()
        & envelope["v"].isNotNull()
        & envelope[N.END_FIELD].isNotNull()
    )


def parse_type(value: Any) -> DataType:
    """A Spark type from its JSON form (``DataType.jsonValue()``), as ``spark_types`` emits."""
    result: DataType = _parse_datatype_json_value(value)
    return result
