"""Spark decoders of a generated xrgen package: CloudEvents rows -> typed DataFrames.

The generated ``spark.py`` holds the package's schemas (``SCHEMAS``, ``EVENT_SCHEMAS``) and its
``MessageDef`` tuple and calls the generic engine here. Everything is a native Spark column
expression (no Python UDF, no pandas UDF), so the same code runs in batch and in Structured
Streaming, on any Spark >= 4.0 cluster (``try_*`` functions and ANSI-safe expressions only).

What runs where:

- JSON payloads (``datacontenttype`` JSON or absent, whatever the schema format):
  ``from_json`` against the payload type. Runs everywhere, including plain local Spark.
- Avro binary and Protobuf payloads (a definition whose content type is Avro binary or
  Protobuf, with its Avro schema in ``avro_schemas`` / its descriptor set in
  ``proto_descriptors``): ``payloads="native"`` reads them with ``from_avro`` /
  ``from_protobuf`` (options ``mode=PERMISSIVE``, and ``emit.default.values=true`` so that
  proto3 scalars read as their defaults, as the Python codec reads them), which need Spark's
  connector packages on the cluster (``--packages org.apache.spark:spark-avro_2.13:<version>``
  / ``spark-protobuf_2.13``); ``payloads="arrow"`` decodes them in a ``mapInArrow`` step
  (``_spark_payloads``: Python on the executors, no connector); ``payloads="auto"`` (the
  default) checks the JVM for the connectors when the decoder is built (or at its first
  ``route`` when no SparkSession is active yet) and uses the native path when every needed
  one is there, else the Arrow path with a ``RuntimeWarning`` naming the missing package;
  ``native`` without a connector raises ``RuntimeError`` there; ``payloads="off"`` decodes
  none (such rows are dead-lettered: ``validation-error``, ``unsupported-format``) and keeps
  the decoder JVM-only. The Arrow step carries every routed row through Python, JSON ones
  too (about 1.35x the time of JSON rows without it, ``bench_spark.py``). Both paths give the payload's
  Spark type (``SCHEMAS``); bytes that do not decode (a bad framing header or fingerprint,
  truncated or foreign bytes) are dead-lettered (``validation-error``, ``invalid payload``);
  with ``from_avro`` so is a record whose fields are all null (how PERMISSIVE ``from_avro``
  reports unreadable bytes), and trailing bytes after a record go unnoticed (the Arrow path
  rejects them). Avro framing is the package codec's (``plain``, ``single-object``: header
  stripped and fingerprint checked, ``confluent``: magic byte checked and the 5-byte header
  stripped). For Confluent framing, ``schema_ids`` (message id -> ids) or ``registry`` (a
  schema registry client asked once, at build, with ``lookup_schema`` under the codec's
  subjects) give the ids whose writer schema is the catalog's: the id then routes the row
  (a row of another id matches no definition); without ids any id is read with the
  catalog's schema. Structured events carry the bytes as ``data_base64``.

Pipeline (:meth:`SparkDecoder.route`), one pass over the input, each row parsed ONCE:

1. content mode (structured when the content type starts with ``application/cloudevents``,
   case-insensitive); binary rows read the binding's attribute headers / properties;
   structured rows parse the envelope with ``from_json`` (attributes as canonical strings;
   ``data`` typed with the payload type that the event's ``type`` selects, or as raw JSON
   text, see :meth:`SparkDecoder._envelope_choice`);
2. match (most specific first, as in the dispatcher: bound to the wire's protocol, then more
   constants and templates, then more constants, then catalog order; the first match wins):
   ``type`` constant, constant attributes, uritemplate attributes (Java regexes built from
   ``UriTemplate``), required attributes, ``datacontenttype`` constant, and protocol options
   of the decoded binding;
3. the payload of each row is parsed with the payload type of its matched definition only
   (rows of definitions with the same type share one ``from_json``; for a typed envelope,
   that was its parse), in PERMISSIVE mode with a corrupt-record field: bad JSON or a value
   of the wrong type dead-letters the row, and so does a missing required field (from the
   payload type's non-nullable fields);
4. one error struct per row: ``None`` when the row is good.

:meth:`SparkDecoder.split` turns the routed frame into one DataFrame per message id (columns:
the event's attributes by wire name, typed; ``data`` as the payload struct; ``params`` with
the uritemplate placeholder values when the message has placeholders; lineage columns of the
binding, e.g. ``topic``, ``partition``, ``offset``, ``timestamp`` for Kafka; a lineage column
whose name an attribute already uses gets a ``_`` prefix) and one dead-letter DataFrame (the
input columns plus ``reason`` and ``detail``). Every input row is in exactly one of them.

Dead-letter reasons are the dispatcher's: ``decode-error`` (detail ``invalid-json``,
``invalid-encoding`` for a bad percent-escape or invalid UTF-8 in a NATS/HTTP attribute
header, ``missing-attribute: <name>``, ``invalid-specversion``, ``invalid-attribute: <name>``,
``unsupported-format``), ``unknown-type``, ``no-match``, ``validation-error`` (detail
``unsupported-format``, ``no data``, ``invalid payload`` or ``missing field: <path>``).

Differences from the Python dispatcher: the payload is checked against the FIRST matching
definition only; each uritemplate is read on its own (leftmost-shortest, as the dispatcher
reads one template) and a placeholder used in several templates takes the value of the first
of them (the dispatcher requires the values to agree, reading the least ambiguous template
first); Kafka header names are matched exactly (``ce_`` lower case, ``content-type``);
the first of repeated headers wins; ``from_json`` converts a JSON number or boolean found
where a string is declared into its text; when an envelope is parsed with ``data`` as text
(see :meth:`SparkDecoder._envelope_choice`), a ``data`` that is a JSON string is
read as the text of that string (the dispatcher validates the string itself, so a payload that
was JSON-encoded twice is dead-lettered there and decoded here); an envelope with two ``type``
members that select different envelope variants is dead-lettered (``decode-error``,
``duplicate-attribute: type``; the dispatcher takes the last one); a payload or envelope followed
by text that goes on with object members (``{"a":1},"b":2``) is read as the value before it
(``_wrapped``: other text after a value is rejected). ``decode_json`` rows carry no protocol,
so options are not checked there.

Performance: without persisting, every output DataFrame re-runs the pipeline over its source
(correct, but N outputs cost N passes). Write all outputs of one input with
:meth:`SparkDecoder.foreach_batch` (streaming ``foreachBatch`` or a batch DataFrame): it
persists the routed frame once, learns in the job that fills the cache which outputs have
rows, writes those (and the dead letters, if any), and unpersists. Outputs are built on
first lookup (:class:`Outputs`) and a decoder builds the columns of outputs of the same
shape once: with a catalog of 1,100 definitions, a batch used to pay a Spark job and a
DataFrame per definition, rows or not (86 s per micro-batch of 220k rows on 2 cores). How
the routing plan is laid out for Spark's optimizer: :meth:`SparkDecoder.route`. Before
persisting, input columns that only the dead letters read are nulled on good rows and the rows
are sorted by definition index (:meth:`SparkDecoder._cacheable`): a smaller cache, and each
output's filter skips the cached batches of other definitions (1M Kafka rows, 20 types on 2
cores: about 1.4x faster). Definitions with identical checks share one error branch, and
definitions that differ only in their CloudEvents ``type`` share one match branch that looks
the type up in a map (:meth:`SparkDecoder._match`): code generated per definition made the
routing stage's method too big for the JVM to compile, and 20 types ~2x slower. A decoder builds
its column expressions once per input column list and reuses them on every later call: keep
one decoder per stream (the generated ``decoder()`` does), since building them costs about a
second of calls into the JVM.
"""

from __future__ import annotations

import collections
import functools
import json
import operator
import re
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from ._definitions import MessageDef, OptionDef
from ._spark_payloads import CONNECTORS, PayloadSpec, connector_present, decode_batches
from .formats import codec_for, wire_format

__all__ = [
    "DECODE_ERROR",
    "LANDING_SCHEMAS",
    "NO_MATCH",
    "PAYLOAD_MODES",
    "Outputs",
    "SparkDecoder",
    "UNKNOWN_TYPE",
    "VALIDATION_ERROR",
    "Writer",
    "decode_amqp",
    "decode_http",
    "decode_json",
    "decode_kafka",
    "decode_mqtt",
    "decode_nats",
    "decode_pulsar",
    "decode_rocketmq",
    "parse_type",
    "template_regex",
]

#: how Avro / Protobuf payloads are decoded (``SparkDecoder(payloads=...)``)
PAYLOAD_MODES = ("auto", "native", "arrow", "off")
_BINARY_FORMATS = frozenset({"avro", "protobuf"})
_SINGLE_OBJECT = b"\xc3\x01"
_MAX_INT = 2**31 - 1

DECODE_ERROR = "decode-error"
UNKNOWN_TYPE = "unknown-type"
NO_MATCH = "no-match"
VALIDATION_ERROR = "validation-error"

#: ``write(message_id, frame, batch_id)``; ``message_id`` is ``None`` for the dead letters.
Writer = Callable[[str | None, DataFrame, int], None]
M = TypeVar("M")

_S = StringType()
_PAIRS = ArrayType(StructType([StructField("key", _S), StructField("value", _S)]))
_SMAP = MapType(_S, _S)
#: buckets of CloudEvents type -> target index (:func:`_type_lookup`)
_TYPE_MAPS = ArrayType(MapType(_S, IntegerType()))

#: Landing schemas of wire messages (mirroring the ``*Message`` dataclasses of ``_core``).
#: ``kafka`` is Spark's Kafka source schema. AMQP application properties, annotations and
#: footer hold canonical CloudEvents strings (``true``, RFC 3339 timestamps, base64).
LANDING_SCHEMAS: dict[str, StructType] = {
    "kafka": StructType(
        [
            StructField("key", BinaryType()),
            StructField("value", BinaryType()),
            StructField("topic", _S),
            StructField("partition", IntegerType()),
            StructField("offset", LongType()),
            StructField("timestamp", TimestampType()),
            StructField("timestampType", IntegerType()),
            StructField(
                "headers",
                ArrayType(
                    StructType(
                        [StructField("key", _S), StructField("value", BinaryType())]
                    )
                ),
            ),
        ]
    ),
    "amqp": StructType(
        [
            StructField("body", BinaryType()),
            StructField(
                "properties",
                StructType(
                    [
                        StructField("message_id", _S),
                        StructField("user_id", BinaryType()),
                        StructField("to", _S),
                        StructField("subject", _S),
                        StructField("reply_to", _S),
                        StructField("correlation_id", _S),
                        StructField("content_type", _S),
                        StructField("content_encoding", _S),
                        StructField("absolute_expiry_time", TimestampType()),
                        StructField("creation_time", TimestampType()),
                        StructField("group_id", _S),
                        StructField("group_sequence", LongType()),
                        StructField("reply_to_group_id", _S),
                    ]
                ),
            ),
            StructField("application_properties", _SMAP),
            StructField("message_annotations", _SMAP),
            StructField(
                "header",
                StructType(
                    [
                        StructField("durable", BooleanType()),
                        StructField("priority", IntegerType()),
                        StructField("ttl", LongType()),
                        StructField("first_acquirer", BooleanType()),
                        StructField("delivery_count", LongType()),
                    ]
                ),
            ),
            StructField("footer", _SMAP),
            StructField("address", _S),
        ]
    ),
    "mqtt": StructType(
        [
            StructField("topic", _S),
            StructField("payload", BinaryType()),
            StructField("qos", IntegerType()),
            StructField("retain", BooleanType()),
            StructField("version", _S),
            StructField("content_type", _S),
            StructField("user_properties", _PAIRS),
            StructField("response_topic", _S),
            StructField("correlation_data", BinaryType()),
            StructField("message_expiry_interval", LongType()),
            StructField("payload_format_indicator", IntegerType()),
        ]
    ),
    "nats": StructType(
        [
            StructField("subject", _S),
            StructField("payload", BinaryType()),
            StructField("headers", _PAIRS),
            StructField("reply", _S),
        ]
    ),
    "http": StructType(
        [
            StructField("method", _S),
            StructField("path", _S),
            StructField("headers", _PAIRS),
            StructField("body", BinaryType()),
            StructField("status", IntegerType()),
        ]
    ),
    "pulsar": StructType(
        [
            StructField("topic", _S),
            StructField("payload", BinaryType()),
            StructField("properties", _SMAP),
            StructField("partition_key", _S),
            StructField("event_time", LongType()),
        ]
    ),
    "rocketmq": StructType(
        [
            StructField("topic", _S),
            StructField("body", BinaryType()),
            StructField("properties", _SMAP),
            StructField("tag", _S),
            StructField("keys", ArrayType(_S)),
        ]
    ),
}

_CORE = (
    "specversion",
    "id",
    "source",
    "type",
    "time",
    "datacontenttype",
    "dataschema",
    "subject",
)
_REQUIRED = ("specversion", "id", "source", "type")
_CORRUPT = "_xr_corrupt"
#: the wrapper member after the payload (see :func:`_wrapped`)
_END = "_xr_end"
_NOW = "0000-01-01T00:00:00Z"
_VAR = re.compile(r"\{([^{}]*)\}")
_JSON_MEDIA = r"(?i)^\s*[^/\s;]+/([^/\s;]*\+)?json\s*(;.*)?$"
_TYPED_KINDS = ("timestamp", "integer", "boolean", "binary", "uri")
#: core attributes checked on every row (the dispatcher's CORE_ATTRIBUTE_KINDS)
_CORE_KINDS = {"time": "timestamp", "dataschema": "uri"}
#: binding fields that brokers may change in transit: never matched (as the dispatcher)
_TRANSIT = {
    "MQTT": {"qos", "retain", "message_expiry_interval"},
    "KAFKA": {"partition"},
    "PULSAR": {"event_time"},
}
#: ``from_json`` options: strict JSON as the codecs read it (Spark's default accepts
#: single-quoted strings)
_PARSE = {
    "mode": "PERMISSIVE",
    "columnNameOfCorruptRecord": _CORRUPT,
    "allowSingleQuotes": "false",
}


# ---------------------------------------------------------------------------------------------
# Column helpers
# ---------------------------------------------------------------------------------------------


def _media(content_type: Column) -> Column:
    """The media type of a content type: lower case, without parameters."""
    return F.lower(F.trim(F.substring_index(content_type, ";", 1)))


def _all(conditions: Iterable[Column]) -> Column:
    """The conjunction of one or more conditions."""
    return functools.reduce(operator.and_, conditions)


def _pair(pairs: Column, key: str, caseless: bool = False) -> Column:
    """Value of the first ``key`` entry of an ``array<struct<key,value>>`` (``None`` if absent)."""
    keys = pairs.getField("key")
    if caseless:
        keys = F.transform(keys, F.lower)
        key = key.lower()
    position = F.array_position(keys, F.lit(key)).cast("int") - F.lit(1)
    return F.get(pairs.getField("value"), position)


def _text(col: Column) -> Column:
    return col.cast("string")


def _pct_decoded(col: Column) -> Column:
    """One round of percent-decoding (HTTP / NATS header values); ``+`` stays ``+``.

    A bad escape (``%4``, ``%ZZ``) gives ``NULL``; invalid UTF-8 gives U+FFFD characters:
    :func:`_pct_invalid` tells both apart from valid values.
    """
    decoded = F.try_url_decode(F.replace(col, F.lit("+"), F.lit("%2B")))
    return F.when(col.contains("%"), decoded).otherwise(col)


_FFFD = "\ufffd"
#: what the codecs' ``str.strip`` removes around a content type, in ASCII
_ASCII_SPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _count(text: Column, part: str) -> Column:
    """Occurrences of ``part`` in ``text``."""
    removed = F.length(text) - F.length(F.replace(text, F.lit(part), F.lit("")))
    return removed / F.lit(len(part))


def _pct_invalid(col: Column) -> Column:
    """Whether percent-decoding ``col`` fails: a bad escape or invalid UTF-8 (as the codecs).

    Spark decodes invalid UTF-8 to U+FFFD, so the value is invalid when its decoding holds
    more U+FFFD than the raw text spells (literally or as ``%EF%BF%BD``).
    """
    decoded = _pct_decoded(col)
    spelled = _count(col, _FFFD) + _count(F.upper(col), "%EF%BF%BD")
    bad = decoded.isNull() | (_count(decoded, _FFFD) > spelled)
    return F.coalesce(col.contains("%") & bad, F.lit(False))


def _media_is_cloudevents(content_type: Column) -> Column:
    """Whether a content type names the structured mode (``application/cloudevents...``)."""
    return _starts_caseless(content_type, "application/cloudevents")


def _starts_caseless(content_type: Column, prefix: str) -> Column:
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
    lowered = F.lower(F.ltrim(content_type, F.lit(_ASCII_SPACE)))
    return (
        F.when(content_type.startswith(prefix), F.lit(True))
        .when(other, F.lit(False))
        .otherwise(F.coalesce(lowered.startswith(prefix), F.lit(False)))
    )


def _canonical(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _java_escape(text: str) -> str:
    """``text`` as a literal in a Java regex (ASCII punctuation escaped)."""
    return "".join(
        "\\" + ch if ch.isascii() and not ch.isalnum() and ch not in " _" else ch
        for ch in text
    )


def template_regex(template: str) -> tuple[str, tuple[str, ...]]:
    """A Java regex matching ``template`` (RFC 6570 level 1) and its placeholder names.

    Placeholder ``i`` is capturing group ``i + 1``; a repeated placeholder must repeat the
    same text (a back-reference). The regex reads a text as ``_core.UriTemplate.match`` does
    (leftmost-shortest, without backtracking): each placeholder but the last is a lazy group
    inside an atomic group with the literal text that ends it, so it takes the leftmost
    occurrence of that literal and is never tried again; the last takes the rest.
    """
    names: list[str] = []
    closed: set[str] = set()
    out = ["^"]
    run: list[str] = (
        []
    )  # literal text (and back-references) since the pending placeholder
    pending: str | None = None
    pos = 0

    def group(name: str) -> str:
        return f"(?<p{names.index(name)}>[A-Za-z0-9\\-._~%]*"

    for m in _VAR.finditer(template):
        run.append(_java_escape(template[pos : m.start()]))
        pos = m.end()
        name = m.group(1)
        if name in closed:
            run.append(f"\\k<p{names.index(name)}>")
            continue
        if pending is None:
            out.extend(run)
        else:
            out.append("(?>" + group(pending) + "?)" + "".join(run) + ")")
            closed.add(pending)
        run = []
        if name in closed:  # the placeholder that just ended, repeated
            run.append(f"\\k<p{names.index(name)}>")
            pending = None
            continue
        names.append(name)
        pending = name
    run.append(_java_escape(template[pos:]))
    if pending is not None:
        out.append(group(pending) + ")")
    out.extend(run)
    out.append("$")
    return "".join(out), tuple(names)


def _family(protocol: str | None) -> str | None:
    if protocol is None:
        return None
    return protocol.split("/", 1)[0].upper()


def _is_template(kind: str, value: object) -> bool:
    return isinstance(value, str) and (
        kind == "uritemplate" or (kind == "string" and _VAR.search(value) is not None)
    )


def _typed(raw: Column, kind: str) -> Column:
    """The canonical string ``raw`` as a value of CloudEvents type ``kind`` (``None`` if bad)."""
    if kind == "timestamp":
        # RFC 3339 allows a lower-case ``t`` and ``z``, which Spark's cast does not read (no
        # other letter is valid in a time)
        has_lower = raw.contains("t") | raw.endswith("z")
        text = F.when(has_lower, F.translate(raw, "tz", "TZ")).otherwise(raw)
        return F.when(_rfc3339_shape(text), text.try_cast("timestamp"))
    if kind == "integer":
        return F.when(raw.rlike("^-?[0-9]{1,10}$"), raw.try_cast("int"))
    if kind == "boolean":
        return F.when(raw == "true", F.lit(True)).when(raw == "false", F.lit(False))
    if kind == "binary":
        return F.try_to_binary(raw, F.lit("base64"))
    if kind == "uri":  # an absolute URI: it starts with a scheme
        return F.when(raw.rlike("^[A-Za-z][A-Za-z0-9+.\\-]*:"), raw)
    return raw


def _has_required(dtype: DataType) -> bool:
    """Whether values of ``dtype`` can lack something required (a non-null field/element)."""
    if isinstance(dtype, StructType):
        return any(not f.nullable or _has_required(f.dataType) for f in dtype.fields)
    if isinstance(dtype, ArrayType):
        return not dtype.containsNull or _has_required(dtype.elementType)
    return False


def _rfc3339_shape(raw: Column) -> Column:
    """Cheap RFC 3339 shape test (``T`` separator, explicit offset) before the cast, of a
    time with upper-case ``T`` and ``Z``.

    ``try_cast`` alone also accepts dates and zone-less times; cast does the digit checks.
    """
    # ``instr`` finds the separator without a substring per row: before it a valid time has
    # only digits and ``-``, so its first ``T`` is the 11th character. The substring appears
    # once: a repeated one would be computed up front by Spark's common-subexpression
    # elimination, also where ``|`` never needs it (``Z`` times)
    offset = F.substring(raw, -6, 1).isin("+", "-")
    return (F.instr(raw, "T") == 11) & (raw.endswith("Z") | offset)


def _missing_fields(
    data: Column, dtype: DataType, path: str
) -> list[tuple[Column, str]]:
    """(condition true when a required field is missing, field path) for ``dtype``.

    Nested structs are checked when present; array elements with ``exists`` (map values are
    not checked).
    """
    out: list[tuple[Column, str]] = []
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

        def bad(x: Column) -> Column:
            conds = [c for c, _ in _missing_fields(x, element, "")]
            if not nullable:
                conds.append(x.isNull())
            return _any(conds)

        out.append((F.exists(data, bad), f"{path}[]"))
    return out


def _any(conds: Sequence[Column]) -> Column:
    result = F.lit(False)
    for i, cond in enumerate(conds):
        result = cond if i == 0 else result | cond
    return F.coalesce(result, F.lit(False))


def _err(reason: str, detail: Column | str) -> Column:
    value = detail if isinstance(detail, Column) else F.lit(detail)
    return F.struct(F.lit(reason).alias("reason"), value.alias("detail"))


#: above this many CloudEvents types in one match branch, :func:`_type_lookup` uses buckets
_TYPES_PER_BUCKET = 16
#: above this many values, :func:`_isin_indexes` writes one SQL ``IN`` list (see there)
_FEW_LITERALS = 10


def _type_lookup(types: Mapping[str, int], key: Column) -> Column:
    """``types[key]`` (``NULL`` when absent) from map literals: code of one size for any count.

    Spark finds a key in a map by comparing it with each key in turn, so past
    :data:`_TYPES_PER_BUCKET` types the map is split into buckets by ``crc32`` of the key and
    a row compares with one bucket's keys. Spark's ``crc32`` of a string is zlib's of its UTF-8
    bytes (Java writes ``?`` for an unpaired surrogate, as ``errors="replace"`` does).

    The maps arrive as ONE JSON text literal that the optimizer folds (``from_json`` of a
    constant) into map literals. A ``lit`` per key and value costs calls into the JVM: with
    them (and an ``isin`` literal per target index, see :func:`_isin_indexes`) building the
    routing of 1,100 definitions took 39,359 calls and 13.8 s; without, 6,835 calls and ~5 s.
    """
    buckets = -(-len(types) // _TYPES_PER_BUCKET)
    parts: list[dict[str, int]] = [{} for _ in range(buckets)]
    for name, index in types.items():
        parts[zlib.crc32(name.encode("utf-8", "replace")) % buckets][name] = index
    maps = F.from_json(F.lit(json.dumps(parts)), _TYPE_MAPS)
    if buckets == 1:
        return F.try_element_at(F.element_at(maps, 1), key)
    bucket = (F.crc32(key) % buckets + 1).cast("int")
    return F.try_element_at(F.element_at(maps, bucket), key)


def _isin_indexes(name: str, indexes: Sequence[int]) -> Column:
    """Whether column ``name`` holds one of ``indexes`` (target indexes: plain ints).

    Many values go in one SQL expression (one call into the JVM; the optimizer turns the
    ``IN`` list into a hash set) instead of a ``lit`` per value.
    """
    if len(indexes) <= _FEW_LITERALS:
        return F.col(name).isin(list(indexes))
    values = ", ".join(str(int(i)) for i in indexes)
    return F.expr(f"`{name}` IN ({values})")


def _case(
    branches: Sequence[tuple[Column, Column]], otherwise: Column | None = None
) -> Column:
    """``CASE WHEN c1 THEN v1 ... [ELSE otherwise] END`` (``NULL`` when no branch)."""
    if not branches:
        return otherwise if otherwise is not None else F.lit(None)
    expr = F.when(branches[0][0], branches[0][1])
    for cond, value in branches[1:]:
        expr = expr.when(cond, value)
    return expr.otherwise(otherwise) if otherwise is not None else expr


# ---------------------------------------------------------------------------------------------
# Wire bindings: how attributes, content type, payload and options are read per landing shape
# ---------------------------------------------------------------------------------------------


class _Wire:
    """Reads one landing shape. Subclasses set the class attributes and override readers."""

    family: str | None = None
    payload = "payload"
    lineage: tuple[str, ...] = ()
    fields: dict[str, str] = {}

    def content_type(self) -> Column:
        """The protocol content type (structured-mode detection)."""
        return F.lit(None).cast("string")

    def structured(self) -> Column:
        return _media_is_cloudevents(self.content_type())

    def unsupported(self) -> Column:
        """Rows of a content mode the decoder does not handle (HTTP batch)."""
        return F.lit(False)

    def attribute(self, name: str) -> Column:
        """Binary mode: the canonical string of attribute ``name`` (``None`` if absent)."""
        raise NotImplementedError

    def attribute_invalid(self, names: Sequence[str]) -> Column | None:
        """Binary mode: whether one of the attributes ``names`` is not validly encoded.

        ``None`` when the binding's attribute values cannot be invalid once read.
        """
        return None

    def datacontenttype(self) -> Column:
        return self.content_type()

    def payload_bytes(self) -> Column:
        """Binary mode: the data bytes (``None``: no data; an empty payload is no data)."""
        payload = F.col(self.payload)
        return F.when(F.length(payload) > 0, payload)

    def option(self, path: tuple[str, ...]) -> Column | None:
        """The text of protocol option ``path`` (``None``: not readable from this shape)."""
        if len(path) == 1 and path[0] in self.fields:
            return _text(F.col(self.fields[path[0]]))
        if len(path) == 2:
            return self.keyed(path[0], path[1])
        return None

    def keyed(self, field: str, key: str) -> Column | None:
        return None


class _Kafka(_Wire):
    family = "KAFKA"
    payload = "value"
    lineage = ("topic", "partition", "offset", "timestamp")
    fields = {"topic": "topic", "partition": "partition", "key": "key"}

    def payload_bytes(self) -> Column:
        return F.col("value")  # a null value (tombstone) is no data; b"" stays b""

    def content_type(self) -> Column:
        return _text(_pair(F.col("headers"), "content-type"))

    def attribute(self, name: str) -> Column:
        return _text(_pair(F.col("headers"), "ce_" + name))

    def keyed(self, field: str, key: str) -> Column | None:
        return _text(_pair(F.col("headers"), key)) if field == "headers" else None


class _Amqp(_Wire):
    family = "AMQP"
    payload = "body"
    lineage = ("address",)
    fields = {"address": "address"}

    def content_type(self) -> Column:
        return F.col("properties.content_type")

    def attribute(self, name: str) -> Column:
        props = F.col("application_properties")
        return F.coalesce(props["cloudEvents_" + name], props["cloudEvents:" + name])

    def keyed(self, field: str, key: str) -> Column | None:
        if field == "properties":
            return _text(F.col("properties").getField(key.replace("-", "_")))
        if field in ("application_properties", "message_annotations", "footer"):
            return F.col(field)[key]
        if field == "header":
            return _text(F.col("header").getField(key.replace("-", "_")))
        return None


class _Mqtt(_Wire):
    family = "MQTT"
    lineage = ("topic",)
    fields = {
        "topic": "topic",
        "qos": "qos",
        "retain": "retain",
        "content_type": "content_type",
        "response_topic": "response_topic",
    }

    def content_type(self) -> Column:
        return F.col("content_type")

    def structured(self) -> Column:
        return (F.col("version") == "3.1.1") | _media_is_cloudevents(
            self.content_type()
        )

    def attribute(self, name: str) -> Column:
        return _pair(F.col("user_properties"), name)

    def keyed(self, field: str, key: str) -> Column | None:
        return _pair(F.col(field), key) if field == "user_properties" else None


class _Nats(_Wire):
    family = "NATS"
    lineage: tuple[str, ...] = ("subject",)
    fields = {"subject": "subject", "reply": "reply"}

    def content_type(self) -> Column:
        return _pair(F.col("headers"), "content-type", caseless=True)

    def structured(self) -> Column:
        """``Content-Type`` says so, or no ``ce-`` headers and a JSON object payload."""
        ce_header = self.attribute("specversion").isNotNull()
        json_object = F.ltrim(_text(F.col(self.payload))).startswith("{")
        plain = ~ce_header & F.coalesce(json_object, F.lit(False))
        return _media_is_cloudevents(self.content_type()) | plain

    def attribute(self, name: str) -> Column:
        return _pct_decoded(self._raw_attribute(name))

    def _raw_attribute(self, name: str) -> Column:
        return _pair(F.col("headers"), "ce-" + name, caseless=True)

    def attribute_invalid(self, names: Sequence[str]) -> Column | None:
        return _any([_pct_invalid(self._raw_attribute(n)) for n in names])

    def datacontenttype(self) -> Column:
        return self.attribute("datacontenttype")

    def keyed(self, field: str, key: str) -> Column | None:
        if field == "headers":
            return _pair(F.col("headers"), key, caseless=True)
        return None


class _Http(_Nats):
    family = "HTTP"
    payload = "body"
    lineage = ("method", "path")
    fields = {"method": "method", "status": "status"}

    def structured(self) -> Column:
        return _media_is_cloudevents(self.content_type())

    def datacontenttype(self) -> Column:
        return self.content_type()

    def unsupported(self) -> Column:
        return _starts_caseless(self.content_type(), "application/cloudevents-batch")

    def option(self, path: tuple[str, ...]) -> Column | None:
        if path == ("path",):
            return F.substring_index(F.col("path"), "?", 1)
        if len(path) == 2 and path[0] == "query":
            return F.try_parse_url(
                F.concat(F.lit("http://h"), F.col("path")),
                F.lit("QUERY"),
                F.lit(path[1]),
            )
        return super().option(path)


class _Pulsar(_Wire):
    family = "PULSAR"
    lineage = ("topic",)
    fields = {"topic": "topic", "partition_key": "partition_key"}

    def content_type(self) -> Column:
        props = F.col("properties")
        return F.coalesce(props["CE-datacontenttype"], props["CE-ContentType"])

    def attribute(self, name: str) -> Column:
        return F.col("properties")["CE-" + name]

    def datacontenttype(self) -> Column:
        return self.attribute("datacontenttype")

    def keyed(self, field: str, key: str) -> Column | None:
        return F.col("properties")[key] if field == "properties" else None


class _RocketMq(_Wire):
    family = "ROCKETMQ"
    payload = "body"
    lineage = ("topic",)
    fields = {"topic": "topic", "tag": "tag"}

    def content_type(self) -> Column:
        props = F.col("properties")
        return F.coalesce(props["CE_contenttype"], props["CE_contentType"])

    def attribute(self, name: str) -> Column:
        return F.col("properties")["CE_" + name]

    def payload_bytes(self) -> Column:
        body = F.col("body")
        return F.when((F.length(body) > 0) & (body != F.lit(b"\x00")), body)

    def keyed(self, field: str, key: str) -> Column | None:
        return F.col("properties")[key] if field == "properties" else None


class _Json(_Wire):
    payload = "value"

    def structured(self) -> Column:
        return F.lit(True)

    def attribute(self, name: str) -> Column:
        return F.lit(None).cast("string")

    def payload_bytes(self) -> Column:
        return F.col("value").cast("binary")


_WIRES: dict[str, _Wire] = {
    "kafka": _Kafka(),
    "amqp": _Amqp(),
    "mqtt": _Mqtt(),
    "nats": _Nats(),
    "http": _Http(),
    "pulsar": _Pulsar(),
    "rocketmq": _RocketMq(),
    "json": _Json(),
}


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


class _Target:
    """One message definition compiled for the decoder (plain data; columns built lazily)."""

    def __init__(
        self, index: int, defn: MessageDef, dtype: DataType | None, wire: _Wire
    ) -> None:
        self.index = index
        self.defn = defn
        self.dtype = dtype
        self.ce = defn.envelope is not None
        #: the CloudEvents ``type`` when it is a literal: not absent, not a template
        self.literal_type = (
            defn.type
            if self.ce and defn.type is not None and _VAR.search(defn.type) is None
            else None
        )
        self.bound = defn.protocol is not None and wire.family is not None
        self.applies = not self.bound or _family(defn.protocol) == wire.family
        self.required: list[str] = []
        self.constants: list[tuple[str, str]] = []
        self.content_type: str | None = None
        #: (attribute name or option path, regex, placeholder names)
        self.templates: list[tuple[str | tuple[str, ...], str, tuple[str, ...]]] = []
        self.options: list[OptionDef] = []
        self.kinds: dict[str, str] = {}
        for attr in defn.attributes:
            self.kinds[attr.name] = attr.kind
            self._compile_attr(attr.name, attr.kind, attr.required, attr.value)
        if self.bound and self.applies:
            transit = _TRANSIT.get(wire.family or "", set())
            for opt in defn.options:
                if opt.path and opt.path[0] not in transit:
                    self._compile_option(opt)
        self.placeholders: tuple[str, ...] = tuple(
            dict.fromkeys(n for _, _, names in self.templates for n in names)
        )
        #: the most-specific-match order, as the dispatcher's (smaller first): bound to the
        #: wire's protocol, then more constants, templates and required extension attributes
        #: to match, then more of them constants, then catalog order
        exact = (
            len(self.constants)
            + len(self.options)
            + (self.content_type is not None)
            + (self.literal_type is not None)
        )
        self.rank = (
            0 if self.bound else 1,
            -(exact + len(self.templates) + len(self.required)),
            -exact,
            index,
        )

    def _compile_attr(
        self, name: str, kind: str, required: bool, value: object
    ) -> None:
        if value is None:
            if required and name not in _REQUIRED:
                self.required.append(name)
        elif _is_template(kind, value) and isinstance(value, str):
            regex, names = template_regex(value)
            self.templates.append((name, regex, names))
        elif name == "type" and value == self.defn.type:
            return
        elif name == "time" and value == _NOW:
            return
        elif name == "datacontenttype" and isinstance(value, str):
            self.content_type = value.split(";", 1)[0].strip().lower()
        elif isinstance(value, (str, int, bool)):
            self.constants.append((name, _canonical(value)))

    def _compile_option(self, opt: OptionDef) -> None:
        if opt.template and isinstance(opt.value, str):
            regex, names = template_regex(opt.value)
            self.templates.append((opt.path, regex, names))
        else:
            self.options.append(opt)


class Outputs(Mapping[str, DataFrame]):
    """Message id -> typed DataFrame of one routed frame, in catalog order.

    Each DataFrame is built when first looked up, then kept: building one takes calls into
    the JVM (about 7 ms), which for a catalog of 1,100 definitions made every ``split`` cost
    7.5 s when only a few outputs were read.
    """

    __slots__ = ("_ids", "_build", "_frames")

    def __init__(self, ids: Iterable[str], build: Callable[[str], DataFrame]) -> None:
        self._ids = dict.fromkeys(ids)  # ordered, with O(1) membership
        self._build = build
        self._frames: dict[str, DataFrame] = {}

    def __getitem__(self, message_id: str) -> DataFrame:
        frame = self._frames.get(message_id)
        if frame is None:
            if message_id not in self._ids:
                raise KeyError(message_id)
            frame = self._frames[message_id] = self._build(message_id)
        return frame

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._ids  # without building the DataFrame

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"Outputs({list(self._ids)!r})"


class SparkDecoder:
    """Decodes DataFrames of one landing shape into typed per-message DataFrames.

    ``defs``: the package's message definitions in catalog order; ``schemas``: message id ->
    payload Spark type (messages without an entry have opaque ``binary`` data); ``binding``:
    ``kafka``, ``json`` (one string column ``value``), ``amqp``, ``mqtt``, ``nats``, ``http``,
    ``pulsar`` or ``rocketmq`` (the :data:`LANDING_SCHEMAS`); ``payloads``, ``avro_schemas``,
    ``proto_descriptors``, ``schema_ids``, ``registry``: Avro and Protobuf payloads, see the
    module docstring; ``spark``: the session whose JVM is checked for the connectors
    (default: the active one).
    """

    def __init__(
        self,
        defs: Sequence[MessageDef],
        schemas: Mapping[str, DataType],
        binding: str = "kafka",
        *,
        payloads: str = "auto",
        avro_schemas: Mapping[str, str] | None = None,
        proto_descriptors: Mapping[str, tuple[str, bytes]] | None = None,
        schema_ids: Mapping[str, int | Iterable[int]] | None = None,
        registry: Any = None,
        spark: Any = None,
    ) -> None:
        if binding not in _WIRES:
            raise ValueError(
                f"unknown binding {binding!r}; expected one of {sorted(_WIRES)}"
            )
        if payloads not in PAYLOAD_MODES:
            raise ValueError(
                f"payloads must be one of {PAYLOAD_MODES}, not {payloads!r}"
            )
        self.binding = binding
        self.wire = _WIRES[binding]
        self.avro_schemas = dict(avro_schemas or {})
        self.proto_descriptors = dict(proto_descriptors or {})
        self.targets = [
            _Target(i, d, schemas.get(d.id), self.wire) for i, d in enumerate(defs)
        ]
        self.targets = [t for t in self.targets if t.applies]
        #: target index -> how its Avro / Protobuf payload is decoded
        self.specs: dict[int, PayloadSpec] = {}
        for t in self.targets if payloads != "off" else ():
            spec = self._payload_spec(t, schema_ids or {}, registry)
            if spec is not None:
                self.specs[t.index] = spec
        #: "native" or "arrow" (``auto`` is decided here, or at the first ``route`` when
        #: no SparkSession is active yet)
        self.requested = payloads
        self.payloads: str | None = None
        if self.specs:
            self._choose_payloads(spark)
        names: dict[str, None] = dict.fromkeys(_CORE)
        for t in self.targets:
            names.update(dict.fromkeys(t.kinds))
        self.attr_names = tuple(names)
        #: payload parse groups: (kind, type json) -> column name
        self.groups: dict[tuple[str, str], str] = {}
        for t in self.targets:
            self.groups.setdefault(self._group_key(t), f"_xr_p{len(self.groups)}")
        #: JSON payload groups in order: a structured row of group ``i`` can be parsed with
        #: the envelope type whose ``data`` is that group's payload type (variant ``i + 1``)
        self.json_groups = [n for (kind, _), n in self.groups.items() if kind == "json"]
        self.variant = {t.index: self._variant(t) for t in self.targets}
        #: see :meth:`_envelope_choice`; ``None``: envelopes are read with ``data`` as text
        self.envelopes = self._envelope_choice()
        #: message id -> its target (ids are unique in a generated package)
        self._by_id: dict[str, _Target] = {}
        for t in self.targets:
            self._by_id.setdefault(t.defn.id, t)
        #: what :meth:`_memo` built, by key
        self._built: dict[tuple[Any, ...], Any] = {}

    def _payload_spec(
        self, t: _Target, schema_ids: Mapping[str, int | Iterable[int]], registry: Any
    ) -> PayloadSpec | None:
        """How ``t``'s payload is decoded when its content type is Avro binary (with its
        Avro schema known) or Protobuf (with its descriptor set known); else ``None``.
        """
        if t.dtype is None:
            return None
        fmt = wire_format(t.defn.datacontenttype)
        dtype = t.dtype.jsonValue()
        if fmt == "protobuf" and t.defn.id in self.proto_descriptors:
            message, descriptors = self.proto_descriptors[t.defn.id]
            return PayloadSpec(
                "protobuf", dtype, message=message, descriptors=bytes(descriptors)
            )
        if fmt != "avro" or t.defn.id not in self.avro_schemas:
            return None
        schema = self.avro_schemas[t.defn.id]
        framing, codec = "plain", None
        if t.defn.model is not None:
            codec = codec_for(t.defn.model, "avro")
            if codec is not None:
                framing = getattr(codec, "framing_by_type", {}).get(
                    t.defn.type, getattr(codec, "framing", "plain")
                )
        fingerprint = b""
        if framing == "single-object":
            from fastavro.schema import fingerprint as _fp
            from fastavro.schema import to_parsing_canonical_form

            hex_ = _fp(to_parsing_canonical_form(json.loads(schema)), "CRC-64-AVRO")
            fingerprint = int(hex_, 16).to_bytes(8, "little")
        ids: frozenset[int] = frozenset()
        if framing == "confluent":
            given = schema_ids.get(t.defn.id)
            if given is not None:
                ids = frozenset([given] if isinstance(given, int) else given)
            elif registry is not None:
                ids = self._registry_ids(t, schema, registry)
        return PayloadSpec(
            "avro",
            dtype,
            schema=schema,
            framing=framing,
            fingerprint=fingerprint,
            schema_ids=ids,
        )

    @staticmethod
    def _registry_ids(t: _Target, schema: str, registry: Any) -> frozenset[int]:
        """The ids under which ``registry`` (confluent-kafka ``SchemaRegistryClient``
        interface) has ``schema``: looked up (never registered) under the subjects the
        Avro codec writes with, ``<topic>-value`` for a literal Kafka topic option, and the
        record's full name."""
        subjects = [
            f"{o.value}-value"
            for o in t.defn.options
            if o.path == ("topic",) and not o.template and isinstance(o.value, str)
        ]
        parsed = json.loads(schema)
        if isinstance(parsed, dict) and isinstance(parsed.get("name"), str):
            name, space = parsed["name"], parsed.get("namespace")
            subjects.append(f"{space}.{name}" if space and "." not in name else name)
        try:
            from confluent_kafka.schema_registry import Schema

            wanted: Any = Schema(schema, "AVRO")
        except ImportError:
            from .formats.avro import _Schema

            wanted = _Schema(schema)
        ids = set()
        for subject in subjects:
            try:
                ids.add(int(registry.lookup_schema(subject, wanted).schema_id))
            except Exception:  # not registered under that subject
                continue
        return frozenset(ids)

    def _choose_payloads(self, spark: Any) -> None:
        """Settle native vs Arrow decoding of Avro / Protobuf payloads for the session:
        ``native`` without the connector is an error, ``auto`` falls back to Arrow with a
        warning naming the missing package (both said when the decoder is built)."""
        if self.requested == "arrow":
            self.payloads = "arrow"
            return
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
            if spark is None:  # decided at the first ``route``
                return
        formats = sorted({s.format for s in self.specs.values()})
        present = {f: connector_present(spark, f) for f in formats}
        missing = [f for f in formats if present[f] is False]
        if not missing:
            self.payloads = "native"
            return
        import pyspark

        packages = ",".join(
            f"{CONNECTORS[f][0]}:{pyspark.__version__}" for f in missing
        )
        what = " and ".join(f"{f} ({CONNECTORS[f][0]})" for f in missing)
        if self.requested == "native":
            raise RuntimeError(
                f"the Spark connector for {what} is not on this cluster: start Spark with "
                f"--packages {packages}, or use payloads='arrow'"
            )
        warnings.warn(
            f"the Spark connector for {what} is not on this cluster: Avro/Protobuf payloads "
            f"are decoded over Arrow batches (mapInArrow, Python on the executors); "
            f"--packages {packages} enables from_avro/from_protobuf",
            RuntimeWarning,
            stacklevel=3,
        )
        self.payloads = "arrow"

    def _variant(self, t: _Target) -> int:
        """How a structured row of ``t`` is parsed: ``i + 1`` with JSON group ``i``'s payload
        type as ``data``, 0 with ``data`` as text (opaque payloads), -1 when its payload is
        parsed after its envelope (Avro binary or Protobuf: ``from_avro`` / ``from_protobuf`` or the
        Arrow step).
        """
        kind = self._group_key(t)[0]
        if kind == "json":
            return self.json_groups.index(self.groups[self._group_key(t)]) + 1
        return 0 if kind == "bytes" else -1

    def _envelope_choice(self) -> tuple[dict[str, int], int] | None:
        """(CloudEvents type -> variant, variant of every other type), or ``None``.

        A structured row is parsed ONCE, with the envelope variant its ``type`` selects (read
        before the parse with ``get_json_object``; needed only when there are several), if
        every type selects one variant: no two definitions that a row of one type could
        match have different variants (a definition whose type is a template or absent can
        match a row of any type). Otherwise (or with a definition of variant -1), ``None``:
        envelopes are parsed with ``data`` as text, and their payloads in the payload parse
        stage after the match (see :meth:`route`).
        """
        if any(v < 0 for v in self.variant.values()):
            return None
        ce = [t for t in self.targets if t.ce]
        any_type = {self.variant[t.index] for t in ce if t.literal_type is None}
        if len(any_type) > 1:
            return None
        by_type: dict[str, set[int]] = {}
        for t in ce:
            if t.literal_type is not None:
                by_type.setdefault(t.literal_type, set()).add(self.variant[t.index])
        types: dict[str, int] = {}
        for name, found in by_type.items():
            found = found | any_type
            if len(found) > 1:
                return None
            types[name] = found.pop()
        if any_type:
            return types, any_type.pop()
        # a row of any other type matches no definition: any variant tells its verdict, so
        # the most common one (with one variant nothing is read before the parse)
        counts = collections.Counter(sorted(types.values()))
        return types, counts.most_common(1)[0][0] if counts else 0

    def _group_key(self, t: _Target) -> tuple[str, str]:
        if t.dtype is None:
            return ("bytes", "")
        spec = self.specs.get(t.index)
        if spec is not None:
            return (spec.format, t.dtype.json() + "\0" + _spec_key(spec))
        return ("json", t.dtype.json())

    # -- routing -------------------------------------------------------------------------------

    def route(self, df: DataFrame) -> DataFrame:
        """The input with the routing columns (``_xr_*``) added; one parse per row.

        The plan alternates code-generated stages with the two ``from_json`` projections
        (Spark runs a projection holding ``from_json`` outside whole-stage code generation,
        so nothing else is put in it):

        1. lookups: binary-mode attributes, options, content mode (generated code);
        2. the envelope ``from_json`` of structured rows, with ``data`` typed by the
           envelope variant that the event's ``type`` selects (:meth:`_envelope_choice`;
           read with ``get_json_object`` first when there are several), else as text;
        3. attributes, match, typed attributes, every error known before the payload parse
           (``_xr_e0``) and the payload text (generated code);
        4. the payload ``from_json`` of matched rows without an error so far (binary rows,
           ``data_base64``, ``data`` read as text), and a second envelope parse, with
           ``data`` as text, of the rows whose typed ``data`` did not fit (``_xr_rp``: is
           the envelope valid JSON? see :meth:`_env_ok`);
        5. payload errors and the final error ``_xr_e`` (generated code).

        A typed envelope is one parse for a structured row where text ``data`` needs two:
        1M structured Kafka rows went from 0.64x to 0.80x (and 0.77x to 0.90x in a second
        run) of a hand-written pipeline (JVM CPU, same run). Parsing binary payloads in
        stage 2 as well (matched before it) was tried: stages 3 to 5 then form one generated
        method over the JVM's 8,000-byte limit for compiling it, and with a stage boundary
        put back the gain was within the noise.

        ``spark_partition_id()`` (never negative) is nondeterministic: the columns ``_xr_g``
        and ``_xr_b``, referenced by each later stage, keep Spark's optimizer from merging a
        ``from_json`` projection with its neighbours, and the guard of the final error keeps
        the output filters above the last stage (see the comment there). On 1M
        Kafka rows this layout took the generic decoder from 0.69x to about 0.8x of a
        hand-written pipeline that validates nothing (``bench/bench_spark.py``).

        The column expressions are built once per input column list and reused (see
        :meth:`_memo`): building them takes thousands of calls into the JVM, about a
        second, which every streaming micro-batch would otherwise pay.
        """
        if self.specs and self.payloads is None:
            self._choose_payloads(df.sparkSession)
        key = ("route", tuple(df.columns))
        source = df
        for stage in self._memo(key, lambda: self._route_stages(source)):
            df = self._arrow_step(df) if stage is None else df.select(*stage)
        return df

    @staticmethod
    def _columns(select: Iterable[Column | str]) -> list[Column]:
        """A ``select`` list with names as columns (a name costs a JVM call per ``select``)."""
        return [F.col(c) if isinstance(c, str) else c for c in select]

    def _memo(self, key: tuple[Any, ...], build: Callable[[], M]) -> M:
        """``build()``, once per ``key`` for this decoder.

        Column expressions are unresolved (they name columns; Spark resolves a copy in each
        plan), so the same ones serve every DataFrame with the same column names.
        """
        try:
            found: M = self._built[key]
        except KeyError:
            found = self._built[key] = build()
        return found

    def _route_stages(self, df: DataFrame) -> list[list[Column] | None]:
        """The ``select`` lists of :meth:`route` for inputs with ``df``'s columns; ``None``
        stands for the ``mapInArrow`` step of Arrow-decoded payloads (:meth:`_arrow_step`).
        """
        wire = self.wire
        # every binary-mode attribute is read unconditionally (so that Spark shares the
        # header key array between the lookups)
        raw = [
            (
                wire.datacontenttype() if n == "datacontenttype" else wire.attribute(n)
            ).alias("_xr_h_" + n)
            for n in self.attr_names
        ]
        structured = wire.structured()
        text = _text(F.col(wire.payload))
        invalid = wire.attribute_invalid(self.attr_names)
        checks = [] if invalid is None else [(~structured & invalid).alias("_xr_x")]
        carried = ["_xr_x"] if invalid is not None else []
        # the envelope variant of structured rows; with several, from the ``type`` text read
        # without checks (the parse decides whether the row is JSON; a row whose strict
        # ``type`` selects another variant is dead-lettered, see ``_error_before_parse``)
        variant = self._variant_of(F.get_json_object(text, "$.type"))
        if variant is None:
            variant = F.lit(self.envelopes[1] if self.envelopes is not None else 0)
        lookups: list[Column | str] = [
            "*",
            F.spark_partition_id().alias("_xr_g"),
            structured.alias("_xr_s"),
            *raw,
            *checks,
            *self._option_columns(),
        ]
        s = F.col("_xr_s")
        parse = s & (F.col("_xr_g") >= 0)
        variants = self._envelope_variants()
        stage1: list[Column | str] = [
            "*",
            F.when(s, variant).alias("_xr_k"),
            *(
                F.when(
                    parse & (F.col("_xr_k") == j), _parse_wrapped(_wrapped(text), t)
                ).alias(name)
                for j, name, t in variants
            ),
        ]
        attrs = [
            F.when(s, self._env_attr(n))
            .otherwise(F.col("_xr_h_" + n))
            .alias("_xr_a_" + n)
            for n in self.attr_names
        ]
        envelopes = [name for _, name, _ in variants]
        kept = [*df.columns, "_xr_g", "_xr_s", "_xr_k", *envelopes, *carried]
        stage2: list[Column | str] = [*kept, *attrs, *self._option_names()]
        flags: list[Column | str] = [
            "*",
            self._is_ce().alias("_xr_ce"),
            self._ce_ok().alias("_xr_ce_ok"),
        ]
        guard = F.col("_xr_g") >= 0
        match = F.when(guard, self._match()).alias("_xr_m")
        stage3: list[Column | str] = ["*", match, *self._typed_columns()]
        # the wrapped payload text, computed in a code-generated stage (inside ``from_json``
        # its child expressions would be interpreted row by row)
        text_of_matched = F.when(
            F.col("_xr_m").isNotNull(), _wrapped(self._data_text())
        )
        stage4: list[Column | str] = [
            "*",
            self._error_before_parse().alias("_xr_e0"),
            text_of_matched.alias("_xr_txt"),
            self._recheck().alias("_xr_rc"),
            F.spark_partition_id().alias("_xr_b"),
        ]
        arrow = self._arrow_groups()
        if arrow:
            # the payload bytes of the rows the ``mapInArrow`` step decodes
            indexes = sorted({i for _, ix, _ in arrow for i in ix})
            wanted = _isin_indexes("_xr_m", indexes) & F.col("_xr_e0").isNull()
            stage4.append(F.when(wanted, self._data_bytes()).alias("_xr_bin"))
        guard = (F.col("_xr_b") >= 0) & F.col("_xr_e0").isNull()
        stage5: list[Column | str] = ["*", *self._parse_columns(guard)]
        if self.envelopes is not None:
            # the rows whose typed ``data`` did not fit, parsed again with ``data`` as text:
            # is the envelope valid JSON? (see ``_env_ok``)
            again = F.col("_xr_rc") & (F.col("_xr_b") >= 0)
            envelope = _parse_wrapped(_wrapped(text), self._envelope_type(_S))
            stage5.append(F.when(again, envelope).alias("_xr_rp"))
        # the names after stage 5 (asked of Spark once), less the ones no later stage reads
        for stage in (lookups, stage1, stage2, flags, stage3, stage4):
            df = df.select(*stage)
        if arrow:  # the columns the ``mapInArrow`` step adds
            placeholders = [
                F.lit(None).cast(self._arrow_result_type(spec)).alias(name)
                for name, _, spec in arrow
            ]
            df = df.select("*", *placeholders)
        df = df.select(*stage5)
        drop = {"_xr_ce", "_xr_ce_ok", "_xr_b", "_xr_txt", "_xr_e0", "_xr_x", "_xr_bin"}
        if self.envelopes is None:
            drop |= {"_xr_s", "_xr_k", *envelopes, "_xr_rc"}
        keep = [c for c in df.columns if c not in drop]
        # ``spark_partition_id()`` keeps the output filters (on ``_xr_e``) above this stage, so
        # the error is computed once, here. Pushed below it, a filter would carry the error
        # expression itself: Spark then infers a second copy of it from the ``_xr_m`` test
        # beside it (two evaluations per good row and twice the generated code), and pushed
        # further it would inline the payload parse into the filter and evaluate it twice
        error = F.when(F.spark_partition_id() >= 0, self._error())
        final: list[Column | str] = [*keep, error.alias("_xr_e")]
        stages = [lookups, stage1, stage2, flags, stage3, stage4, stage5, final]
        out: list[list[Column] | None] = [self._columns(stage) for stage in stages]
        if arrow:
            out.insert(6, None)
        return out

    def _envelope_type(self, data: DataType) -> StructType:
        """The envelope as ``from_json`` reads it: attributes as text, ``data`` typed."""
        return StructType(
            [StructField(n, _S) for n in self.attr_names]
            + [StructField("data", data), StructField("data_base64", _S)]
        )

    def _envelope_variants(self) -> list[tuple[int, str, DataType]]:
        """(variant, column, envelope type) of every envelope variant a row can select."""
        if self.envelopes is None:
            return [(0, "_xr_env", self._envelope_type(_S))]
        used = self._used_variants()
        out: list[tuple[int, str, DataType]] = []
        if 0 in used:
            out.append((0, "_xr_env", self._envelope_type(_S)))
        for j, name in enumerate(self.json_groups, 1):
            if j in used:
                data = self._group_type(name)
                out.append((j, f"_xr_q{j}", self._envelope_type(data)))
        return out

    def _used_variants(self) -> set[int]:
        """The envelope variants a structured row can select (:meth:`_envelope_choice`)."""
        if self.envelopes is None:
            return {0}
        types, default = self.envelopes
        return set(types.values()) | {default}

    def _group_type(self, name: str) -> DataType:
        """The payload type of parse group ``name``."""
        for t in self.targets:
            if self.groups[self._group_key(t)] == name and t.dtype is not None:
                return t.dtype
        raise KeyError(name)

    def _option_names(self) -> list[str]:
        return list(self._option_map())

    def _option_columns(self) -> list[Column]:
        return [col.alias(name) for name, col in self._option_map().items()]

    def _option_map(self) -> dict[str, Column]:
        """Option column name -> its expression, for every readable option of the targets."""
        cols: dict[str, Column] = {}
        for t in self.targets:
            paths = [o.path for o in t.options] + [
                p for p, _, _ in t.templates if isinstance(p, tuple)
            ]
            for path in paths:
                name = "_xr_o_" + "_".join(path)
                col = self.wire.option(path)
                if name not in cols and col is not None:
                    cols[name] = col
        return cols

    def _source(self, ref: str | tuple[str, ...]) -> Column | None:
        if isinstance(ref, str):
            return F.col("_xr_a_" + ref)
        if self.wire.option(ref) is None:
            return None
        return F.col("_xr_o_" + "_".join(ref))

    def _attr(self, name: str) -> Column:
        return F.col("_xr_a_" + name)

    def _is_ce(self) -> Column:
        present = [self._attr(n).isNotNull() for n in _REQUIRED]
        return F.col("_xr_s") | _any(present)

    def _ce_ok(self) -> Column:
        """A well-formed CloudEvent: parsed, ``specversion`` 1.0, non-empty core attributes."""
        ok = (self._attr("specversion") == "1.0") & ~self.wire.unsupported()
        for name in _REQUIRED[1:]:
            ok = ok & self._attr(name).isNotNull() & (self._attr(name) != "")
        return F.coalesce(ok & (~F.col("_xr_s") | self._env_ok()), F.lit(False))

    # -- the parsed envelope of structured rows --------------------------------------------------

    def _env_columns(self) -> list[tuple[int, Column]]:
        """(variant, parsed envelope column) of each envelope variant."""
        return [(j, F.col(name)) for j, name, _ in self._envelope_variants()]

    def _env_column(self, variant: int) -> Column | None:
        """The parsed envelope column of ``variant`` (``None``: no row selects it)."""
        return dict(self._env_columns()).get(variant)

    def _env_attr(self, name: str) -> Column:
        """The text of attribute ``name`` in a structured row's envelope (whichever variant)."""
        values = [env["v"][name] for _, env in self._env_columns()]
        return values[0] if len(values) == 1 else F.coalesce(*values)

    def _by_variant(self, pick: Callable[[int, Column], Column]) -> Column:
        """``pick(variant, envelope)`` for the variant a structured row was parsed with."""
        envs = self._env_columns()
        if len(envs) == 1:
            return pick(*envs[0])
        return _case([(F.col("_xr_k") == j, pick(j, env)) for j, env in envs])

    def _env_ok(self) -> Column:
        """Whether a structured row's envelope parsed as one JSON object.

        With ``data`` as text any parse error marks the row (``_unparsed``). With a typed
        ``data``, the corrupt-record field is also set when ``data`` does not fit the
        payload type (the rest of the envelope is still read): that is a payload error,
        decided after the match; JSON syntax errors inside ``data`` that Spark recovers from
        look the same, and a second parse tells them apart (:meth:`_recheck`).
        """

        return self._by_variant(
            lambda j, env: ~_unparsed(env) if j == 0 else _typed_read(env)
        )

    def _recheck(self) -> Column:
        """Whether a row's verdict depends on whether its envelope is valid JSON: read as an
        object with a typed ``data`` that did not fit (see :meth:`_env_ok`). The payload
        parse stage parses these rows again with ``data`` as text (``_xr_rp``); an
        unsupported content mode (HTTP batch) is reported before any JSON error."""

        def ambiguous(j: int, env: Column) -> Column:
            if j == 0:
                return F.lit(False)
            return _typed_read(env) & env[_CORRUPT].isNotNull()

        if self.envelopes is None:
            return F.lit(False)
        checked = self._by_variant(ambiguous) & ~self.wire.unsupported()
        return F.coalesce(F.col("_xr_s") & checked, F.lit(False))

    def _typed_envelope(self, t: _Target) -> Column | None:
        """The envelope column of ``t``'s variant when it has a typed ``data``."""
        j = self._typed_variant(t)
        return self._env_column(j) if j else None

    def _payload(self, t: _Target) -> tuple[Column, Column]:
        """(the payload value, whether it is not a valid value of ``t``'s type) of a row
        matched to ``t`` (``t`` has a payload type); one pair per parse group and variant.
        """
        return self._memo(
            ("payload", *self._payload_key(t)), lambda: self._build_payload(t)
        )

    def _payload_key(self, t: _Target) -> tuple[str, int]:
        """What :meth:`_payload` depends on: (parse group column, typed envelope variant)."""
        return self.groups[self._group_key(t)], self._typed_variant(t)

    def _build_payload(self, t: _Target) -> tuple[Column, Column]:
        parsed = F.col(self.groups[self._group_key(t)])
        env = self._typed_envelope(t)
        if env is None:
            return parsed["v"], _unparsed(parsed)
        # structured rows: ``data`` from the envelope, else the ``data_base64`` parse
        data = env["v"]["data"]
        inline = F.col("_xr_s") & data.isNotNull()
        value = F.when(inline, data).otherwise(parsed["v"])
        bad = F.when(
            F.col("_xr_s"),
            env[_CORRUPT].isNotNull() | (data.isNull() & _unparsed(parsed)),
        ).otherwise(_unparsed(parsed))
        return value, bad

    def _condition(self, t: _Target, by_type: bool = True) -> Column:
        """Whether a row passes ``t``'s checks; without its literal ``type`` unless ``by_type``.

        Everything it checks besides that ``type`` is in :meth:`_checks_key`.
        """
        conds: list[Column] = []
        if t.ce:
            conds.append(F.col("_xr_ce_ok"))
            if by_type and t.literal_type is not None:
                conds.append(self._attr("type") == t.literal_type)
        else:
            conds.append(~F.col("_xr_ce"))
        conds += [self._attr(n).isNotNull() for n in t.required]
        conds += [self._attr(n) == v for n, v in t.constants]
        if t.content_type is not None:
            raw = self._attr("datacontenttype")
            media = F.coalesce(_media(raw), F.lit("application/json"))
            # the exact media type first: ``_media`` lower-cases (ICU, per row)
            same = F.when(raw == t.content_type, F.lit(True)).otherwise(
                media == t.content_type
            )
            conds.append(same)
        spec = self.specs.get(t.index)
        if spec is not None and spec.schema_ids:
            # Confluent framing with known schema ids: the id routes the row
            headers = [
                bytearray(b"\x00" + i.to_bytes(4, "big"))
                for i in sorted(spec.schema_ids)
            ]
            conds.append(F.substring(self._data_bytes(), 1, 5).isin(headers))
        for opt in t.options:
            col = self.wire.option(opt.path)
            if col is not None:
                conds.append(
                    F.col("_xr_o_" + "_".join(opt.path)) == _canonical(opt.value)
                )
        seen: dict[str, Column] = {}
        for ref, regex, names in t.templates:
            src = self._source(ref)
            if src is None:
                continue
            conds.append(src.rlike(regex))
            for i, name in enumerate(names):
                value = F.regexp_extract(src, regex, i + 1)
                if name in seen:
                    conds.append(seen[name] == value)
                else:
                    seen[name] = value
        return F.coalesce(_all(conds), F.lit(False))

    def _checks_key(self, t: _Target) -> tuple[object, ...]:
        """What :meth:`_condition` checks besides a literal ``type``: equal keys, equal checks."""
        return (
            tuple(t.required),
            tuple(t.constants),
            t.content_type,
            (
                tuple(sorted(self.specs[t.index].schema_ids))
                if t.index in self.specs
                else ()
            ),
            tuple((opt.path, _canonical(opt.value)) for opt in t.options),
            tuple(t.templates),
        )

    def _match(self) -> Column:
        """The index of the first target whose checks a row passes (``NULL``: none).

        One ``CASE`` branch per :meth:`_match_entries` entry; an entry of several types looks
        the row's type up (:func:`_type_lookup`), so the generated code does not grow with
        the number of types. With a branch per type, 20 types made the stage's method too
        big for the JVM to compile (over 8,000 bytes of bytecode: it runs interpreted) and
        routing took ~2x as long as for one type.
        """
        branches: list[tuple[Column, Column]] = []
        for t, types in self._match_entries():
            if len(types) <= 1:
                branches.append((self._condition(t), F.lit(t.index)))
            else:
                index = _type_lookup(types, self._attr("type"))
                condition = index.isNotNull() & self._condition(t, by_type=False)
                branches.append((condition, index))
        return _case(branches)

    def _match_entries(self) -> list[tuple[_Target, dict[str, int]]]:
        """The branches of :meth:`_match` in order: (target, literal type -> target index).

        The order is the most-specific-match order (``_Target.rank``).

        Targets whose checks differ only in their literal CloudEvents ``type`` share the
        entry of the first of them (the types map to their own indexes). First match wins as
        with one branch per target: a target joins an earlier entry only if no entry in
        between could match a row of its type (one of the same type, or one whose type is a
        template or absent; entries without an envelope never match a CloudEvent).
        """
        entries: list[tuple[_Target, dict[str, int]]] = []
        latest: dict[tuple[object, ...], int] = {}  # checks key -> its latest entry
        holder: dict[str, int] = {}  # type -> the latest entry that looks it up
        barrier = -1  # the latest entry that can match a row of any type
        for t in sorted(self.targets, key=operator.attrgetter("rank")):
            ce_type = t.literal_type
            if ce_type is None:
                if t.ce:
                    barrier = len(entries)
                entries.append((t, {}))
                continue
            key = self._checks_key(t)
            at = latest.get(key, -1)
            if at <= barrier or holder.get(ce_type, -1) > at:
                at = latest[key] = len(entries)
                entries.append((t, {}))
            entries[at][1].setdefault(ce_type, t.index)
            holder[ce_type] = at
        return entries

    def _typed_columns(self) -> list[Column]:
        cols = {
            f"_xr_t_{name}_{kind}": _typed(self._attr(name), kind)
            for name, kind in _CORE_KINDS.items()
        }
        for t in self.targets:
            for name, kind in t.kinds.items():
                if kind in _TYPED_KINDS and name not in _CORE_KINDS:
                    cols.setdefault(
                        f"_xr_t_{name}_{kind}", _typed(self._attr(name), kind)
                    )
        return [c.alias(n) for n, c in cols.items()]

    def _data_text(self) -> Column:
        """The payload text to parse: binary rows' payload; for a structured row ``data``
        (an envelope parsed with ``data`` as text) or the text of ``data_base64``."""

        def text(j: int, env: Column) -> Column:
            v = env["v"]
            from_b64 = _text(F.try_to_binary(v["data_base64"], F.lit("base64")))
            if j == 0:
                return F.coalesce(v["data"], from_b64)
            return F.when(v["data"].isNull(), from_b64)  # else parsed with the envelope

        structured = self._by_variant(text)
        return F.when(F.col("_xr_s"), structured).otherwise(
            _text(self.wire.payload_bytes())
        )

    def _data_bytes(self) -> Column:
        text_data = self._env_column(0)  # the envelope with ``data`` as text
        if text_data is None:  # no structured row selects it
            return self.wire.payload_bytes()
        env = text_data["v"]
        return F.when(
            F.col("_xr_s"),
            F.coalesce(
                F.try_to_binary(env["data_base64"], F.lit("base64")),
                env["data"].cast("binary"),
            ),
        ).otherwise(self.wire.payload_bytes())

    def _variant_of(self, ce_type: Column) -> Column | None:
        """The envelope variant that a CloudEvents ``type`` selects (:meth:`_envelope_choice`);
        ``None`` when there is one variant (or envelopes are read with ``data`` as text).
        """
        if self.envelopes is None or len(self._used_variants()) == 1:
            return None
        types, default = self.envelopes
        return F.coalesce(_type_lookup(types, ce_type), F.lit(default))

    def _parse_columns(self, guard: Column) -> list[Column]:
        cols = []
        for (kind, _), name in self.groups.items():
            members = [
                t for t in self.targets if self.groups[self._group_key(t)] == name
            ]
            when = _isin_indexes("_xr_m", [t.index for t in members]) & guard
            sample = members[0]
            if kind == "bytes":
                value = self._data_bytes()
            elif kind in _BINARY_FORMATS:
                if self.payloads == "arrow":
                    continue  # the ``mapInArrow`` step added the column
                value = self._parse_native(self.specs[sample.index])
            else:
                value = _parse_wrapped(F.col("_xr_txt"), sample.dtype)
            cols.append(F.when(when, value).alias(name))
        return cols

    def _parse_native(self, spec: PayloadSpec) -> Column:
        """``from_avro`` / ``from_protobuf`` of the row's payload bytes (framing stripped and
        checked) as the result struct of a JSON parse (``v``, ``_xr_end``, ``_xr_corrupt``).
        """
        data = self._data_bytes()
        if spec.format == "protobuf":
            from pyspark.sql.protobuf.functions import from_protobuf

            decoded = from_protobuf(
                data,
                spec.message,
                options={"mode": "PERMISSIVE", "emit.default.values": "true"},
                binaryDescriptorSet=spec.descriptors,
            )
            corrupt = decoded.isNull()
        else:
            from pyspark.sql.avro.functions import from_avro

            ok = F.lit(True)
            if spec.framing == "single-object":
                header = bytearray(_SINGLE_OBJECT + spec.fingerprint)
                ok = F.substring(data, 1, 10) == F.lit(header)
                data = F.substring(data, 11, _MAX_INT)
            elif spec.framing == "confluent":
                ok = (F.length(data) >= 5) & (
                    F.substring(data, 1, 1) == F.lit(bytearray(1))
                )
                data = F.substring(data, 6, _MAX_INT)
            decoded = from_avro(F.when(ok, data), spec.schema, {"mode": "PERMISSIVE"})
            # PERMISSIVE from_avro gives a record whose fields are all null for bytes it
            # cannot read (not a null record), so that is what marks a corrupt row. A valid
            # record with every field null is dead-lettered too (possible only when all
            # are nullable).
            corrupt = decoded.isNull() | ~F.coalesce(ok, F.lit(False))
            names = spec.dtype.get("fields") if isinstance(spec.dtype, dict) else None
            if names:
                corrupt = corrupt | _all(decoded[f["name"]].isNull() for f in names)
        return F.struct(
            decoded.alias("v"),
            F.lit(True).alias(_END),
            F.when(corrupt, F.lit(spec.format)).alias(_CORRUPT),
        )

    # -- the Arrow path ----------------------------------------------------------------------

    def _arrow_groups(self) -> list[tuple[str, frozenset[int], PayloadSpec]]:
        """(parse group column, its target indexes, spec) decoded by ``mapInArrow``."""
        if self.payloads != "arrow":
            return []
        out = []
        for (kind, _), name in self.groups.items():
            if kind in _BINARY_FORMATS:
                members = [
                    t for t in self.targets if self.groups[self._group_key(t)] == name
                ]
                out.append(
                    (
                        name,
                        frozenset(t.index for t in members),
                        self.specs[members[0].index],
                    )
                )
        return out

    def _arrow_result_type(self, spec: PayloadSpec) -> StructType:
        return StructType(
            [
                StructField("v", parse_type(spec.dtype)),
                StructField(_END, BooleanType()),
                StructField(_CORRUPT, _S),
            ]
        )

    def _arrow_step(self, df: DataFrame) -> DataFrame:
        """``df`` with one decoded column per Arrow group (:func:`decode_batches`)."""
        from pyspark.sql.pandas.types import to_arrow_type

        groups = self._arrow_groups()
        key = ("arrow", tuple(df.columns))

        def build() -> tuple[StructType, dict[str, Any]]:
            schema = StructType(
                [*df.schema.fields]
                + [StructField(n, self._arrow_result_type(s)) for n, _, s in groups]
            )
            types = {
                n: to_arrow_type(self._arrow_result_type(s), timezone="UTC")
                for n, _, s in groups
            }
            return schema, types

        schema, types = self._memo(key, build)

        def run(batches: Iterable[Any]) -> Iterator[Any]:
            return decode_batches(batches, groups, types, "_xr_m", "_xr_bin")

        return df.mapInArrow(run, schema)

    # -- errors --------------------------------------------------------------------------------

    def _pre_error(self) -> Column:
        """Why a row matched no definition."""
        s = F.col("_xr_s")
        bad_json = s & ~self._env_ok()
        branches = [
            (self.wire.unsupported(), _err(DECODE_ERROR, "unsupported-format")),
            (bad_json, _err(DECODE_ERROR, "invalid-json")),
        ]
        ce = F.col("_xr_ce")
        for name in _REQUIRED:
            missing = self._attr(name).isNull() | (self._attr(name) == "")
            branches.append(
                (ce & missing, _err(DECODE_ERROR, f"missing-attribute: {name}"))
            )
        branches.append(
            (
                ce & (self._attr("specversion") != "1.0"),
                _err(DECODE_ERROR, "invalid-specversion"),
            )
        )
        typed = [t.defn.type for t in self.targets if t.ce and t.defn.type is not None]
        untyped = any(t.ce and t.defn.type is None for t in self.targets)
        described = F.concat(F.lit("type "), F.coalesce(self._attr("type"), F.lit("?")))
        if not untyped:
            unknown = (
                _type_lookup(dict.fromkeys(typed, 0), self._attr("type")).isNull()
                if typed
                else F.lit(True)
            )
            branches.append((ce & unknown, _err(UNKNOWN_TYPE, described)))
        plain = any(not t.ce for t in self.targets)
        if not plain:
            branches.append((~ce, _err(UNKNOWN_TYPE, "not a CloudEvent")))
        return _case(branches, _err(NO_MATCH, described))

    def _target_error(self, targets: Sequence[_Target]) -> Column:
        """Why a row matched to one of ``targets`` is not good, as far as known before its
        payload parse: attribute types, content type and presence of data (``NULL`` when
        all pass). The targets have the same :meth:`_target_checks`; where their rows were
        parsed with different envelope variants, presence of data is read per variant.
        """
        t = targets[0]
        branches: list[tuple[Column, Column]] = []
        kinds, has_payload, binary = self._target_checks(t)
        for name, kind in kinds:
            raw = self._attr(name)
            bad = raw.isNotNull() & F.col(f"_xr_t_{name}_{kind}").isNull()
            branches.append((bad, _err(DECODE_ERROR, f"invalid-attribute: {name}")))
        if has_payload:
            ct = self._attr("datacontenttype")
            if binary is None:
                json_ct = (
                    ct.isNull() | (ct == "application/json") | ct.rlike(_JSON_MEDIA)
                )
            else:  # the definition's content type matched: its format
                json_ct = F.lit(True)
            branches.append((~json_ct, _err(VALIDATION_ERROR, "unsupported-format")))
            structured = self._by_targets(
                targets,
                self._typed_variant,
                lambda ts: self._structured_no_data(self._typed_variant(ts[0])),
            )
            raw = F.when(F.col("_xr_s"), structured).otherwise(
                self.wire.payload_bytes().isNull()
            )
            branches.append((raw, _err(VALIDATION_ERROR, "no data")))
        return _case(branches)

    def _target_checks(
        self, t: _Target
    ) -> tuple[tuple[tuple[str, str], ...], bool, str | None]:
        """What :meth:`_target_error` checks for ``t`` besides presence of data: (typed
        attributes, has a payload type, binary payload format or ``None``). Targets with
        equal checks share one branch of the error (definitions of different payload types
        too)."""
        kinds = tuple(_CORE_KINDS.items()) + tuple(
            (n, k)
            for n, k in t.kinds.items()
            if k in _TYPED_KINDS and n not in _CORE_KINDS
        )
        spec = self.specs.get(t.index)
        return kinds, t.dtype is not None, spec.format if spec is not None else None

    def _typed_variant(self, t: _Target) -> int:
        """The envelope variant of ``t``'s structured rows when ``data`` is typed, else 0."""
        j = self.variant[t.index]
        return j if t.ce and j > 0 else 0

    def _structured_no_data(self, variant: int) -> Column:
        """Whether a structured row parsed with envelope ``variant`` (0: ``data`` as text,
        see :meth:`_typed_variant`) has neither ``data`` nor ``data_base64`` (a typed
        ``data`` that did not fit the payload type is there: a payload error)."""
        env = self._env_column(variant) if variant else None
        if env is None:
            env = F.col(self._envelope_variants()[0][1])
            return env["v"]["data"].isNull() & env["v"]["data_base64"].isNull()
        v = env["v"]
        return v["data"].isNull() & v["data_base64"].isNull() & env[_CORRUPT].isNull()

    def _payload_error(self, t: _Target) -> Column:
        """Why the parsed payload of a row matched to ``t`` is not good (``NULL`` when it is)."""
        if t.dtype is None:
            return F.lit(None)
        value, bad = self._payload(t)
        branches = [(bad, _err(VALIDATION_ERROR, "invalid payload"))]
        for cond, path in _missing_fields(value, t.dtype, ""):
            branches.append((cond, _err(VALIDATION_ERROR, f"missing field: {path}")))
        return _case(branches)

    def _by_targets(
        self,
        targets: Sequence[_Target],
        key: Callable[[_Target], object],
        build: Callable[[list[_Target]], Column],
    ) -> Column:
        """``build(group)`` for the group of ``targets`` (equal ``key``) that a matched row's
        ``_xr_m`` is in: one ``CASE`` branch per group, no test with one group (the caller
        only asks for rows matched to one of ``targets``).

        Targets checked alike share one branch: with many definitions of one payload type
        this keeps the generated code small (a 20-branch ``CASE`` of identical checks is ~2x
        slower).
        """
        groups: dict[object, list[_Target]] = {}
        for t in targets:
            groups.setdefault(key(t), []).append(t)
        branches = [
            (_isin_indexes("_xr_m", [t.index for t in ts]), build(ts))
            for ts in groups.values()
        ]
        return branches[0][1] if len(branches) == 1 else _case(branches)

    def _error_before_parse(self) -> Column:
        """The error of a row known before its payload parse (``NULL``: none yet)."""
        matched = self._by_targets(
            self.targets, self._target_checks, self._target_error
        )
        error = F.when(F.col("_xr_m").isNull(), self._pre_error()).otherwise(matched)
        variant = self._variant_of(self._attr("type"))
        if variant is not None:
            # the strict ``type`` selects another envelope variant than the text read
            # before the parse did: only a ``type`` member repeated with another value
            other = F.col("_xr_s") & (variant != F.col("_xr_k"))
            duplicate = _err(DECODE_ERROR, "duplicate-attribute: type")
            error = F.when(F.col("_xr_m").isNotNull() & other, duplicate).otherwise(
                error
            )
        if self.wire.attribute_invalid(self.attr_names) is None:
            return error
        encoding = _err(DECODE_ERROR, "invalid-encoding")
        return F.when(F.col("_xr_x"), encoding).otherwise(error)

    def _error(self) -> Column:
        """The error struct of a row (``NULL`` when good)."""
        # a row without an error before the parse is matched; targets whose payload is
        # read and checked alike (same parse group, see ``_payload``) share a branch
        payload = self._by_targets(
            self.targets,
            lambda t: (self._group_key(t), t.ce),
            lambda ts: self._payload_error(ts[0]),
        )
        error = F.coalesce(F.col("_xr_e0"), payload)
        if self.envelopes is None:
            return error
        # a typed ``data`` that did not fit in an envelope that is not valid JSON either
        invalid = F.col("_xr_rc") & _unparsed(F.col("_xr_rp"))
        return F.when(invalid, _err(DECODE_ERROR, "invalid-json")).otherwise(error)

    # -- outputs -------------------------------------------------------------------------------

    def split(self, routed: DataFrame) -> tuple[Outputs, DataFrame]:
        """(message id -> typed DataFrame, dead-letter DataFrame) from :meth:`route`'s frame.

        The typed DataFrames are built when first looked up (see :class:`Outputs`).
        """
        columns = tuple(routed.columns)

        def output(message_id: str) -> DataFrame:
            t = self._by_id[message_id]
            return routed.where(self._output_filter(t)).select(*self._output_columns(t))

        condition, select = self._memo(("dead", columns), lambda: self._dead(columns))
        return Outputs(self._by_id, output), routed.where(condition).select(*select)

    def _output_filter(self, t: _Target) -> Column:
        """The rows of ``t``'s output, built once per target: each Column operation costs
        about ten calls into the JVM (PySpark 4 records its Python call site), which every
        micro-batch would otherwise pay again for every output it writes."""
        return self._memo(
            ("where", t.index),
            lambda: self._good() & (F.col("_xr_m") == t.index),
        )

    def _good(self) -> Column:
        """Whether a routed row is good (it has no error): it lands in a typed output."""
        return self._memo(("good",), lambda: F.col("_xr_e").isNull())

    def _dead(self, columns: tuple[str, ...]) -> tuple[Column, list[Column]]:
        """(filter, select list) of the dead letters of a routed frame with ``columns``."""
        dead = self._columns(c for c in columns if not c.startswith("_xr_"))
        dead += [
            F.col("_xr_e.reason").alias("reason"),
            F.col("_xr_e.detail").alias("detail"),
        ]
        return ~self._good(), dead

    def _output_columns(self, t: _Target) -> list[Column]:
        """The select list of ``t``'s output; targets of the same shape share one."""
        attrs = tuple(
            (name, _CORE_KINDS.get(name) or t.kinds.get(name, "string"))
            for name in _CORE + tuple(n for n in t.kinds if n not in _CORE)
        )
        key = (
            "output",
            attrs,
            t.dtype is None,
            self._payload_key(t),
            tuple(t.templates),
        )
        return self._memo(key, lambda: self._build_output_columns(t, attrs))

    def _build_output_columns(
        self, t: _Target, attrs: tuple[tuple[str, str], ...]
    ) -> list[Column]:
        cols: list[Column] = []
        names: list[str] = []
        for name, kind in attrs:
            if kind in _TYPED_KINDS:
                cols.append(F.col(f"_xr_t_{name}_{kind}").alias(name))
            else:
                cols.append(self._attr(name).alias(name))
            names.append(name)
        if t.dtype is None:
            data = F.col(self.groups[self._group_key(t)])
        else:
            data = self._payload(t)[0]
        cols.append(data.alias("data"))
        names.append("data")
        if t.placeholders:
            cols.append(self._params(t).alias("params"))
            names.append("params")
        for name in self.wire.lineage:
            cols.append(F.col(name).alias("_" + name if name in names else name))
        return cols

    def _params(self, t: _Target) -> Column:
        """The struct of ``t``'s placeholder values (percent-decoded), one per template set."""
        key = ("params", tuple(t.templates))
        return self._memo(key, lambda: self._build_params(t))

    def _build_params(self, t: _Target) -> Column:
        fields: dict[str, Column] = {}
        for ref, regex, names in t.templates:
            src = self._source(ref)
            if src is None:
                continue
            for i, name in enumerate(names):
                if name not in fields:
                    raw = F.regexp_extract(src, regex, i + 1)
                    fields[name] = _pct_decoded(raw).alias(name)
        return F.struct(*fields.values())

    def decode(self, df: DataFrame) -> tuple[Outputs, DataFrame]:
        """:meth:`split` of :meth:`route`: lazy frames (see the module note on persisting)."""
        return self.split(self.route(df))

    def foreach_batch(
        self, write: Writer, *, write_empty: bool = False
    ) -> Callable[[DataFrame, int], None]:
        """A ``foreachBatch`` function: route once (persisted), write the outputs, unpersist.

        ``write(message_id, frame, batch_id)`` is called once per message id that has rows in
        the batch, in catalog order, then once with ``None`` for the dead letters when there
        are any; with ``write_empty=True``, for every message id and the dead letters, empty
        frames included. Which outputs have rows is read in the job that fills the cache, so
        a catalog of 1,100 definitions costs a Spark job per output present, not per
        definition. Also usable on a batch DataFrame: ``decoder.foreach_batch(write)(df, 0)``.
        """

        def run(batch: DataFrame, batch_id: int) -> None:
            routed = self._cacheable(self.route(batch)).persist(
                StorageLevel.MEMORY_AND_DISK
            )
            try:
                outputs, dead = self.split(routed)
                if write_empty:  # no aggregate: the first write fills the cache
                    ids, any_dead = list(outputs), True
                else:
                    present, any_dead = self._present(routed)
                    ids = [m for m, t in self._by_id.items() if t.index in present]
                for message_id in ids:
                    write(message_id, outputs[message_id], batch_id)
                if any_dead:
                    write(None, dead, batch_id)
            finally:
                routed.unpersist()

        return run

    def _present(self, routed: DataFrame) -> tuple[set[int], bool]:
        """(the target indexes of the good rows, whether there are dead letters) of a
        routed frame; on a persisted frame this job fills the cache."""
        good = self._good()
        select = self._memo(
            ("present",),
            lambda: [
                F.collect_set(F.when(good, F.col("_xr_m"))).alias("m"),
                F.coalesce(F.max(~good), F.lit(False)).alias("dead"),
            ],
        )
        row = routed.agg(*select).head()
        assert row is not None  # a global aggregate has one row
        return set(row["m"]), bool(row["dead"])

    def _cacheable(self, routed: DataFrame) -> DataFrame:
        """``routed`` made cheap to persist and to read back once per output.

        Input columns that only the dead letters need (all but the binding's lineage) are
        kept for bad rows only (``NULL`` compresses to nothing in the columnar cache), and
        rows are sorted by definition index so that the cached batches' statistics let each
        output's filter skip the batches of other definitions.
        """
        columns = tuple(routed.columns)

        def build() -> list[Column]:
            bad = F.col("_xr_e").isNotNull()
            return [
                (
                    F.col(c)
                    if c.startswith("_xr_") or c in self.wire.lineage
                    else F.when(bad, F.col(c)).alias(c)
                )
                for c in columns
            ]

        select = self._memo(("cacheable", columns), build)
        return routed.select(*select).sortWithinPartitions("_xr_m")


def _spec_key(spec: PayloadSpec) -> str:
    """What tells two payload specs apart (besides their Spark type), as text."""
    digest = zlib.crc32(spec.descriptors)
    return json.dumps(
        [
            spec.schema,
            spec.framing,
            spec.fingerprint.hex(),
            sorted(spec.schema_ids),
            spec.message,
            digest,
        ]
    )


def _wrapped(text: Column) -> Column:
    """``{"v":<text>,"_xr_end":true}``: a payload (or envelope) as a member of a wrapper.

    ``from_json`` stops after the first JSON value of its input: text after it is ignored.
    As the first member of a wrapper, text after the value breaks the wrapper's syntax
    (``{"a":1} x``: the row gets the corrupt-record field) or closes the wrapper before
    the last member (``{"a":1}}``, ``{"a":1}},{...``: ``_xr_end`` stays null), so
    :func:`_unparsed` rejects it as the codecs do. Not detected: text that goes on with
    members of the wrapper itself (``{"a":1},"b":2``), which no JSON writer produces.
    """
    return F.concat(F.lit('{"v":'), text, F.lit(f',"{_END}":true}}'))


def _typed_read(envelope: Column) -> Column:
    """Whether an envelope parsed with a typed ``data`` was read as one JSON object (its
    corrupt-record field may be set: see ``SparkDecoder._env_ok``)."""
    return envelope.isNotNull() & envelope["v"].isNotNull() & envelope[_END].isNotNull()


def _unparsed(parsed: Column) -> Column:
    """Whether a :func:`_parse_wrapped` result is not one valid JSON value of its type."""
    return parsed.isNull() | parsed[_CORRUPT].isNotNull() | parsed[_END].isNull()


def _parse_wrapped(wrapped: Column, dtype: DataType | None) -> Column:
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
    return F.from_json(wrapped, wrapper, _PARSE)


# ---------------------------------------------------------------------------------------------
# Module-level decoders (what the generated spark.py calls)
# ---------------------------------------------------------------------------------------------


def _decoder(binding: str) -> Callable[..., tuple[Outputs, DataFrame]]:
    def decode(
        df: DataFrame,
        defs: Sequence[MessageDef],
        schemas: Mapping[str, DataType],
        **options: Any,
    ) -> tuple[Outputs, DataFrame]:
        return SparkDecoder(defs, schemas, binding, **options).decode(df)

    decode.__name__ = f"decode_{binding}"
    decode.__doc__ = (
        f"Decode a DataFrame of the ``{binding}`` landing shape: "
        "(message id -> typed DataFrame, dead-letter DataFrame)."
    )
    return decode


decode_kafka = _decoder("kafka")
decode_json = _decoder("json")
decode_amqp = _decoder("amqp")
decode_mqtt = _decoder("mqtt")
decode_nats = _decoder("nats")
decode_http = _decoder("http")
decode_pulsar = _decoder("pulsar")
decode_rocketmq = _decoder("rocketmq")


def parse_type(value: Any) -> DataType:
    """A Spark type from its JSON form (``DataType.jsonValue()``), as ``spark_types`` emits."""
    from pyspark.sql.types import _parse_datatype_json_value

    result: DataType = _parse_datatype_json_value(value)
    return result
