"""Avro schemas -> Spark types (the rules are in ``avro``'s module docstring, mirroring Spark's
``SchemaConverters``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shared.spark import STRING, SparkType, array, field, map_of, struct

_SPARK_PRIMITIVES = {
    "boolean": "boolean",
    "int": "integer",
    "long": "long",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": STRING,
    "null": STRING,
}
_SPARK_LOGICAL = {
    "timestamp-millis": "timestamp",
    "timestamp-micros": "timestamp",
    "local-timestamp-millis": "timestamp_ntz",
    "local-timestamp-micros": "timestamp_ntz",
    "date": "date",
    "uuid": STRING,
}


class AvroMapper:
    def __init__(self) -> None:
        self.named: dict[str, Any] = {}
        self.expanding: set[str] = set()

    def map(self, schema: Any, namespace: str) -> tuple[SparkType, bool]:
        """(Spark type, nullable) of ``schema`` in the enclosing ``namespace``."""
        if isinstance(schema, list):
            return self._map_union(schema, namespace)
        if isinstance(schema, str):
            if schema in _SPARK_PRIMITIVES:
                return _SPARK_PRIMITIVES[schema], schema == "null"
            return self._map_named_ref(schema, namespace)
        if not isinstance(schema, Mapping):
            return STRING, True
        logical = schema.get("logicalType")
        if logical == "decimal":
            return (
                f"decimal({int(schema.get('precision', 38))},{int(schema.get('scale', 0))})",
                False,
            )
        if logical in _SPARK_LOGICAL:
            return _SPARK_LOGICAL[logical], False
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

    def _register(self, schema: Mapping[str, Any], namespace: str, dtype: SparkType) -> None:
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
        if all(isinstance(m, str) for m in non_null):
            kinds = set(non_null)
            if kinds == {"int", "long"}:
                return "long", nullable
            if kinds == {"float", "double"}:
                return "double", nullable
        fields = [
            field(f"member{i}", self.map(m, namespace)[0], True) for i, m in enumerate(non_null)
        ]
        return struct(fields), nullable
