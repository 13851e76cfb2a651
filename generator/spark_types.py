"""Payload and event schemas as Spark SQL types (pure: no pyspark import).

Runs at generation time. Every function returns the JSON form of a Spark data type, exactly as
``DataType.jsonValue()`` writes it, so generated code rebuilds it with
``StructType.fromJson(...)`` (structs) or ``pyspark.sql.types._parse_datatype_json_value``.
Column names are the wire names.

JSON Schema (draft-04 .. 2020-12) rules:

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

Avro rules (mirroring Spark's ``SchemaConverters``): ``record`` -> ``struct``; ``enum`` ->
``string``; ``array`` / ``map`` -> ``array`` / ``map<string, T>``; ``fixed`` / ``bytes`` ->
``binary``; ``int`` -> ``integer``; ``long``, ``float``, ``double``, ``boolean``, ``string``
as named; ``null`` -> nullable ``string``; unions with ``null`` -> the other type, nullable;
``[int, long]`` -> ``long``; ``[float, double]`` -> ``double``; other unions -> ``struct`` of
nullable ``member0``, ``member1``, ...; logical types ``timestamp-millis``/``-micros`` ->
``timestamp``, ``local-timestamp-*`` -> ``timestamp_ntz``, ``date`` -> ``date``, ``decimal``
-> ``decimal(p,s)``, ``uuid`` -> ``string``. Named types are resolved by full name; a recursive
reference becomes ``string``.

Event schemas (:func:`event_schema`): ``specversion``, ``id``, ``source``, ``type`` (non-null
strings), ``time`` (timestamp), ``datacontenttype``, ``dataschema``, ``subject`` (strings),
then each declared extension attribute with its CloudEvents type (``integer`` -> ``integer``,
``boolean``, ``timestamp``, ``binary``, everything else ``string``), then ``data``: the payload
type, or ``binary`` for opaque payloads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "CORE_ATTRIBUTES",
    "attribute_type",
    "avro_to_spark",
    "event_schema",
    "json_schema_to_spark",
    "payload_to_spark",
]

#: A Spark data type in its JSON form: a string for atomic types, a dict otherwise.
SparkType = Any

STRING = "string"
#: CloudEvents context attributes every event schema has, in column order (name, kind).
CORE_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("specversion", "string"),
    ("id", "string"),
    ("source", "urireference"),
    ("type", "string"),
    ("time", "timestamp"),
    ("datacontenttype", "string"),
    ("dataschema", "uri"),
    ("subject", "string"),
)
_REQUIRED_CORE = frozenset({"specversion", "id", "source", "type"})
_ATTR_TYPES = {
    "integer": "integer",
    "boolean": "boolean",
    "timestamp": "timestamp",
    "binary": "binary",
}
_JSON_PRIMITIVES = {
    "integer": "long",
    "number": "double",
    "boolean": "boolean",
    "string": STRING,
}


def field(name: str, dtype: SparkType, nullable: bool = True) -> dict[str, Any]:
    """A struct field in Spark's JSON form."""
    return {"name": name, "type": dtype, "nullable": nullable, "metadata": {}}


def struct(fields: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A struct type in Spark's JSON form."""
    return {"type": "struct", "fields": list(fields)}


def array(element: SparkType, contains_null: bool = True) -> dict[str, Any]:
    return {"type": "array", "elementType": element, "containsNull": contains_null}


def map_of(value: SparkType, value_contains_null: bool = True) -> dict[str, Any]:
    return {
        "type": "map",
        "keyType": STRING,
        "valueType": value,
        "valueContainsNull": value_contains_null,
    }


def is_struct(dtype: SparkType) -> bool:
    return isinstance(dtype, dict) and dtype.get("type") == "struct"


# ---------------------------------------------------------------------------------------------
# JSON Schema
# ---------------------------------------------------------------------------------------------


def json_schema_to_spark(schema: Any) -> SparkType:
    """The Spark type of values valid against the JSON Schema ``schema`` (see module rules)."""
    dtype, _ = _JsonMapper(schema).map(schema)
    return dtype


class _JsonMapper:
    """Maps one JSON Schema document; ``$ref`` targets resolve against its root."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.expanding: list[str] = []

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
        if target is None or ref in self.expanding:
            return STRING, True
        self.expanding.append(ref)
        try:
            return self.map(target)
        finally:
            self.expanding.pop()

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None
        node: Any = self.root
        for raw in ref[1:].split("/")[1:] if ref != "#" else []:
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def _deref(self, schema: Any) -> Any:
        """``schema`` with top-level ``$ref``s followed (recursion stops at the first repeat)."""
        seen: set[str] = set()
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if ref in seen or ref in self.expanding:
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
        resolved = [self._deref(m) for m in members]
        nullable = False
        kept: list[Any] = []
        for member in resolved:
            if isinstance(member, Mapping) and member.get("type") == "null":
                nullable = True
            else:
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
    if present and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in present
    ):
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


# ---------------------------------------------------------------------------------------------
# Avro
# ---------------------------------------------------------------------------------------------

_AVRO_PRIMITIVES = {
    "boolean": "boolean",
    "int": "integer",
    "long": "long",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": STRING,
    "null": STRING,
}
_AVRO_LOGICAL = {
    "timestamp-millis": "timestamp",
    "timestamp-micros": "timestamp",
    "local-timestamp-millis": "timestamp_ntz",
    "local-timestamp-micros": "timestamp_ntz",
    "date": "date",
    "uuid": STRING,
}


def avro_to_spark(schema: Any) -> SparkType:
    """The Spark type of values of the Avro schema ``schema`` (see module rules)."""
    return _AvroMapper().map(schema, "")[0]


class _AvroMapper:
    def __init__(self) -> None:
        self.named: dict[str, Any] = {}
        self.expanding: set[str] = set()

    def map(self, schema: Any, namespace: str) -> tuple[SparkType, bool]:
        """(Spark type, nullable) of ``schema`` in the enclosing ``namespace``."""
        if isinstance(schema, list):
            return self._map_union(schema, namespace)
        if isinstance(schema, str):
            if schema in _AVRO_PRIMITIVES:
                return _AVRO_PRIMITIVES[schema], schema == "null"
            return self._map_named_ref(schema, namespace)
        if not isinstance(schema, Mapping):
            return STRING, True
        logical = schema.get("logicalType")
        if logical == "decimal":
            return (
                f"decimal({int(schema.get('precision', 38))},{int(schema.get('scale', 0))})",
                False,
            )
        if logical in _AVRO_LOGICAL:
            return _AVRO_LOGICAL[logical], False
        kind = schema.get("type")
        if kind == "record" or kind == "error":
            return self._map_record(schema, namespace), False
        if kind == "enum":
            self._register(schema, namespace, STRING)
            return STRING, False
        if kind == "fixed":
            self._register(schema, namespace, "binary")
            return "binary", False
        if kind == "array":
            element, null = self.map(schema.get("items"), namespace)
            return array(element, null), False
        if kind == "map":
            value, null = self.map(schema.get("values"), namespace)
            return map_of(value, null), False
        return self.map(kind, namespace)

    def _full_name(self, schema: Mapping[str, Any], namespace: str) -> tuple[str, str]:
        name = str(schema.get("name", ""))
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = schema.get("namespace", namespace) or ""
        return (f"{space}.{name}" if space else name), space

    def _register(
        self, schema: Mapping[str, Any], namespace: str, dtype: SparkType
    ) -> None:
        full, _ = self._full_name(schema, namespace)
        self.named[full] = dtype

    def _map_named_ref(self, name: str, namespace: str) -> tuple[SparkType, bool]:
        for candidate in (f"{namespace}.{name}" if namespace else name, name):
            if candidate in self.expanding:
                return STRING, True
            if candidate in self.named:
                return self.named[candidate], False
        return STRING, True

    def _map_record(self, schema: Mapping[str, Any], namespace: str) -> SparkType:
        full, space = self._full_name(schema, namespace)
        self.expanding.add(full)
        try:
            fields = []
            for f in schema.get("fields", []):
                dtype, null = self.map(f.get("type"), space)
                fields.append(field(str(f["name"]), dtype, null))
            result = struct(fields)
        finally:
            self.expanding.discard(full)
        self.named[full] = result
        return result

    def _map_union(self, members: list[Any], namespace: str) -> tuple[SparkType, bool]:
        non_null = [m for m in members if m != "null"]
        nullable = len(non_null) < len(members)
        if len(non_null) == 1:
            dtype, null = self.map(non_null[0], namespace)
            return dtype, nullable or null
        if not non_null:
            return STRING, True
        kinds = set(non_null)
        if all(isinstance(m, str) for m in non_null):
            if kinds == {"int", "long"}:
                return "long", nullable
            if kinds == {"float", "double"}:
                return "double", nullable
        fields = [
            field(f"member{i}", self.map(m, namespace)[0], True)
            for i, m in enumerate(non_null)
        ]
        return struct(fields), nullable


# ---------------------------------------------------------------------------------------------
# Payloads and events
# ---------------------------------------------------------------------------------------------


def payload_to_spark(payload_format: str | None, schema: Any) -> SparkType | None:
    """The Spark type of a payload (``ir.Payload.format`` and ``.schema``); ``None`` if opaque."""
    if payload_format == "json":
        return json_schema_to_spark(schema)
    if payload_format == "avro":
        return avro_to_spark(schema)
    return None


def attribute_type(kind: str) -> str:
    """The Spark type of a CloudEvents attribute of xRegistry type ``kind``."""
    return _ATTR_TYPES.get(kind, STRING)


def event_schema(
    data_type: SparkType | None, extensions: Iterable[tuple[str, str]] = ()
) -> dict[str, Any]:
    """The full event struct: core attributes, ``extensions`` ``(name, kind)``, then ``data``.

    ``data_type`` is the payload type (``None``: opaque payload -> ``binary``). Extension names
    that repeat a core attribute are ignored (the core column keeps its CloudEvents type).
    """
    fields = [
        field(name, attribute_type(kind), name not in _REQUIRED_CORE)
        for name, kind in CORE_ATTRIBUTES
    ]
    core = {name for name, _ in CORE_ATTRIBUTES}
    seen = set(core)
    for name, kind in extensions:
        if name not in seen:
            seen.add(name)
            fields.append(field(name, attribute_type(kind), True))
    fields.append(field("data", "binary" if data_type is None else data_type, True))
    return struct(fields)
