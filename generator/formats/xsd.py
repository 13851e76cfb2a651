"""XML Schema (XSD) payloads: spellings, content types, checks.

The wire bytes are XML (``application/xml`` is inferred when the catalog declares none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import ir
from ..naming import Scope
from ..spark_types import SparkType
from ._models import Diag, Imports

NAME = "xsd"
SPELLINGS = frozenset({"xsd", "xmlschema", "xml-schema", "xml"})
#: payload models are generated (others keep their data as bytes)
MODELED = False
TITLE = "XML Schema"
CONTENT_TYPE = "application/xml"


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes XML: ``*/xml`` or ``*/*+xml``."""
    if content_type is None:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return "/" in media and (media.endswith("/xml") or media.endswith("+xml"))


def guess(schema: Any) -> bool:
    """An unlabelled string schema that looks like an XSD document."""
    return isinstance(schema, str) and "XMLSchema" in schema and "<" in schema


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """An XML Schema is XSD text (XRG154 otherwise)."""
    if not isinstance(schema, str):
        diags.error("XRG154", file, ptr, "an XML Schema must be the XSD text (a string)")


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    return ""


def spark_type(schema: Any) -> SparkType | None:
    return None
