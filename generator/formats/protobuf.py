"""Protobuf payloads (``.proto`` text, proto2 or proto3): spellings, content types, checks.

The wire bytes are Protobuf binary when the content type is Protobuf (``application/protobuf``
is inferred when the catalog declares none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xrgen_runtime.formats import PROTOBUF_MEDIA_TYPES

from .. import ir
from ..naming import Scope
from ..spark_types import SparkType
from ._models import Diag, Imports

NAME = "protobuf"
SPELLINGS = frozenset({"protobuf", "proto", "proto3", "proto2", "protocolbuffers"})
#: payload models are generated (others keep their data as bytes)
MODELED = False
TITLE = "Protobuf schema"
CONTENT_TYPE = "application/protobuf"
MEDIA_TYPES = PROTOBUF_MEDIA_TYPES


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes Protobuf binary."""
    if content_type is None:
        return False
    return content_type.split(";", 1)[0].strip().lower() in MEDIA_TYPES


def guess(schema: Any) -> bool:
    """An unlabelled string schema that looks like ``.proto`` text."""
    return isinstance(schema, str) and "syntax" in schema and "message" in schema


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """A Protobuf schema is ``.proto`` text (XRG154 otherwise)."""
    if not isinstance(schema, str):
        diags.error("XRG154", file, ptr, "a Protobuf schema must be the .proto text (a string)")


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    return ""


def spark_type(schema: Any) -> SparkType | None:
    return None
