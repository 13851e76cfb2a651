"""JSON Schema payloads -> Spark types (Spark SQL JSON form, see ``spark_types``), rules:

Spark types (Spark SQL JSON form, see ``spark_types``), rules:

- ``object`` with ``properties`` -> ``struct`` (declaration order; ``nullable`` = not in
  ``required`` or the property type admits ``null``); other keywords next to ``properties``
  (``additionalProperties``, ``patternProperties``) are ignored.
- ``object`` without ``properties`` -> ``map<string, T>`` with ``T`` from
  ``additionalProperties`` (a schema) or ``string`` (raw JSON text of each value).
- ``array`` -> ``array<T>`` from ``items``; tuple forms (``items`` list, ``prefixItems``) and
  missing ``items`` -> ``array<string>``. Elements are always ``containsNull``.
- ``integer`` -> ``long``; ``number`` -> ``double``; ``boolean``; ``string`` -> ``string``
  except ``format: date-time`` -> ``timestamp``, ``format: date`` -> ``date``,
  ``contentEncoding: base64`` (or ``format: byte``) -> ``binary``.
- Decimals: ``format: "decimal"`` on a ``string`` or ``number`` -> ``decimal(p,s)`` with
  ``p``/``s`` from ``precision``/``scale`` (or ``x-precision``/``x-scale``), default
  ``decimal(38,18)``.
- ``enum`` / ``const`` -> ``string`` (``long`` / ``double`` / ``boolean`` when every value has
  that JSON type).
- ``type: [X, "null"]``, ``nullable: true`` and ``oneOf``/``anyOf`` members ``{"type": "null"}``
  make a field nullable; a list of several non-null types -> ``double`` for
  ``integer``+``number``, otherwise ``string``.
- ``$ref`` into the same document (``#``, ``#/definitions/..``, ``#/$defs/..``, any JSON
  pointer) is inlined. A ``$ref`` met again while it is being expanded (recursion), or one that
  cannot be resolved (external URIs), becomes ``string``: Spark's JSON reader stores the raw
  JSON text of whatever value is found there.
- ``allOf`` -> the merge of its members and the schema's own keywords (object properties in
  order of appearance; ``required`` is the union; conflicting types -> ``string``).
- ``oneOf`` / ``anyOf`` whose members are all objects -> one struct with the fields of every
  member, all nullable; members of one primitive type -> that type; anything else -> ``string``.
- Anything else (``{}``, ``true``, ``not``, ``if/then/else`` alone) -> ``string``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shared.pointers import node_at, pointer_tokens
from .._shared.spark import STRING, SparkType, array, field, is_struct, map_of, struct

_JSON_PRIMITIVES = {
    "integer": "long",
    "number": "double",
    "boolean": "boolean",
    "string": STRING,
}


class JsonMapper:
    """Maps one JSON Schema document; ``$ref`` targets resolve against its root."""

    def __init__(self, root: Any) -> None:
        self.root = root
        #: the ``$ref``s being mapped; the root is ``#`` (a ``{"$ref": "#"}`` inside it recurses)
        self.expanding: list[str] = ["#"]
        #: a recursive reference was met (and typed ``string``)
        self.recursive = False

    def map(self, schema: Any) -> tuple[SparkType, bool]:
        """(Spark type, whether ``null`` is allowed)."""
        if not isinstance(schema, Mapping):
            return STRING, True
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._map_ref(ref)
        nullable = bool(schema.get("nullable", False))
        if "allOf" in schema and isinstance(schema["allOf"], list):
            merged = self._merge_all(schema)
            return self.map(merged)[0], nullable
        for key in ("oneOf", "anyOf"):
            members = schema.get(key)
            if isinstance(members, list) and members:
                dtype, null = self._map_alternatives(members, schema)
                return dtype, nullable or null
        types = schema.get("type")
        if isinstance(types, list):
            non_null = [t for t in types if t != "null"]
            nullable = nullable or len(non_null) < len(types)
            if len(non_null) == 1:
                return self._map_typed(non_null[0], schema), nullable
            if set(non_null) == {"integer", "number"}:
                return "double", nullable
            return STRING, nullable
        if types == "null":
            return STRING, True
        if isinstance(types, str):
            return self._map_typed(types, schema), nullable
        return self._map_untyped(schema), nullable

    def _map_ref(self, ref: str) -> tuple[SparkType, bool]:
        target = self._resolve(ref)
        if target is not None and ref in self.expanding:
            self.recursive = True
        if target is None or ref in self.expanding:
            return STRING, True
        self.expanding.append(ref)
        try:
            return self.map(target)
        finally:
            self.expanding.pop()

    def _resolve(self, ref: str) -> Any:
        if ref != "#" and not ref.startswith("#/"):
            return None
        return node_at(self.root, pointer_tokens(ref[2:]))

    def _deref(self, schema: Any) -> Any:
        """``schema`` with top-level ``$ref``s followed (recursion stops at the first repeat)."""
        seen: set[str] = set()
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if ref in seen or ref in self.expanding:
                self.recursive = True
                return {}
            seen.add(ref)
            target = self._resolve(ref)
            if target is None:
                return {}
            schema = target
        return schema

    def _merge_all(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """One schema equivalent (for typing) to ``schema`` with its ``allOf`` merged in."""
        own = {k: v for k, v in schema.items() if k != "allOf"}
        merged: dict[str, Any] = {}
        for part in [*schema["allOf"], own]:
            part = self._deref(part)
            if not isinstance(part, Mapping):
                continue
            if "allOf" in part:
                part = self._merge_all(part)
            for key, value in part.items():
                if key == "properties" and isinstance(value, Mapping):
                    merged.setdefault("properties", {}).update(value)
                elif key == "required" and isinstance(value, list):
                    merged["required"] = [*merged.get("required", []), *value]
                elif key == "type" and "type" in merged and merged["type"] != value:
                    merged["type"] = "object" if "properties" in merged else "string"
                else:
                    merged[key] = value
        return merged

    def _map_alternatives(
        self, members: list[Any], schema: Mapping[str, Any]
    ) -> tuple[SparkType, bool]:
        nullable = False
        kept: list[Any] = []
        for member in members:
            resolved = self._deref(member)
            if isinstance(resolved, Mapping) and resolved.get("type") == "null":
                nullable = True
            else:
                # mapped as written: a ``$ref`` goes through ``_map_ref``, which stops at a
                # reference to what is being mapped
                kept.append(member)
        if len(kept) == 1:
            dtype, null = self.map(kept[0])
            return dtype, nullable or null
        mapped = [self.map(m)[0] for m in kept]
        if mapped and all(is_struct(t) for t in mapped):
            return _union_struct(mapped), nullable
        if mapped and all(t == mapped[0] and isinstance(t, str) for t in mapped):
            return mapped[0], nullable
        return STRING, True

    def _map_typed(self, type_name: str, schema: Mapping[str, Any]) -> SparkType:
        if type_name == "object":
            return self._map_object(schema)
        if type_name == "array":
            return self._map_array(schema)
        if type_name in ("string", "number", "integer"):
            special = _string_format(schema)
            if special is not None:
                return special
        return _JSON_PRIMITIVES.get(type_name, STRING)

    def _map_untyped(self, schema: Mapping[str, Any]) -> SparkType:
        if "properties" in schema or "additionalProperties" in schema:
            return self._map_object(schema)
        if "items" in schema or "prefixItems" in schema:
            return self._map_array(schema)
        values = schema.get("enum")
        if "const" in schema:
            values = [schema["const"]]
        if isinstance(values, list) and values:
            return _literal_type(values)
        special = _string_format(schema)
        return special if special is not None else STRING

    def _map_object(self, schema: Mapping[str, Any]) -> SparkType:
        props = schema.get("properties")
        if not isinstance(props, Mapping) or not props:
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                value, _ = self.map(extra)
                return map_of(value)
            return map_of(STRING)
        required = schema.get("required")
        required_set = set(required) if isinstance(required, list) else set()
        fields = []
        for name, sub in props.items():
            dtype, null = self.map(sub)
            fields.append(field(str(name), dtype, null or name not in required_set))
        return struct(fields)

    def _map_array(self, schema: Mapping[str, Any]) -> SparkType:
        items = schema.get("items")
        if isinstance(items, Mapping) and "prefixItems" not in schema:
            return array(self.map(items)[0])
        return array(STRING)


def _string_format(schema: Mapping[str, Any]) -> SparkType | None:
    fmt = schema.get("format")
    if fmt == "decimal":
        precision = schema.get("precision", schema.get("x-precision", 38))
        scale = schema.get("scale", schema.get("x-scale", 18))
        return f"decimal({int(precision)},{int(scale)})"
    if schema.get("type") not in (None, "string") and not (
        isinstance(schema.get("type"), list) and "string" in schema["type"]
    ):
        return None
    if fmt == "date-time":
        return "timestamp"
    if fmt == "date":
        return "date"
    if fmt == "byte" or schema.get("contentEncoding") == "base64":
        return "binary"
    return None


def _literal_type(values: list[Any]) -> SparkType:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "long"
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "double"
    return STRING


def _union_struct(structs: list[dict[str, Any]]) -> dict[str, Any]:
    """One struct holding every field of ``structs``, all nullable; conflicts -> string."""
    fields: dict[str, dict[str, Any]] = {}
    for s in structs:
        for f in s["fields"]:
            known = fields.get(f["name"])
            if known is None:
                fields[f["name"]] = field(f["name"], f["type"], True)
            elif known["type"] != f["type"]:
                known["type"] = STRING
    return struct(fields.values())
