"""Checks of an embedded JSON Schema: meta-validation against its draft (XRG150), and the
local ``$ref``s that name nothing in the document (XRG157), in the document's own pointers."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from jsonschema import validators as js_validators

from ..diagnostics import Diagnostics, pointer
from ..suggest import closest
from .jsonschema import Data
from .jsonschema_fragment import dangling_refs, node_at, pointer_tokens

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
    if '"$ref"' in key:
        check_refs(schema, file, ptr, diags)
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


def check_refs(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """A warning (XRG157) at each local ``$ref`` whose target the document does not have,
    quoting the reference as written and the closest member of the container it names; the
    generated model types the value ``Any``."""
    for path, ref in dangling_refs(schema):
        written, _, fragment = ref.partition("#")
        target = pointer_tokens(fragment[1:])
        parent = node_at(schema, target[:-1]) if target else None
        near = closest(target[-1], parent, cutoff=0.6) if isinstance(parent, dict) else None
        hint = (
            f" (did you mean {written + '#' + pointer(*target[:-1], near)!r}?)"
            if near is not None
            else ""
        )
        diags.warning(
            "XRG157",
            file,
            ptr + pointer(*path, "$ref"),
            f"$ref {ref!r} names nothing in this schema{hint}; the value is typed Any",
        )
