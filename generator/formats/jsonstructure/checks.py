"""Checks of an embedded JSON Structure schema: the ``json-structure`` package's schema
validator (JSON Structure Core and its extensions), errors as XRG159."""

from __future__ import annotations

import json
import re
from typing import Any

from ...diagnostics import Diagnostics
from .document import validation_enabled

#: an embedded JSON Structure schema is invalid
XRG_STRUCTURE_INVALID = "XRG159"
#: canonical JSON of schemas known to pass
_VALID: set[str] = set()
#: the validator's codes for what JSON Structure Core allows: a document of ``definitions``
#: only (no root type: its types are reached by deep links, xRegistry 4.3.5)
_ALLOWED = frozenset({"SCHEMA_ROOT_MISSING_TYPE"})
_INDEX = re.compile(r"\[(\d+)\]")


def _for_validator(node: Any) -> Any:
    """A copy of ``node`` in the form the validator reads: ``required`` as alternative sets
    (core 3.7.3), which it does not know, becomes the list of their members."""
    if isinstance(node, list):
        return [_for_validator(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _for_validator(v) for k, v in node.items()}
    req = out.get("required")
    if isinstance(req, list) and req and all(isinstance(r, list) for r in req):
        out["required"] = list(dict.fromkeys(m for r in req for m in r))
    return out


def check_structure(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """Validate an embedded JSON Structure document with ``json_structure.SchemaValidator``
    (results cached by the document's canonical JSON)."""
    if not isinstance(schema, dict):
        diags.error(
            "XRG154", file, ptr, "a JSON Structure schema must be a JSON object"
        )
        return
    key = json.dumps(schema, sort_keys=True, separators=(",", ":"), default=str)
    if key in _VALID:
        return
    from json_structure import SchemaValidator  # type: ignore[import-untyped]

    try:
        validator = SchemaValidator(extended=validation_enabled(schema))
        errors = validator.validate(_for_validator(schema))
    except RecursionError:
        diags.error(
            XRG_STRUCTURE_INVALID,
            file,
            ptr,
            "invalid JSON Structure: nested too deeply",
        )
        return
    except Exception as exc:  # the validator failing on input it did not foresee
        text = f"{type(exc).__name__}: {exc}"[:200]
        diags.error(
            XRG_STRUCTURE_INVALID, file, ptr, f"JSON Structure not checkable ({text})"
        )
        return
    if not errors:
        if len(_VALID) < 4096:
            _VALID.add(key)
        return
    errors = [e for e in errors if getattr(e, "code", "") not in _ALLOWED]
    if not errors and len(_VALID) < 4096:
        _VALID.add(key)
    seen: set[tuple[str, str]] = set()
    for err in errors:
        path = _INDEX.sub(r"/\1", str(getattr(err, "path", "") or ""))
        where = path[1:] if path.startswith("#") else ""
        message = str(getattr(err, "message", err))
        if (where, message) in seen:
            continue
        seen.add((where, message))
        code = getattr(err, "code", "")
        diags.error(
            XRG_STRUCTURE_INVALID,
            file,
            ptr + where,
            (
                f"invalid JSON Structure ({code}): {message}"
                if code
                else f"invalid JSON Structure: {message}"
            ),
        )
