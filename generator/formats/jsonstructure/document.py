"""Navigation in a JSON Structure schema document: the root type, ``$ref`` and ``$extends``
pointers, namespaces under ``definitions``, the type keyword's forms (pure, no output).
"""

from __future__ import annotations

from typing import Any

from .._shared.pointers import node_at, pointer_tokens

#: primitive type names of JSON Structure core (draft-02 to draft-04)
PRIMITIVES = frozenset(
    {
        "string", "number", "integer", "boolean", "null",
        "int8", "uint8", "int16", "uint16", "int32", "uint32",
        "int64", "uint64", "int128", "uint128",
        "float8", "float", "double", "decimal",
        "date", "datetime", "time", "duration", "uuid", "uri", "binary", "jsonpointer",
    }
)  # fmt: skip
#: compound type names
COMPOUNDS = frozenset({"object", "array", "set", "map", "tuple", "choice", "any"})
#: keywords of a root document that are not part of its root type's declaration
DOCUMENT_KEYWORDS = frozenset(
    {"$schema", "$id", "$root", "definitions", "$offers", "$uses"}
)
#: ``$schema`` / ``$uses`` values that switch the Validation extension on (its keywords are
#: enforced: ``minimum``, ``maxLength``, ``pattern``, ...)
_VALIDATION_METAS = ("/meta/extended/", "/meta/validation/")
_VALIDATION_USES = frozenset({"JSONStructureValidation"})


class StructureError(ValueError):
    """A JSON Structure construct that cannot be mapped."""


def validation_enabled(document: Any) -> bool:
    """Whether ``document`` enables the Validation extension (``$schema`` of the extended or
    validation meta-schema, or ``$uses`` naming it)."""
    if not isinstance(document, dict):
        return False
    meta = document.get("$schema")
    uses = document.get("$uses")
    return (isinstance(meta, str) and any(m in meta for m in _VALIDATION_METAS)) or (
        isinstance(uses, list) and bool(_VALIDATION_USES.intersection(map(str, uses)))
    )


def resolve(document: Any, ref: Any) -> tuple[str, dict[str, Any]]:
    """``(pointer, declaration)`` of a ``#/definitions/...`` pointer in ``document``."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise StructureError(f"reference {str(ref)[:80]!r} is not a local JSON pointer")
    node = node_at(document, pointer_tokens(ref[2:]) if ref != "#" else ())
    if not isinstance(node, dict) or "type" not in node:
        raise StructureError(f"reference {ref[:80]!r} names no type declaration")
    return ref, node


def root(document: Any) -> tuple[str, dict[str, Any]]:
    """``(pointer, declaration)`` of the document's root type: ``$root``, else the document
    itself when it declares a ``type``."""
    if not isinstance(document, dict):
        raise StructureError("a JSON Structure document is a JSON object")
    if "$root" in document:
        return resolve(document, document["$root"])
    if "type" not in document:
        raise StructureError("the document declares no root type ('type' or '$root')")
    return "#", document


def ref_of(type_value: Any) -> str | None:
    """The pointer of a ``{"$ref": ...}`` type value, else ``None``."""
    if isinstance(type_value, dict):
        ref = type_value.get("$ref")
        return ref if isinstance(ref, str) else None
    return None


def extends(node: dict[str, Any]) -> list[str]:
    """The ``$extends`` pointers of a declaration, in order."""
    value = node.get("$extends")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def required_sets(node: dict[str, Any]) -> tuple[set[str], list[list[str]]]:
    """(members required in every case, the alternative sets when ``required`` lists sets)."""
    req = node.get("required")
    if not isinstance(req, list):
        return set(), []
    if req and all(isinstance(r, list) for r in req):
        sets = [[x for x in r if isinstance(x, str)] for r in req]
        always = set(sets[0]).intersection(*sets[1:]) if sets else set()
        return always, sets
    return {r for r in req if isinstance(r, str)}, []


def properties(node: dict[str, Any]) -> dict[str, Any]:
    props = node.get("properties")
    return props if isinstance(props, dict) else {}


def last_token(pointer: str) -> str:
    tokens = pointer_tokens(pointer[2:]) if pointer.startswith("#/") else ()
    return tokens[-1] if tokens else ""


def tuple_members(node: dict[str, Any], ptr: str) -> tuple[list[str], dict[str, Any]]:
    """(the element names in order, the properties) of a ``tuple`` declaration."""
    order = node.get("tuple")
    props = properties(node)
    if not isinstance(order, list) or not order or any(o not in props for o in order):
        raise StructureError(f"{ptr}: a tuple lists its properties in 'tuple'")
    return [str(o) for o in order], props
