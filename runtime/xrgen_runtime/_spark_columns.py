"""Column helpers of the Spark decoder: SQL text (``_spark_sql``) for the expressions that
the wires, the routing, the payload parse and the errors share.

Content types and percent-encoded header values read as the codecs read them, CloudEvents
attribute types from their canonical strings, required payload fields, the error struct,
``CASE`` chains, target index sets and type lookups, and the wrapped ``from_json`` parse of
payloads and envelopes.
"""

from __future__ import annotations

import functools
import json
import operator
import zlib
from collections.abc import Iterable, Mapping, Sequence

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from . import _spark_sql as S
from ._spark_sql import Expr as X

_S = StringType()
#: buckets of CloudEvents type -> target index (:func:`_type_lookup`)
_TYPE_MAPS = ArrayType(MapType(_S, IntegerType()))
_CORRUPT = "_xr_corrupt"
#: the wrapper member after the payload (see :func:`_wrapped`)
_END = "_xr_end"
#: ``from_json`` options: strict JSON as the codecs read it (Spark's default accepts
#: single-quoted strings)
_PARSE = {
    "mode": "PERMISSIVE",
    "columnNameOfCorruptRecord": _CORRUPT,
    "allowSingleQuotes": "false",
}


def _media(content_type: X) -> X:
    """The media type of a content type: lower case, without parameters."""
    return S.fn("lower", S.fn("trim", S.fn("substring_index", content_type, ";", 1)))


def _all(conditions: Iterable[X]) -> X:
    """The conjunction of one or more conditions."""
    return functools.reduce(operator.and_, conditions)


def _pair(pairs: X, key: str, caseless: bool = False) -> X:
    """Value of the first ``key`` entry of an ``array<struct<key,value>>`` (``None`` if absent)."""
    keys = pairs.getField("key")
    if caseless:
        keys = S.higher("transform", keys, lambda k: S.fn("lower", k))
        key = key.lower()
    position = S.fn("array_position", keys, key).cast("int") - 1
    return S.fn("get", pairs.getField("value"), position)


def _text(col: X) -> X:
    return col.cast("string")


def _pct_decoded(col: X) -> X:
    """One round of percent-decoding (HTTP / NATS header values); ``+`` stays ``+``.

    A bad escape (``%4``, ``%ZZ``) gives ``NULL``; invalid UTF-8 gives U+FFFD characters:
    :func:`_pct_invalid` tells both apart from valid values.
    """
    decoded = S.fn("try_url_decode", S.fn("replace", col, "+", "%2B"))
    return S.when(col.contains("%"), decoded).otherwise(col)


_FFFD = "\ufffd"


#: what the codecs' ``str.strip`` removes around a content type, in ASCII
_ASCII_SPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _count(text: X, part: str) -> X:
    """Occurrences of ``part`` in ``text``."""
    removed = S.fn("length", text) - S.fn("length", S.fn("replace", text, part, ""))
    return removed / len(part)


def _pct_invalid(col: X) -> X:
    """Whether percent-decoding ``col`` fails: a bad escape or invalid UTF-8 (as the codecs).

    Spark decodes invalid UTF-8 to U+FFFD, so the value is invalid when its decoding holds
    more U+FFFD than the raw text spells (literally or as ``%EF%BF%BD``).
    """
    decoded = _pct_decoded(col)
    spelled = _count(col, _FFFD) + _count(S.fn("upper", col), "%EF%BF%BD")
    bad = decoded.isNull() | (_count(decoded, _FFFD) > spelled)
    return S.coalesce(col.contains("%") & bad, False)


def _media_is_cloudevents(content_type: X) -> X:
    """Whether a content type names the structured mode (``application/cloudevents...``)."""
    return _starts_caseless(content_type, "application/cloudevents")


def _starts_caseless(content_type: X, prefix: str) -> X:
    """Whether ``content_type`` starts with ``prefix`` (lower case, ``application/`` and a
    letter) case-insensitively, after the leading ASCII whitespace the codecs strip.

    Exact prefixes decide the usual rows without ``lower``, which costs a Unicode case
    mapping (ICU) per row in Spark 4: ``prefix`` itself is a match, and ``application/``
    followed by another letter than ``prefix``'s next one in either case cannot lower-case
    to it (only the upper-case ASCII letter lower-cases to a lower-case ASCII one).
    """
    head = "application/"
    letter = prefix[len(head)]
    other = content_type.startswith(head) & ~(
        content_type.startswith(head + letter)
        | content_type.startswith(head + letter.upper())
    )
    lowered = S.fn(
        "lower",
        S.Expr(f"TRIM(LEADING {S.text_literal(_ASCII_SPACE)} FROM {content_type.sql})"),
    )
    return (
        S.when(content_type.startswith(prefix), True)
        .when(other, False)
        .otherwise(S.coalesce(lowered.startswith(prefix), False))
    )


def _canonical(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _typed(raw: X, kind: str) -> X:
    """The canonical string ``raw`` as a value of CloudEvents type ``kind`` (``None`` if bad)."""
    if kind == "timestamp":
        # RFC 3339 allows a lower-case ``t`` and ``z``, which Spark's cast does not read (no
        # other letter is valid in a time)
        has_lower = raw.contains("t") | raw.endswith("z")
        text = S.when(has_lower, S.fn("translate", raw, "tz", "TZ")).otherwise(raw)
        return S.when(_rfc3339_shape(text), text.try_cast("timestamp"))
    if kind == "integer":
        return S.when(raw.rlike("^-?[0-9]{1,10}$"), raw.try_cast("int"))
    if kind == "boolean":
        return S.when(raw == "true", True).when(raw == "false", False)
    if kind == "binary":
        return S.fn("try_to_binary", raw, "base64")
    if kind == "uri":  # an absolute URI: it starts with a scheme
        return S.when(raw.rlike("^[A-Za-z][A-Za-z0-9+.\\-]*:"), raw)
    return raw


def _has_required(dtype: DataType) -> bool:
    """Whether values of ``dtype`` can lack something required (a non-null field/element)."""
    if isinstance(dtype, StructType):
        return any(not f.nullable or _has_required(f.dataType) for f in dtype.fields)
    if isinstance(dtype, ArrayType):
        return not dtype.containsNull or _has_required(dtype.elementType)
    return False


def _rfc3339_shape(raw: X) -> X:
    """Cheap RFC 3339 shape test (``T`` separator, explicit offset) before the cast, of a
    time with upper-case ``T`` and ``Z``.

    ``try_cast`` alone also accepts dates and zone-less times; cast does the digit checks.
    """
    # ``instr`` finds the separator without a substring per row: before it a valid time has
    # only digits and ``-``, so its first ``T`` is the 11th character. The substring appears
    # once: a repeated one would be computed up front by Spark's common-subexpression
    # elimination, also where ``|`` never needs it (``Z`` times)
    offset = S.fn("substring", raw, -6, 1).isin(["+", "-"])
    return (S.fn("instr", raw, "T") == 11) & (raw.endswith("Z") | offset)


def _missing_fields(data: X, dtype: DataType, path: str) -> list[tuple[X, str]]:
    """(condition true when a required field is missing, field path) for ``dtype``.

    Nested structs are checked when present; array elements with ``exists`` (map values are
    not checked).
    """
    out: list[tuple[X, str]] = []
    if isinstance(dtype, StructType):
        for f in dtype.fields:
            child = data.getField(f.name)
            name = f"{path}.{f.name}" if path else f.name
            if not f.nullable:
                out.append((child.isNull(), name))
            for cond, sub in _missing_fields(child, f.dataType, name):
                out.append((child.isNotNull() & cond, sub))
    elif isinstance(dtype, ArrayType) and _has_required(dtype):
        element = dtype.elementType
        nullable = dtype.containsNull

        def bad(x: X) -> X:
            conds = [c for c, _ in _missing_fields(x, element, "")]
            if not nullable:
                conds.append(x.isNull())
            return _any(conds)

        out.append((S.higher("exists", data, bad), f"{path}[]"))
    return out


def _any(conds: Sequence[X]) -> X:
    if not conds:
        return S.lit(False)
    return S.coalesce(functools.reduce(operator.or_, conds), False)


def _err(reason: str, detail: X | str) -> X:
    return S.named_struct([("reason", reason), ("detail", detail)])


#: above this many CloudEvents types in one match branch, :func:`_type_lookup` uses buckets
_TYPES_PER_BUCKET = 16


def _type_lookup(types: Mapping[str, int], key: X) -> X:
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


def _isin_indexes(name: str, indexes: Sequence[int]) -> X:
    """Whether column ``name`` holds one of ``indexes`` (target indexes: plain ints); the
    optimizer turns a long ``IN`` list into a hash set."""
    return S.col(name).isin(int(i) for i in indexes)


def _case(branches: Sequence[tuple[X, X]], otherwise: X | None = None) -> X:
    """``CASE WHEN c1 THEN v1 ... [ELSE otherwise] END`` (``NULL`` when no branch)."""
    if not branches:
        return otherwise if otherwise is not None else S.lit(None)
    expr = S.when(branches[0][0], branches[0][1])
    for cond, value in branches[1:]:
        expr = expr.when(cond, value)
    return expr.otherwise(otherwise) if otherwise is not None else expr


def _wrapped(text: X) -> X:
    """``{"v":<text>,"_xr_end":true}``: a payload (or envelope) as a member of a wrapper.

    ``from_json`` stops after the first JSON value of its input: text after it is ignored.
    As the first member of a wrapper, text after the value breaks the wrapper's syntax
    (``{"a":1} x``: the row gets the corrupt-record field) or closes the wrapper before
    the last member (``{"a":1}}``, ``{"a":1}},{...``: ``_xr_end`` stays null), so
    :func:`_unparsed` rejects it as the codecs do. Not detected: text that goes on with
    members of the wrapper itself (``{"a":1},"b":2``), which no JSON writer produces.
    """
    return S.concat('{"v":', text, f',"{_END}":true}}')


def _typed_read(envelope: X) -> X:
    """Whether an envelope parsed with a typed ``data`` was read as one JSON object (its
    corrupt-record field may be set: see ``SparkDecoder._env_ok``)."""
    return envelope.isNotNull() & envelope["v"].isNotNull() & envelope[_END].isNotNull()


def _unparsed(parsed: X) -> X:
    """Whether a :func:`_parse_wrapped` result is not one valid JSON value of its type."""
    return parsed.isNull() | parsed[_CORRUPT].isNotNull() | parsed[_END].isNull()


def _parse_wrapped(wrapped: X, dtype: DataType | None) -> X:
    """``from_json`` of :func:`_wrapped` text as ``struct<v, _xr_end, _xr_corrupt>``.

    Wrapping the payload puts the corrupt-record field beside it, so the payload itself is
    the plain field ``v`` (no struct rebuild to drop the extra field), every payload type
    (struct, array, map, primitive) is checked the same way, and text after the value is
    rejected (see :func:`_wrapped`).
    """
    wrapper = StructType(
        [
            StructField("v", dtype or _S),
            StructField(_END, BooleanType()),
            StructField(_CORRUPT, _S),
        ]
    )
    return S.from_json(wrapped, wrapper, _PARSE)
