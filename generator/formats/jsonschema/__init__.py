"""JSON Schema payloads (draft-04 to 2020-12): spellings, content types, and the entry points
of its jobs, each in its own module, imported on first use: checks (``checks``,
meta-validation with the jsonschema library), pydantic models (``models``, through
datamodel-code-generator) and Spark types (``spark``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import Diagnostics
from ...model import ir
from ...naming import Scope
from .._shared.content import is_json
from .._shared.defaults import field_names as field_names
from .._shared.defaults import field_pointer as field_pointer
from .._shared.defaults import runtime_codec as runtime_codec
from .._shared.defaults import spark_avro as spark_avro
from .._shared.defaults import spark_descriptors as spark_descriptors
from .._shared.defaults import spark_read as spark_read
from .._shared.defaults import unusable as unusable
from .._shared.fragment import Selected, fragment
from .._shared.fragment import deep_link as deep_link
from .._shared.models import Diag, Imports, declared_name
from .._shared.spark import SparkType

#: the format family id (``ir.Payload.format``)
NAME = "json"
#: spellings of the format name (lower case, before the ``/version``)
SPELLINGS = frozenset({"jsonschema", "json-schema", "json_schema", "json"})
#: payload models are generated (others keep their data as bytes)
MODELED = True
TITLE = "JSON Schema"
#: the format name xRegistry defines, the versions xrgen knows (a regular expression over the
#: normalized version, ``formats.spelling.schema_format_version``) and one example; spellings
#: that name a data format rather than a schema language (warning XRG148)
FORMAT = "JsonSchema"
VERSIONS = r"draft-0[467]|2019-09|2020-12"
EXAMPLE = "JsonSchema/draft-07"
DATA_NAMES = frozenset({"json"})
#: the content type inferred when the catalog declares none
CONTENT_TYPE = "application/json"
#: schemas are JSON documents (JSON Schemas); the codec is the runtime's JSON
JSON_SCHEMA = True
TEXT = False
RUNTIME_MODULE: str | None = None
RUNTIME_EXTRA: str | None = None

def accepts(content_type: str | None) -> bool:
    """Whether the payload travels as JSON: no content type, ``*/json`` or ``*/*+json``."""
    return is_json(content_type)


def guess(schema: Any) -> bool:
    """JSON Schema is the fallback family of an unlabelled schema."""
    return True


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every JSON Schema payload (one dcg call)."""
    from .models import JsonBatch

    return JsonBatch(payloads, imports, scope, diags).render()


def spark_type(schema: Any) -> SparkType:
    """The Spark type of values valid against the JSON Schema ``schema`` (see module rules)."""
    from .spark import JsonMapper

    dtype, _ = JsonMapper(schema).map(schema)
    return dtype


def spark_recursive(schema: Any) -> bool:
    """Whether ``schema`` refers to itself, so that its Spark type holds the recursive part
    as a ``string`` column of JSON text (a Spark type is finite)."""
    from .spark import JsonMapper

    mapper = JsonMapper(schema)
    mapper.map(schema)
    return mapper.recursive


def check(schema: Any, draft: str | None, file: str, ptr: str, diags: Diagnostics) -> None:
    """Meta-validate an embedded JSON Schema (see ``check_json_schema``)."""
    from .checks import check_json_schema

    check_json_schema(schema, draft, file, ptr, diags)


def check_unlabelled(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """The checks of a JSON Schema without a declared format that its models rely on: local
    ``$ref``s that name nothing, misspelled keywords (``checks``)."""
    from .checks import check_keywords, check_refs

    check_refs(schema, file, ptr, diags)
    check_keywords(schema, file, ptr, diags)


def type_pointer(schema: Any, name: str) -> str | None:
    """The pointer (without ``#/``) that ``<schema>:name`` names in a JSON Schema: ``name``
    itself when it is a pointer to a member, else ``definitions/name`` or ``$defs/name``
    when present; ``None`` (the root schema) otherwise."""
    candidates = [name.lstrip("/")] if "/" in name else []
    candidates += [f"definitions/{name}", f"$defs/{name}"]
    for candidate in candidates:
        node = schema
        for token in candidate.split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            node = node.get(token) if isinstance(node, dict) else None
        if isinstance(node, dict):
            return candidate
    return None


def json_text(text: str) -> bool:
    """A JSON Schema embedded as a string is JSON text."""
    return True


def root_name(schema: Any) -> str | None:
    """The schema's ``title``, else its ``name`` (the last dotted segment)."""
    return declared_name(schema, ("title", "name"))


def select_type(schema: Any, name: str, linked: bool) -> Selected:
    """The member ``<schema>:name`` names (``type_pointer``); the root schema, with a warning,
    when there is none and the root's ``title`` is not ``name``. A deep link (``linked``) is
    the type already."""
    if linked:
        return Selected(schema)
    member = type_pointer(schema, name)
    found = fragment(schema, member) if member is not None else None
    if found is not None:
        return Selected(found, member)
    if isinstance(schema, dict) and schema.get("title") == name:
        return Selected(schema)
    return Selected(schema, problem=f"no member {name!r} in the JSON Schema; the root schema is used")


def value_checks(schema: Any) -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
    """The ``const`` / ``enum`` values a value must have (``disjoint.value_checks``)."""
    from .disjoint import value_checks as checks

    return checks(schema)


def check_payload(payload: ir.Payload, diags: Diagnostics) -> None:
    """Its patterns run by a linear-time engine, no ``$ref`` cycle without an object or array
    in between (``payloads.check_json_schema``)."""
    from .payloads import check_json_schema

    check_json_schema(payload, diags)


def shapes(schema: Any) -> Any:
    """The shapes a value of ``schema`` may have (``disjoint.read``); ``None`` when any value
    may fit."""
    from .disjoint import ANY, read

    found = read(schema)
    return None if found == ANY else found


def apart(a: Any, b: Any) -> bool:
    """Whether no value has both shapes (``disjoint.shapes_disjoint``)."""
    from .disjoint import shapes_disjoint

    return shapes_disjoint(a, b)
