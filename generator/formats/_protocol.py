"""What a payload format is to the rest of the generator: its facts and its entry points.

Each package under ``formats/`` is a ``PayloadFormat`` (its ``__init__`` defines every member at
module level); ``formats.FORMATS`` lists them, and mypy checks each package against this
protocol there. Callers outside ``formats/`` ask a format through these members, never by
comparing its ``NAME``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..diagnostics import Diagnostics
from ..model import ir
from ..naming import Scope
from ..options import Options
from ._shared.fragment import Selected
from ._shared.models import Diag, Imports
from ._shared.spark import SparkType


class PayloadFormat(Protocol):
    @property
    def NAME(self) -> str:
        """The family id, stored in ``ir.Payload.format``."""

    @property
    def SPELLINGS(self) -> frozenset[str]:
        """Format names as catalogs write them (lower case, before ``/version``)."""

    @property
    def TITLE(self) -> str:
        """The format's name in messages."""

    @property
    def FORMAT(self) -> str:
        """The format name xRegistry defines (``<FORMAT>/<version>``)."""

    @property
    def VERSIONS(self) -> str | None:
        """The versions xrgen knows, a regular expression over the normalized version
        (``None``: any)."""

    @property
    def EXAMPLE(self) -> str:
        """A well-spelled format string, for hints."""

    @property
    def DATA_NAMES(self) -> frozenset[str]:
        """Spellings that name a data format rather than a schema language (XRG148)."""

    @property
    def MODELED(self) -> bool:
        """Payload models are generated (else the data stays bytes)."""

    @property
    def CONTENT_TYPE(self) -> str:
        """The ``datacontenttype`` inferred when the catalog declares none."""

    @property
    def JSON_SCHEMA(self) -> bool:
        """Its schemas are JSON Schemas: JSON tooling (an AsyncAPI Schema Object, a ``$ref``
        from one) reads them as they are."""

    @property
    def TEXT(self) -> bool:
        """Schemas are text documents (``.proto``, XSD), embedded in a catalog as strings."""

    @property
    def RUNTIME_MODULE(self) -> str | None:
        """The module of ``xrgen_runtime.formats`` that holds its codec (``None``: JSON)."""

    @property
    def RUNTIME_EXTRA(self) -> str | None:
        """The ``xrgen-runtime`` extra its codec needs (``None``: none)."""

    def accepts(self, content_type: str | None, /) -> bool:
        """Whether a declared content type puts the payload on the wire in this format."""

    def guess(self, schema: Any, /) -> bool:
        """Whether an unlabelled schema looks like this format."""

    def json_text(self, text: str, /) -> bool:
        """Whether a schema embedded as the string ``text`` is JSON text to parse first."""

    def deep_link(self, document: Any, pointer: str, /) -> Selected:
        """The part of ``document`` at ``pointer`` (a URI fragment without ``#/``) as the
        payload schema."""

    def select_type(self, schema: Any, name: str, linked: bool, /) -> Selected:
        """The type that ``<schema>:name`` names (``linked``: the reference also has a
        fragment)."""

    def check(
        self, schema: Any, version: str | None, file: str, ptr: str, diags: Diagnostics, /
    ) -> None:
        """The checks of an embedded schema of a declared format."""

    def check_unlabelled(self, schema: Any, file: str, ptr: str, diags: Diagnostics, /) -> None:
        """The checks of a schema without a declared format that looks like this one."""

    def check_payload(self, payload: ir.Payload, diags: Diagnostics, /) -> None:
        """The checks of a built payload that keep its models importable and their validation
        linear-time, run before models are rendered."""

    def unusable(self, schema: Any, /) -> str | None:
        """Why payloads of ``schema`` cannot be modeled (``None``: they can)."""

    def root_name(self, schema: Any, /) -> str | None:
        """The name the schema gives its root type, for the payload model's name."""

    def render_models(
        self, payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag], /
    ) -> str:
        """The pydantic source of its payloads."""

    def spark_type(self, schema: Any, /) -> SparkType | None:
        """The Spark type of its payloads (``None``: not mapped)."""

    def spark_recursive(self, schema: Any, /) -> bool:
        """Whether ``schema`` refers to itself, so that its Spark type holds the recursive
        part as a ``string`` column of JSON text (warning XRG325)."""

    def spark_read(self, schema: Any, /) -> tuple[SparkType, Any] | None:
        """``(wire type, conversion tree)`` the Spark decoder reads JSON instances with
        (``None``: ``from_json`` reads them as ``spark_type`` gives)."""

    def spark_avro(self, schema: Any, /) -> Any:
        """The Avro schema Spark's ``from_avro`` reads binary payloads with (``None``: none)."""

    def spark_descriptors(self, schema: Any, /) -> tuple[str, bytes] | None:
        """``(message name, FileDescriptorSet bytes)`` for Spark's ``from_protobuf``
        (``None``: none)."""

    def field_names(self, schema: Any, /) -> set[str]:
        """The top-level field names of the payload model of ``schema``."""

    def field_pointer(self, name: str, /) -> str:
        """Where field ``name`` is declared, relative to the schema."""

    def shapes(self, schema: Any, /) -> Any:
        """What ``apart`` compares of ``schema`` (``None``: the format cannot tell its
        payloads apart: they may always overlap)."""

    def apart(self, a: Any, b: Any, /) -> bool:
        """Whether no value fits both schemas whose ``shapes`` are ``a`` and ``b``."""

    def value_checks(self, schema: Any, /) -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
        """``(path, values)`` of the properties every value must have with one of ``values``:
        what the Spark decoder checks to tell tied definitions apart (empty: none)."""

    def runtime_codec(
        self, payload: ir.Payload, messages: Sequence[ir.Message], options: Options, /
    ) -> tuple[str, str] | None:
        """``(codec class in RUNTIME_MODULE, constructor expression)`` when some of
        ``messages`` carry ``payload`` in this format, else ``None``."""
