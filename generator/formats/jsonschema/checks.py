"""Checks of an embedded JSON Schema: meta-validation against its draft (XRG150), and the
local ``$ref``s that name nothing in the document (XRG157), in the document's own pointers."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from jsonschema import validators as js_validators

from ...diagnostics import Diagnostics, pointer
from ...suggest import closest
from .._shared.fragment import dangling_refs
from .._shared.pointers import node_at, pointer_tokens

_DRAFT_URIS = {
    "draft-04": "http://json-schema.org/draft-04/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
#: a string-valued annotation member in compact JSON (keys are the only strings before ':')
_ANNOTATION_RE = re.compile(r'"(?:title|description|\$comment)":"(?:[^"\\]|\\.)*"')
#: annotation-free canonical JSON of schemas known to pass their meta-schema
_VALID_SCHEMA_KEYS: set[str] = set()
_META_VALIDATORS: dict[type, Any] = {}

Data = dict[str, Any]


def _schema_key(schema: Data) -> str:
    """Canonical JSON with string annotations blanked: their meta-schema rule is only 'a
    string', so schemas differing only in titles/descriptions share one meta-validation."""
    text = json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return _ANNOTATION_RE.sub('"":""', text)


@lru_cache(maxsize=256)
def _validator_class(dollar_schema: str | None, draft: str | None) -> Any:
    """The jsonschema validator class for a ``$schema`` value, else the format's draft."""
    default = js_validators.validator_for(
        {"$schema": _DRAFT_URIS.get(draft or "", _DRAFT_URIS["draft-07"])}
    )
    if dollar_schema is None:
        return default
    return js_validators.validator_for({"$schema": dollar_schema}, default=default)


def check_json_schema(
    schema: Any, draft: str | None, file: str, ptr: str, diags: Diagnostics
) -> None:
    """Meta-validate an embedded JSON Schema (its ``$schema``, else ``draft``, else draft-07).
    Results are cached by the schema's annotation-free canonical JSON."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        diags.error("XRG154", file, ptr, "a JSON Schema must be an object or a boolean")
        return
    dollar = schema.get("$schema")
    cls = _validator_class(dollar if isinstance(dollar, str) else None, draft)
    key = cls.__name__ + _schema_key(schema)
    _check_names(schema, key, file, ptr, diags)
    if key in _VALID_SCHEMA_KEYS:
        return
    meta = _META_VALIDATORS.get(cls)
    if meta is None:
        meta = _META_VALIDATORS[cls] = cls(cls.META_SCHEMA)
    errors = sorted(meta.iter_errors(schema), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        _VALID_SCHEMA_KEYS.add(key)
        return
    name = cls.__name__.removesuffix("Validator")
    for err in errors:
        diags.error(
            "XRG150",
            file,
            ptr + pointer(*err.absolute_path),
            f"invalid JSON Schema ({name}): {err.message}",
        )


#: schema key -> the warnings of ``check_refs`` and ``check_keywords`` (pointers relative to
#: the schema): schemas with the same key have the same findings; bounded
_FINDINGS: dict[str, list[tuple[str, str, str]]] = {}
_FINDINGS_KEPT = 4096


def _check_names(schema: Data, key: str, file: str, ptr: str, diags: Diagnostics) -> None:
    """``check_refs`` (when the schema has a ``$ref``) and ``check_keywords``, once per key."""
    found = _FINDINGS.get(key)
    if found is None:
        local = Diagnostics()
        if '"$ref"' in key:
            check_refs(schema, "", "", local)
        check_keywords(schema, "", "", local)
        found = [(d.code, d.pointer, d.message) for d in local]
        if len(_FINDINGS) >= _FINDINGS_KEPT:
            _FINDINGS.clear()
        _FINDINGS[key] = found
    for code, where, message in found:
        diags.warning(code, file, ptr + where, message)


def check_refs(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """A warning (XRG157) at each local ``$ref`` whose target the document does not have,
    quoting the reference as written and the closest member of the container it names; the
    generated model types the value ``Any``."""
    for i, (path, ref) in enumerate(dangling_refs(schema)):
        written, _, fragment = ref.partition("#")
        # a suggestion for the first ones (a document may hold any number of them)
        near = _nearest_member(schema, pointer_tokens(fragment[1:])) if i < 100 else None
        hint = f" (did you mean {written + '#' + pointer(*near)!r}?)" if near else ""
        diags.warning(
            "XRG157",
            file,
            ptr + pointer(*path, "$ref"),
            f"$ref {ref!r} names nothing in this schema{hint}; the value is typed Any",
        )


def _nearest_member(schema: dict[str, Any], target: tuple[str, ...]) -> tuple[str, ...] | None:
    """What a dangling ``$ref`` most likely meant: the closest member of the container it names
    (``definitions/Customr`` -> ``definitions/Customer``), else a member of that name in another
    container of the root (``definitions/STATE`` -> ``messages/STATE``)."""
    if not target:
        return None
    parent = node_at(schema, target[:-1])
    near = (
        closest(target[-1], parent, cutoff=0.6)
        if isinstance(parent, dict) and len(parent) <= 1000
        else None
    )
    if near is not None:
        return (*target[:-1], near)
    for name, container in schema.items():
        if isinstance(container, dict) and target[-1] in container and (name,) != target[:-1]:
            return (name, target[-1])
    return None


#: JSON Schema keywords that change what validates or what the model is (drafts 4 to 2020-12):
#: a name close to one of them is a misspelling that silently drops a constraint (annotations
#: such as ``example`` are left alone: unknown keywords are allowed and have no effect)
_APPLIED = frozenset(
    {
        "$ref", "$defs", "definitions", "type", "enum", "const", "multipleOf", "maximum",
        "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
        "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
        "minProperties", "required", "dependentRequired", "properties", "patternProperties",
        "additionalProperties", "propertyNames", "items", "prefixItems", "additionalItems",
        "contains", "unevaluatedItems", "unevaluatedProperties", "allOf", "anyOf", "oneOf",
        "not", "if", "then", "else", "dependentSchemas", "dependencies", "format",
    }
)  # fmt: skip
_KEYWORDS = _APPLIED | {
    "$schema", "$id", "id", "$comment", "$anchor", "$dynamicRef", "$dynamicAnchor",
    "$recursiveRef", "$recursiveAnchor", "$vocabulary", "title", "description", "default",
    "examples", "readOnly", "writeOnly", "deprecated", "contentEncoding", "contentMediaType",
    "contentSchema",
}  # fmt: skip
#: distinct non-keyword names compared with the keywords per schema document (bounded time)
_SEARCHES = 10_000
_SUBSCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "definitions", "$defs", "dependentSchemas"}
)
_SUBSCHEMA_ONE = frozenset(
    {"additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
     "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema", "items"}
)  # fmt: skip
_SUBSCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})


def check_keywords(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """A warning (XRG158) at each key of a (sub)schema that is no keyword but close to one
    that validates (``requried``, ``additionalproperties``): the constraint is not applied."""
    todo: list[tuple[tuple[str, ...], Any]] = [((), schema)]
    nearest: dict[str, str | None] = {}  # each distinct name compared once, _SEARCHES at most
    while todo:
        path, node = todo.pop()
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if not isinstance(key, str):
                continue
            if key not in _KEYWORDS:
                if key not in nearest and len(nearest) < _SEARCHES:
                    nearest[key] = closest(key, _APPLIED)
                near = nearest.get(key)
                if near is not None:
                    diags.warning(
                        "XRG158",
                        file,
                        ptr + pointer(*path, key),
                        f"'{key}' is no JSON Schema keyword (did you mean '{near}'?); it is not"
                        " applied",
                    )
                continue
            if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                todo.extend(((*path, key, name), sub) for name, sub in value.items())
            elif key in _SUBSCHEMA_LIST and isinstance(value, list):
                todo.extend(((*path, key, str(i)), sub) for i, sub in enumerate(value))
            elif key in _SUBSCHEMA_ONE:
                todo.append(((*path, key), value))
