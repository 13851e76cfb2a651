"""Avro payloads: spellings, content types and the format's entry points (the models are built
by ``models``, the checks by ``checks``, the Spark types by ``spark``).

Models: our own mapping straight to pydantic v2 source (records, enums, fixed, arrays, maps,
unions, logical types, defaults, named type reuse). Field types hold what the wire holds:
``Int32``/``Int64``/``Float32``, ``TimestampMillis``/``TimestampMicros`` (UTC when no zone is
given), and the zone-less ``LocalTimestampMillis``/
``LocalTimestampMicros``/``TimeMillis``/``TimeMicros`` of ``xrgen_runtime.formats.avro``; a
``decimal`` is a ``Decimal`` with ``max_digits``/``decimal_places``. The wire bytes are Avro binary of the
catalog's writer schema when the content type is Avro (``avro/binary`` is inferred when the
catalog declares none) and JSON when it declares a JSON content type; the runtime codec is
``xrgen_runtime.formats.avro``.

Spark types, rules (mirroring Spark's ``SchemaConverters``): ``record`` -> ``struct``; ``enum`` ->
``string``; ``array`` / ``map`` -> ``array`` / ``map<string, T>``; ``fixed`` / ``bytes`` ->
``binary``; ``int`` -> ``integer``; ``long``, ``float``, ``double``, ``boolean``, ``string``
as named; ``null`` -> nullable ``string``; unions with ``null`` -> the other type, nullable;
``[int, long]`` -> ``long``; ``[float, double]`` -> ``double``; other unions -> ``struct`` of
nullable ``member0``, ``member1``, ...; logical types ``timestamp-millis``/``-micros`` ->
``timestamp``, ``local-timestamp-*`` -> ``timestamp_ntz``, ``date`` -> ``date``, ``decimal``
-> ``decimal(p,s)``, ``uuid`` -> ``string``. Named types are resolved by full name; a recursive
reference becomes ``string``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from xrgen_runtime.formats import AVRO_MEDIA_TYPES

from ...literals import py_str, py_value
from ...model import ir
from ...naming import Scope
from ...options import Options
from .._shared.content import carried
from .._shared.defaults import apart as apart
from .._shared.defaults import check_payload as check_payload
from .._shared.defaults import check_unlabelled as check_unlabelled
from .._shared.defaults import shapes as shapes
from .._shared.defaults import spark_descriptors as spark_descriptors
from .._shared.defaults import spark_read as spark_read
from .._shared.defaults import spark_recursive as spark_recursive
from .._shared.defaults import unusable as unusable
from .._shared.defaults import value_checks as value_checks
from .._shared.fragment import Selected
from .._shared.fragment import deep_link as deep_link
from .._shared.models import Diag, Imports, declared_name
from .._shared.spark import SparkType
from .checks import avro_problems
from .models import AvroModule
from .spark import AvroMapper

#: the format family id (``ir.Payload.format``)
NAME = "avro"
SPELLINGS = frozenset({"avro", "apache-avro", "avsc"})
#: payload models are generated (others keep their data as bytes)
MODELED = True
TITLE = "Avro schema"
#: the format name xRegistry defines, the versions xrgen knows (a regular expression over the
#: normalized version, ``formats.spelling.schema_format_version``) and one example; spellings
#: that name a data format rather than a schema language (warning XRG148)
FORMAT = "Avro"
VERSIONS = r"1(\.\d+){0,2}"
EXAMPLE = "Avro/1.11.1"
DATA_NAMES: frozenset[str] = frozenset()
#: the content type inferred when the catalog declares none (the media type Avro's own
#: specification and the CloudEvents Kafka examples use for Avro binary)
CONTENT_TYPE = "avro/binary"
#: media types read as Avro binary (parameters and case ignored)
MEDIA_TYPES = AVRO_MEDIA_TYPES
#: framings of Avro binary on the wire (see ``xrgen_runtime.formats.avro``)
FRAMINGS = ("plain", "single-object", "confluent")
#: schemas are JSON documents; the codec and the extra it needs
JSON_SCHEMA = False
TEXT = False
RUNTIME_MODULE = "avro"
RUNTIME_EXTRA = "avro"


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes Avro binary."""
    if content_type is None:
        return False
    return content_type.split(";", 1)[0].strip().lower() in MEDIA_TYPES


def guess(schema: Any) -> bool:
    """An unlabelled schema that looks like Avro: a named type or a union."""
    if isinstance(schema, dict):
        return schema.get("type") in ("record", "enum", "fixed") and "name" in schema
    return isinstance(schema, list)


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every Avro payload; identical named types are emitted once."""
    return AvroModule(payloads, imports, scope, diags).render()


def spark_type(schema: Any) -> SparkType:
    """The Spark type of values of the Avro schema ``schema`` (see module rules)."""
    return AvroMapper().map(schema, "")[0]


def runtime_codec(
    payload: ir.Payload, messages: Sequence[ir.Message], options: Options
) -> tuple[str, str] | None:
    """``(class name in xrgen_runtime.formats.avro, constructor expression)`` of the codec of
    ``payload`` when some of ``messages`` carry it as Avro binary, else ``None``."""
    avro_messages = [m for m in messages if carried(accepts, m.datacontenttype)]
    if not avro_messages:
        return None
    default = options.avro_framing
    overrides = dict(options.avro_framing_messages)
    by_type = {
        m.ce_type: overrides[m.id]
        for m in avro_messages
        if m.ce_type is not None and overrides.get(m.id, default) != default
    }
    model = f"models.{payload.model_name}"
    schema = json.dumps(payload.schema, separators=(",", ":"), sort_keys=False, ensure_ascii=False)
    args = [model, py_str(schema)]
    if default != "plain":
        args.append(f"framing={py_str(default)}")
    if by_type:
        args.append(f"framing_by_type={py_value(dict(sorted(by_type.items())))}")
    return "AvroCodec", f"AvroCodec({', '.join(args)})"


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """Structural checks of an embedded Avro schema (XRG151)."""
    for p, msg in avro_problems(schema):
        diags.error("XRG151", file, ptr + p, f"invalid Avro schema: {msg}")


def named_type(schema: Any, name: str) -> Any:
    """The Avro named type ``name`` (short or full name) inside ``schema``, or None."""
    if isinstance(schema, dict):
        full = ".".join(
            x for x in (schema.get("namespace"), schema.get("name")) if isinstance(x, str)
        )
        if name in (schema.get("name"), full):
            return schema
        children: list[Any] = list(schema.get("fields") or []) + [
            schema.get("type"),
            schema.get("items"),
            schema.get("values"),
        ]
        for child in children:
            found = named_type(child, name)
            if found is not None:
                return found
    elif isinstance(schema, list):
        for child in schema:
            found = named_type(child, name)
            if found is not None:
                return found
    return None


def json_text(text: str) -> bool:
    """A string ``schema`` is JSON text, except a bare Avro type name like ``"string"``."""
    return text.lstrip()[:1] in ("{", "[", '"')


def root_name(schema: Any) -> str | None:
    """The root type's ``name`` (without its namespace)."""
    return declared_name(schema, ("name",))


def select_type(schema: Any, name: str, linked: bool) -> Selected:
    """The named type ``name`` (``named_type``); the root type, with a warning, when there is
    none."""
    named = named_type(schema, name)
    if named is None:
        return Selected(schema, problem=f"no Avro type {name!r} in the schema; the root type is used")
    return Selected(named)


def spark_avro(schema: Any) -> Any:
    """The schema itself."""
    return schema


def field_names(schema: Any) -> set[str]:
    """The fields of the root record."""
    if isinstance(schema, dict) and isinstance(schema.get("fields"), list):
        return {
            f["name"]
            for f in schema["fields"]
            if isinstance(f, dict) and isinstance(f.get("name"), str)
        }
    return set()


def field_pointer(name: str) -> str:
    """The root record's ``fields``."""
    return "/fields"
