"""JSON Schema payloads (draft-04 to 2020-12): spellings, content types, and the entry points
of its jobs, each in its own module, imported on first use: checks (``jsonschema_check``,
meta-validation with the jsonschema library), pydantic models (``jsonschema_models``, through
datamodel-code-generator) and Spark types (``jsonschema_spark``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..diagnostics import Diagnostics
from ..model import ir
from ..naming import Scope
from ._models import Diag, Imports
from ._spark import STRING, SparkType

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

#: a JSON Schema could not be mapped: the payload gets a permissive model
XRG_JSON_UNMAPPED = "XRG320"
#: a ``$ref`` that cannot be resolved locally (remote, relative file, anchor): typed ``Any``
XRG_REF_UNSUPPORTED = "XRG321"
#: datamodel-code-generator warned about a schema (unknown format, ...)
XRG_JSON_WARNING = "XRG323"

Data = dict[str, Any]
_JSON_PRIMITIVES = {
    "integer": "long",
    "number": "double",
    "boolean": "boolean",
    "string": STRING,
}


def accepts(content_type: str | None) -> bool:
    """Whether the payload travels as JSON: no content type, ``*/json`` or ``*/*+json``."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return "/" in media and (media.endswith("/json") or media.endswith("+json"))


def guess(schema: Any) -> bool:
    """JSON Schema is the fallback family of an unlabelled schema."""
    return True


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every JSON Schema payload (one dcg call)."""
    from .jsonschema_models import JsonBatch

    return JsonBatch(payloads, imports, scope, diags).render()


def spark_type(schema: Any) -> SparkType:
    """The Spark type of values valid against the JSON Schema ``schema`` (see module rules)."""
    from .jsonschema_spark import JsonMapper

    dtype, _ = JsonMapper(schema).map(schema)
    return dtype


def spark_recursive(schema: Any) -> bool:
    """Whether ``schema`` refers to itself, so that its Spark type holds the recursive part
    as a ``string`` column of JSON text (a Spark type is finite)."""
    from .jsonschema_spark import JsonMapper

    mapper = JsonMapper(schema)
    mapper.map(schema)
    return mapper.recursive


def check(schema: Any, draft: str | None, file: str, ptr: str, diags: Diagnostics) -> None:
    """Meta-validate an embedded JSON Schema (see ``check_json_schema``)."""
    from .jsonschema_check import check_json_schema

    check_json_schema(schema, draft, file, ptr, diags)


def check_unlabelled(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """The checks of a JSON Schema without a declared format that its models rely on: local
    ``$ref``s that name nothing, misspelled keywords (``jsonschema_check``)."""
    from .jsonschema_check import check_keywords, check_refs

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
