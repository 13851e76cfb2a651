"""The ``PayloadFormat`` members a format has nothing of its own for: it re-exports these
(``from .._shared.defaults import spark_read as spark_read``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import Diagnostics
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


def value_checks(schema: Any) -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
    """No value checks are read from its schemas."""
    return ()
