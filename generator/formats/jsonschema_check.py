"""Checks of an embedded JSON Schema: meta-validation against its draft (XRG154)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from jsonschema import validators as js_validators

from ..diagnostics import Diagnostics, pointer
from .jsonschema import Data

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
