"""How the values of a row read, as the codecs read them: content types (structured mode,
media types), percent-encoded header values, CloudEvents attributes as values of their
types, and the required fields of a payload.
"""

from __future__ import annotations

from pyspark.sql.types import ArrayType, DataType, StructType

from . import sql as S
from .columns import any_of
from .sql import Expr as X


def media(content_type: X) -> X:
    """The media type of a content type: lower case, without parameters."""
    return S.fn("lower", S.fn("trim", S.fn("substring_index", content_type, ";", 1)))


def pct_decoded(col: X) -> X:
    """One round of percent-decoding (HTTP / NATS header values); ``+`` stays ``+``.

    A bad escape (``%4``, ``%ZZ``) gives ``NULL``; invalid UTF-8 gives U+FFFD characters:
    :func:`pct_invalid` tells both apart from valid values.
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


def pct_invalid(col: X) -> X:
    """Whether percent-decoding ``col`` fails: a bad escape or invalid UTF-8 (as the codecs).

    Spark decodes invalid UTF-8 to U+FFFD, so the value is invalid when its decoding holds
    more U+FFFD than the raw text spells (literally or as ``%EF%BF%BD``).
    """
    decoded = pct_decoded(col)
    spelled = _count(col, _FFFD) + _count(S.fn("upper", col), "%EF%BF%BD")
    bad = decoded.isNull() | (_count(decoded, _FFFD) > spelled)
    return S.coalesce(col.contains("%") & bad, False)


def media_is_cloudevents(content_type: X) -> X:
    """Whether a content type names the structured mode (``application/cloudevents...``)."""
    return starts_caseless(content_type, "application/cloudevents")


def starts_caseless(content_type: X, prefix: str) -> X:
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


def canonical(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def typed(raw: X, kind: str) -> X:
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


def missing_fields(data: X, dtype: DataType, path: str) -> list[tuple[X, str]]:
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
            for cond, sub in missing_fields(child, f.dataType, name):
                out.append((child.isNotNull() & cond, sub))
    elif isinstance(dtype, ArrayType) and _has_required(dtype):
        element = dtype.elementType
        nullable = dtype.containsNull

        def bad(x: X) -> X:
            conds = [c for c, _ in missing_fields(x, element, "")]
            if not nullable:
                conds.append(x.isNull())
            return any_of(conds)

        out.append((S.higher("exists", data, bad), f"{path}[]"))
    return out
