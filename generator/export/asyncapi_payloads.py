"""Payload schemas of an AsyncAPI export: one ``components.schemas`` entry per distinct catalog
schema, referenced by every message that uses it.

- JSON Schema: inline, as an AsyncAPI Schema Object. Its document-local ``$ref``s
  (``#/definitions/X``, ``#``, or the schema's own ``$id`` followed by a fragment) are rebased
  onto the component (``#/components/schemas/Name/definitions/X``): in an AsyncAPI document a
  ``$ref`` is resolved against the document. Draft-04 boolean ``exclusiveMinimum`` /
  ``exclusiveMaximum`` become their draft-06+ numeric form (the AsyncAPI Schema Object is
  draft-07 based). Anything else is kept as written.
- Avro: a Multi Format Schema Object, ``application/vnd.apache.avro;version=1.9.0``.
- Protobuf: ``application/vnd.google.protobuf;version=2|3`` with the ``.proto`` text; a text
  with more than one message gets a ``// @RootNode`` comment before its first top-level
  message (xrgen's payload message), which the AsyncAPI Protobuf parser reads to pick it.
- XML Schema: ``application/xml`` with the XSD text (AsyncAPI has no XSD format name).
- JSON Structure: the catalog's format name as ``schemaFormat`` and the schema with its
  document pointers (``$ref``, ``$extends``, ``$root``, wherever they stand) rebased onto the
  component, as AsyncAPI resolves references against the whole document: opaque to AsyncAPI
  tools otherwise.
- any other format: the catalog's format name as ``schemaFormat`` and the schema as written
  (JSON refs rebased as for JSON Schema): opaque to AsyncAPI tools.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import formats
from ..build import schema_key
from ..diagnostics import pointer_escape
from ..formats.spelling import schema_format_family
from ..model.resolved import ResolvedSchema
from ..naming import Scope, last_segment, pascal

AVRO_FORMAT = "application/vnd.apache.avro;version=1.9.0"
PROTOBUF_FORMAT = "application/vnd.google.protobuf;version={}"
XSD_FORMAT = "application/xml"

#: keywords whose value is a schema, a list of schemas, or a map of name -> schema
_SCHEMA = frozenset(
    {
        "additionalProperties", "additionalItems", "not", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedProperties", "unevaluatedItems", "contentSchema", "items",
    }
)  # fmt: skip
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "definitions",
        "$defs",
        "dependentSchemas",
        "dependencies",
    }
)


def rebase(schema: Any, base: str, root_id: str | None = None) -> Any:
    """A copy of JSON Schema ``schema`` placed at JSON pointer ``base`` of a bigger document:
    local ``$ref``s point into the copy (see the module docstring). Iterative: nesting depth
    costs no stack. Only schema positions are rewritten; ``const``, ``enum``, ``default``,
    ``examples`` and unknown keywords are data and are copied as they are."""
    out: list[Any] = [None]
    # (source, container to write into, key in it, what the source is)
    work: list[tuple[Any, Any, Any, str]] = [(schema, out, 0, _SCHEMA_POS)]
    while work:
        src, dst, key, what = work.pop()
        if isinstance(src, dict):
            copy: dict[str, Any] = {}
            dst[key] = copy
            for k, v in src.items():
                if what == _MAP:
                    copy[k] = None
                    work.append((v, copy, k, _SCHEMA_POS))
                elif what == _DATA:
                    copy[k] = None
                    work.append((v, copy, k, _DATA))
                elif k == "$ref" and isinstance(v, str):
                    copy[k] = _ref(v, base, root_id)
                elif k in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(
                    v, bool
                ):
                    bound = src.get("minimum" if k == "exclusiveMinimum" else "maximum")
                    if (
                        v
                        and isinstance(bound, int | float)
                        and not isinstance(bound, bool)
                    ):
                        copy[k] = bound
                elif (
                    k in ("minimum", "maximum")
                    and src.get("exclusive" + k.title()) is True
                ):
                    continue  # became the exclusive bound
                else:
                    copy[k] = None
                    work.append((v, copy, k, _kind(k, v)))
        elif isinstance(src, list):
            items: list[Any] = [None] * len(src)
            dst[key] = items
            inner = _DATA if what == _DATA else _SCHEMA_POS
            work.extend((v, items, i, inner) for i, v in enumerate(src))
        else:
            dst[key] = src
    return out[0]


_SCHEMA_POS, _MAP, _DATA = "schema", "map", "data"


def _kind(keyword: str, value: Any) -> str:
    """What the value of ``keyword`` in a schema is: a schema (or a list of schemas), a map of
    name -> schema, or data (``const``, ``enum``, ``default``, unknown keywords)."""
    if keyword in _SCHEMA or keyword in _SCHEMA_LISTS:
        return _SCHEMA_POS
    if keyword in _SCHEMA_MAPS and isinstance(value, dict):
        return _MAP
    return _DATA


def _ref(ref: str, base: str, root_id: str | None) -> str:
    if root_id and ref.startswith(root_id + "#"):
        ref = ref[len(root_id) :]
    elif root_id and ref == root_id:
        ref = "#"
    if ref == "#" or ref.startswith("#/"):
        return "#" + base + ref[1:]
    return ref


#: JSON Structure keywords whose string value is a JSON pointer into the schema document
_STRUCTURE_POINTERS = frozenset({"$ref", "$extends", "$root"})


def _rebase_pointers(schema: Any, base: str) -> Any:
    """A copy of JSON Structure document ``schema`` placed at ``base``: the document-local
    pointers of :data:`_STRUCTURE_POINTERS` (a string, or a list of them for ``$extends``)
    point into the copy. Iterative, like :func:`rebase`."""
    out: list[Any] = [None]
    work: list[tuple[Any, Any, Any]] = [(schema, out, 0)]
    while work:
        src, dst, key = work.pop()
        if isinstance(src, dict):
            copy: dict[str, Any] = {}
            dst[key] = copy
            for k, v in src.items():
                if k in _STRUCTURE_POINTERS and isinstance(v, str):
                    copy[k] = _ref(v, base, None)
                elif k in _STRUCTURE_POINTERS and isinstance(v, list):
                    copy[k] = [
                        _ref(x, base, None) if isinstance(x, str) else x for x in v
                    ]
                else:
                    copy[k] = None
                    work.append((v, copy, k))
        elif isinstance(src, list):
            items: list[Any] = [None] * len(src)
            dst[key] = items
            work.extend((v, items, i) for i, v in enumerate(src))
        else:
            dst[key] = src
    return out[0]


class Payloads:
    """The ``components.schemas`` of the export: one entry per distinct catalog schema."""

    def __init__(self, model_names: dict[str, str]) -> None:
        #: IR payload key -> its model name (the component's name when the IR has the schema)
        self._model_names = model_names
        self.schemas: dict[str, Any] = {}
        self._names = Scope()
        self._by_object: dict[int, str] = {}
        self._by_key: dict[str, str] = {}

    def ref(self, schema: ResolvedSchema, message_id: str) -> str:
        """The ``$ref`` of the component holding ``schema`` (made on first use)."""
        name = self._by_object.get(id(schema.schema))
        if name is None:
            key = schema_key(schema)
            name = self._by_key.get(key)
            if name is None:
                stem = self._model_names.get(key) or _stem(schema.schema, message_id)
                name, _ = self._names.claim(component_name(stem))
                self.schemas[name] = _component(
                    schema, "/components/schemas/" + pointer_escape(name)
                )
                self._by_key[key] = name
            self._by_object[id(schema.schema)] = name
        return "#/components/schemas/" + name


def _stem(schema: Any, message_id: str) -> str:
    if isinstance(schema, dict):
        for key in ("title", "name"):
            if isinstance(schema.get(key), str) and schema[key].strip():
                return pascal(schema[key])
    return pascal(last_segment(message_id)) + "Data"


_COMPONENT = re.compile(r"[^A-Za-z0-9._-]+")


def component_name(text: str) -> str:
    """``text`` as an AsyncAPI component key (``^[\\w\\d.\\-_]+$``, ASCII)."""
    return _COMPONENT.sub("_", text).strip("_") or "x"


def _component(schema: ResolvedSchema, base: str) -> Any:
    family, body = schema.family, schema.schema
    if (
        schema.format
        and schema.format.strip()
        and schema_format_family(schema.format) is None
    ):
        family = (
            "other"  # a format xrgen does not know, read as JSON: opaque, as written
        )
    convert = _CONVERSIONS.get(family)
    return (convert or _as_written)(schema, family, body, base)


def _json_schema(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    if not isinstance(body, dict | bool):
        return _opaque(schema, f"it is not a {family} schema document")
    root_id = body.get("$id") if isinstance(body, dict) else None
    return rebase(body, base, root_id if isinstance(root_id, str) else None)


def _avro(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    return {"schemaFormat": AVRO_FORMAT, "schema": body}


def _protobuf(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    if not isinstance(body, str):
        return _opaque(schema, f"it is not a {family} schema document")
    broken = _proto_error(body)
    if broken is not None:
        return _opaque(schema, f"its .proto text does not compile ({broken})")
    version = "2" if re.search(r"\bsyntax\s*=\s*[\"']proto2[\"']", body) else "3"
    return {"schemaFormat": PROTOBUF_FORMAT.format(version), "schema": root_annotated(body)}


def _xsd(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    return {"schemaFormat": XSD_FORMAT, "schema": body}


def _structure(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    if not isinstance(body, dict):
        return _as_written(schema, family, body, base)
    return {"schemaFormat": schema.format, "schema": _rebase_pointers(body, base + "/schema")}


def _as_written(schema: ResolvedSchema, family: str, body: Any, base: str) -> Any:
    if isinstance(body, dict | list):
        body = rebase(body, base + "/schema")
    return {"schemaFormat": schema.format or family, "schema": body}


#: format family -> its component (a format xrgen does not know: ``_as_written``)
_CONVERSIONS: dict[str, Callable[[ResolvedSchema, str, Any, str], Any]] = {
    formats.jsonschema.NAME: _json_schema,
    formats.avro.NAME: _avro,
    formats.protobuf.NAME: _protobuf,
    formats.xsd.NAME: _xsd,
    formats.jsonstructure.NAME: _structure,
}


def _opaque(schema: ResolvedSchema, why: str) -> dict[str, Any]:
    """The payload of a schema xrgen cannot use (the generator keeps such data as bytes): bytes,
    with the schema as written beside them."""
    return {
        "type": "string",
        "format": "binary",
        "description": f"{schema.format or schema.family} payload schema kept as written: {why};"
        " the payload is opaque bytes",
        "x-xregistry-schema": schema.schema,
    }


def _proto_error(text: str) -> str | None:
    """protoc's complaint about ``text`` (None when it compiles or protoc is not installed:
    the text is exported for AsyncAPI's Protobuf parser to read)."""
    from ..formats import protobuf

    compiled = protobuf.compile_proto(text)
    if compiled.error and compiled.error != protobuf.MISSING_PROTOC:
        return compiled.error
    return None


_PROTO_TOKENS = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|[{}]"
    r"|\b(message)\s+[A-Za-z_][A-Za-z0-9_]*",
    re.DOTALL,
)


def root_annotated(text: str) -> str:
    """``text`` with ``// @RootNode`` before its first top-level ``message`` when it declares
    more than one message (nested ones count: the AsyncAPI parser weighs them too)."""
    depth, first, count = 0, -1, 0
    for m in _PROTO_TOKENS.finditer(text):
        token = m.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(depth - 1, 0)
        elif m.group(1):
            count += 1
            if depth == 0 and first < 0:
                first = m.start()
    if count < 2 or first < 0:
        return text
    return text[:first] + "// @RootNode\n" + text[first:]
