"""Spark SQL types in their JSON form (as ``DataType.jsonValue()`` writes them), the building
blocks of each format's ``spark_type`` (pure: no pyspark import)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: A Spark data type in its JSON form: a string for atomic types, a dict otherwise.
SparkType = Any

STRING = "string"


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
