"""The payload-format seam: one module per schema format, and this table.

Each module or package (``jsonschema``, ``avro``, ``protobuf``, ``xsd``, ``jsonstructure``)
owns, for its format:

- ``NAME`` (the family id stored in ``ir.Payload.format``), ``SPELLINGS`` (format names as
  catalogs write them, lower case, before ``/version``), ``TITLE`` (for messages);
- ``CONTENT_TYPE``: the ``datacontenttype`` inferred when the catalog declares none (xRegistry:
  "inferred from the schema format"), and ``accepts(content_type)``: whether a declared content
  type puts the payload on the wire in this format;
- ``guess(schema)``: whether an unlabelled schema looks like this format;
- ``check(schema, version, file, ptr, diags)``: checks of an embedded schema;
- ``render_models(payloads, imports, scope, diags)``: the pydantic source of its payloads;
- ``spark_type(schema)``: the Spark type of its payloads.

The runtime side is one codec per wire format in ``xrgen_runtime.formats``, selected by content
type. Adding a format means a module here (listed in ``FORMATS``) and a codec there.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import avro, jsonschema, jsonstructure, protobuf, xsd

#: family id -> module, in the order unlabelled schemas are guessed (JSON Schema last: the
#: fallback)
FORMATS: dict[str, ModuleType] = {
    m.NAME: m for m in (avro, protobuf, xsd, jsonstructure, jsonschema)
}
_BY_SPELLING = {s: m.NAME for m in FORMATS.values() for s in m.SPELLINGS}


def family(spelled_name: str) -> str | None:
    """The family id of a format name as spelled (lower case, no version), or ``None``."""
    return _BY_SPELLING.get(spelled_name.replace(" ", ""))


def guess(schema: Any) -> str:
    """The family of an unlabelled schema (JSON Schema when nothing else fits)."""
    for name, module in FORMATS.items():
        if module.guess(schema):
            return name
    return jsonschema.NAME


def module(name: str | None) -> ModuleType | None:
    """The module of family ``name``, or ``None``."""
    return FORMATS.get(name) if name else None


def content_type(name: str) -> str | None:
    """The content type inferred for payloads of family ``name`` when none is declared."""
    m = FORMATS.get(name)
    return str(m.CONTENT_TYPE) if m is not None else None


def wire_format(name: str, content_type: str | None) -> str | None:
    """The format a payload described in family ``name`` travels in for ``content_type``:
    ``"json"`` for JSON content types (any schema format can be written as JSON through its
    pydantic model), ``name`` when the content type is the schema format's own, else ``None``
    (the payload stays bytes)."""
    if jsonschema.accepts(content_type):
        return jsonschema.NAME
    m = FORMATS.get(name)
    if m is not None and m.accepts(content_type):
        return name
    return None
