"""Payload and event schemas as Spark SQL types (pure: no pyspark import).

Runs at generation time. Every function returns the JSON form of a Spark data type, exactly as
``DataType.jsonValue()`` writes it, so generated code rebuilds it with
``StructType.fromJson(...)`` (structs) or ``pyspark.sql.types._parse_datatype_json_value``.
Column names are the wire names.

The payload rules of each schema format live in its module (``formats/jsonschema/spark.py``,
``formats/avro/spark.py``, ...); ``payload_to_spark`` selects it.

Event schemas (:func:`event_schema`): ``specversion``, ``id``, ``source``, ``type`` (non-null
strings), ``time`` (timestamp), ``datacontenttype``, ``dataschema``, ``subject`` (strings),
then each declared extension attribute with its CloudEvents type (``integer`` -> ``integer``,
``boolean``, ``timestamp``, ``binary``, everything else ``string``), then ``traceparent`` and
``tracestate`` (strings: the Distributed Tracing extension, which every output of the runtime's
decoder keeps) unless declared, then ``data``: the payload type, or ``binary`` for opaque
payloads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import formats
from .cloudevents import CORE_ATTRIBUTES, REQUIRED_CORE
from .formats._shared.spark import STRING, SparkType, field, struct

__all__ = [
    "CORE_ATTRIBUTES",
    "attribute_type",
    "event_schema",
    "payload_to_spark",
]

#: the CloudEvents Distributed Tracing extension attributes (the runtime decoder keeps them)
TRACING = ("traceparent", "tracestate")
_ATTR_TYPES = {
    "integer": "integer",
    "boolean": "boolean",
    "timestamp": "timestamp",
    "binary": "binary",
}


# ---------------------------------------------------------------------------------------------
# Payloads and events
# ---------------------------------------------------------------------------------------------


def payload_to_spark(payload_format: str | None, schema: Any) -> SparkType | None:
    """The Spark type of a payload (``ir.Payload.format`` and ``.schema``); ``None`` if opaque."""
    m = formats.get(payload_format)
    return None if m is None else m.spark_type(schema)


def attribute_type(kind: str) -> str:
    """The Spark type of a CloudEvents attribute of xRegistry type ``kind``."""
    return _ATTR_TYPES.get(kind, STRING)


def event_schema(
    data_type: SparkType | None, extensions: Iterable[tuple[str, str]] = ()
) -> dict[str, Any]:
    """The full event struct: core attributes, ``extensions`` ``(name, kind)``, the
    Distributed Tracing extension's ``traceparent`` and ``tracestate`` (strings) unless
    declared, then ``data``.

    ``data_type`` is the payload type (``None``: opaque payload -> ``binary``). Extension names
    that repeat a core attribute are ignored (the core column keeps its CloudEvents type).
    """
    fields = [
        field(name, attribute_type(kind), name not in REQUIRED_CORE)
        for name, kind in CORE_ATTRIBUTES
    ]
    core = {name for name, _ in CORE_ATTRIBUTES}
    seen = set(core)
    for name, kind in extensions:
        if name not in seen:
            seen.add(name)
            fields.append(field(name, attribute_type(kind), True))
    # the Distributed Tracing extension: a column of every decoder output
    for name in TRACING:
        if name not in seen:
            fields.append(field(name, "string", True))
    fields.append(field("data", "binary" if data_type is None else data_type, True))
    return struct(fields)
