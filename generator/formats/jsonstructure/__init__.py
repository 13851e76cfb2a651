"""JSON Structure payloads (xRegistry ``JsonStructure/<draft>``, JSON Structure Core drafts
02 to 04): spellings, content types and the format's entry points, each job in its own
module: checks (``checks``: the ``json-structure`` package's schema validator), pydantic models
(``models``), Spark types and the decoder's conversions (``spark``), diff rules
(``xrgen.diff.jsonstructure``).

Instances are JSON: the content type inferred when the catalog declares none is
``application/json`` and the payload travels as the model's JSON, whose field types write each
JSON Structure type in its own representation (``int64`` and ``decimal`` as strings, binary as
base64, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import Diagnostics
from ...model import ir
from ...naming import Scope
from .._shared.content import is_json
from .._shared.defaults import apart as apart
from .._shared.defaults import check_payload as check_payload
from .._shared.defaults import check_unlabelled as check_unlabelled
from .._shared.defaults import field_names as field_names
from .._shared.defaults import field_pointer as field_pointer
from .._shared.defaults import runtime_codec as runtime_codec
from .._shared.defaults import shapes as shapes
from .._shared.defaults import spark_avro as spark_avro
from .._shared.defaults import spark_descriptors as spark_descriptors
from .._shared.defaults import spark_recursive as spark_recursive
from .._shared.defaults import unusable as unusable
from .._shared.defaults import value_checks as value_checks
from .._shared.fragment import Selected
from .._shared.models import Diag, Imports
from .._shared.spark import SparkType
from .document import StructureError

#: the format family id (``ir.Payload.format``)
NAME = "jsonstructure"
#: spellings of the format name (lower case, before the ``/version``): xRegistry's
#: ``JsonStructure``, and ``JSONStructure`` as catalogs write it
SPELLINGS = frozenset({"jsonstructure", "json-structure", "json_structure", "jstruct"})
#: payload models are generated
MODELED = True
TITLE = "JSON Structure"
#: instances are JSON documents
CONTENT_TYPE = "application/json"
#: ``$schema`` prefix of JSON Structure meta-schemas
META_PREFIX = "https://json-structure.org/meta/"
#: the format name as xRegistry spells it; no versions are told apart
FORMAT = "JsonStructure"
VERSIONS: str | None = None
EXAMPLE = "JsonStructure/draft-04"
DATA_NAMES: frozenset[str] = frozenset()
#: schemas are JSON documents; instances travel as JSON (no codec to register)
JSON_SCHEMA = False
TEXT = False
RUNTIME_MODULE: str | None = None
RUNTIME_EXTRA: str | None = None


def accepts(content_type: str | None) -> bool:
    """JSON Structure instances travel as JSON (``*/json``, ``*/*+json``)."""
    return is_json(content_type)


def guess(schema: Any) -> bool:
    """An unlabelled schema whose ``$schema`` is a JSON Structure meta-schema."""
    return isinstance(schema, dict) and str(schema.get("$schema", "")).startswith(
        META_PREFIX
    )


def check(
    schema: Any, version: str | None, file: str, ptr: str, diags: Diagnostics
) -> None:
    """Validate an embedded JSON Structure document (XRG159)."""
    from .checks import check_structure

    check_structure(schema, file, ptr, diags)


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every JSON Structure payload."""
    from .models import StructureModule

    return StructureModule(payloads, imports, scope, diags).render()


def spark_type(schema: Any) -> SparkType:
    """The Spark type of instances of ``schema`` (``spark`` module rules)."""
    from .spark import StructureMapper

    try:
        return StructureMapper(schema).root_type()
    except (StructureError, RecursionError):
        return "string"  # the model is permissive (XRG326): the payload's JSON text


def spark_read(schema: Any) -> tuple[SparkType, Any] | None:
    """``(wire type, conversion tree)`` the Spark decoder reads instances of ``schema`` with
    (``spark`` module), or ``None`` when ``from_json`` reads them as ``spark_type`` gives.
    """
    from .spark import StructureMapper

    try:
        _, wire, conversion = StructureMapper(schema).read()
    except (StructureError, RecursionError):
        return None
    return (wire, conversion) if conversion is not None else None


def type_pointer(schema: Any, name: str) -> str | None:
    """The pointer (without ``#/``) of the declaration ``<schema>:name`` names: ``name`` as
    a pointer into the document, else ``definitions/<name>``, else a declaration of that
    name in a namespace under ``definitions`` (first in document order); ``None``: none.
    """
    from .._shared.pointers import node_at, pointer_tokens

    if not isinstance(schema, dict):
        return None
    for candidate in (name.lstrip("/"), f"definitions/{name}"):
        if isinstance(node_at(schema, pointer_tokens(candidate)), dict) and candidate:
            if "type" in node_at(schema, pointer_tokens(candidate)):
                return candidate
    stack: list[tuple[str, Any]] = [("definitions", schema.get("definitions"))]
    while stack:
        path, node = stack.pop(0)
        if not isinstance(node, dict) or "type" in node:
            continue
        for key, child in node.items():
            child_path = f"{path}/{key.replace('~', '~0').replace('/', '~1')}"
            if key == name and isinstance(child, dict) and "type" in child:
                return child_path
            stack.append((child_path, child))
    return None


def root_name(schema: Any) -> str | None:
    """The name of a document's root type: its ``name``, else the last token of ``$root``."""
    if not isinstance(schema, dict):
        return None
    ref = schema.get("$root")
    if isinstance(ref, str):
        found = node_name(schema, ref)
        if found:
            return found
    name = schema.get("name")
    return name if isinstance(name, str) and name.strip() else None


def node_name(schema: dict[str, Any], ref: str) -> str | None:
    """The ``name`` of the declaration at ``ref``, else its key."""
    from .._shared.pointers import node_at, pointer_tokens
    from .document import last_token

    node = node_at(schema, pointer_tokens(ref[2:]) if ref.startswith("#/") else ())
    if (
        isinstance(node, dict)
        and isinstance(node.get("name"), str)
        and node["name"].strip()
    ):
        return str(node["name"])
    return last_token(ref) or None


def rooted(schema: Any, pointer: str) -> Any:
    """The document ``schema`` with ``pointer`` (a JSON pointer into it, without ``#``) as
    its root type (``$root``): a deep link into a JSON Structure document keeps the document,
    so that the ``$ref``s inside the linked type resolve. ``None``: nothing there."""
    from .._shared.pointers import node_at, pointer_tokens

    if not isinstance(schema, dict):
        return None
    node = node_at(schema, pointer_tokens(pointer.strip("/")))
    if not isinstance(node, dict) or "type" not in node:
        return None
    return {**schema, "$root": "#/" + pointer.strip("/")}


def json_text(text: str) -> bool:
    """A JSON Structure document embedded as a string is JSON text."""
    return True


def deep_link(document: Any, pointer: str) -> Selected:
    """A deep link keeps the document, with the linked type as its root (``rooted``)."""
    body = rooted(document, pointer)
    if body is None:
        return Selected(None, problem=f"the schema has no type at '#/{pointer}'")
    return Selected(body)


def select_type(schema: Any, name: str, linked: bool) -> Selected:
    """The declaration ``<schema>:name`` names as the root (``type_pointer``); the root type,
    with a warning, when there is none and the root's ``name`` is not ``name``. A deep link
    (``linked``) is the type already."""
    if linked:
        return Selected(schema)
    member = type_pointer(schema, name)
    if member is not None:
        return Selected(rooted(schema, member))
    if isinstance(schema, dict) and schema.get("name") == name:
        return Selected(schema)
    return Selected(schema, problem=f"no type {name!r} in the JSON Structure; the root type is used")
