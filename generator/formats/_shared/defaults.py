"""The ``PayloadFormat`` members a format has nothing of its own for: it re-exports these
(``from .._shared.defaults import spark_read as spark_read``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import Diagnostics, pointer_escape
from ...model import ir
from ...options import Options
from .spark import SparkType


def check_unlabelled(schema: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """Nothing beyond what its models check."""


def check_payload(payload: ir.Payload, diags: Diagnostics) -> None:
    """Nothing beyond what its models check."""


def unusable(schema: Any) -> str | None:
    """Every schema of the format gets a model."""
    return None


def runtime_codec(
    payload: ir.Payload, messages: Sequence[ir.Message], options: Options
) -> tuple[str, str] | None:
    """Its payloads travel as JSON: no codec to register."""
    return None


def spark_recursive(schema: Any) -> bool:
    """Its Spark types are finite."""
    return False


def spark_read(schema: Any) -> tuple[SparkType, Any] | None:
    """``from_json`` reads its JSON instances as ``spark_type`` gives."""
    return None


def spark_avro(schema: Any) -> Any:
    """No Avro schema to read payloads with."""
    return None


def spark_descriptors(schema: Any) -> tuple[str, bytes] | None:
    """No Protobuf descriptors."""
    return None


def field_names(schema: Any) -> set[str]:
    """The ``properties`` of the root object (through local ``$ref``s)."""
    node = schema
    for _ in range(8):
        if not (
            isinstance(node, dict)
            and isinstance(node.get("$ref"), str)
            and node["$ref"].startswith("#/")
        ):
            break
        target: Any = schema
        for token in node["$ref"][2:].split("/"):
            target = (
                target.get(token.replace("~1", "/").replace("~0", "~"))
                if isinstance(target, dict)
                else None
            )
        node = target
    props = node.get("properties") if isinstance(node, dict) else None
    return set(props) if isinstance(props, dict) else set()


def field_pointer(name: str) -> str:
    """``/properties/<name>``."""
    return "/properties/" + pointer_escape(name)


def shapes(schema: Any) -> Any:
    """Its payloads are not told apart by their schemas."""
    return None


def apart(a: Any, b: Any) -> bool:
    """Its payloads may always overlap."""
    return False


def value_checks(schema: Any) -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
    """No value checks are read from its schemas."""
    return ()
