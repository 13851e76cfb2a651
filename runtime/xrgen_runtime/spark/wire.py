"""How a landing shape is read: :class:`Wire`, the base of the Spark readers that each binding
declares (``BindingSpec.spark_reader``, ``bindings/<name>/spark.py``).

A reader reads the CloudEvents attributes, content type, payload and protocol options of rows
of its binding's landing shape, with the declaration's family, transit, case-insensitive and
upper-case fields.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bindings import BindingSpec
from . import sql as S
from .columns import as_text
from .sql import Expr as X
from .values import media_is_cloudevents

__all__ = ["Wire"]


class Wire:
    """Reads one landing shape. Subclasses set the class attributes and override readers;
    ``spec`` is the binding's declaration (``None`` for structured JSON rows)."""

    payload = "payload"
    lineage: tuple[str, ...] = ()
    fields: dict[str, str] = {}

    def __init__(self, spec: BindingSpec | None = None) -> None:
        self.spec = spec
        #: the protocol family definitions bound to this binding name
        self.family = spec.family if spec is not None else None
        #: fields brokers may change in transit: never matched (as the dispatcher)
        self.transit = spec.transit if spec is not None else frozenset()

    def caseless(self, field: str) -> bool:
        """Whether entry names of ``field`` compare case-insensitively."""
        return self.spec is not None and field in self.spec.caseless

    def expected(self, path: tuple[str, ...], value: str) -> str:
        """The text an option's value must equal (upper case for an upper-case field)."""
        if self.spec is not None and path[0] in self.spec.upper:
            return value.upper()
        return value

    def content_type(self) -> X:
        """The protocol content type (structured-mode detection)."""
        return S.lit(None).cast("string")

    def structured(self) -> X:
        return media_is_cloudevents(self.content_type())

    def unsupported(self) -> X:
        """Rows of a content mode the decoder does not handle (HTTP batch)."""
        return S.lit(False)

    def attribute(self, name: str) -> X:
        """Binary mode: the canonical string of attribute ``name`` (``None`` if absent)."""
        raise NotImplementedError

    def attribute_invalid(self, names: Sequence[str]) -> X | None:
        """Binary mode: whether one of the attributes ``names`` is not validly encoded.

        ``None`` when the binding's attribute values cannot be invalid once read.
        """
        return None

    def datacontenttype(self) -> X:
        return self.content_type()

    def payload_bytes(self) -> X:
        """Binary mode: the data bytes (``None``: no data; an empty payload is no data)."""
        payload = S.col(self.payload)
        return S.when(S.fn("length", payload) > 0, payload)

    def option(self, path: tuple[str, ...]) -> X | None:
        """The text of protocol option ``path`` (``None``: not readable from this shape)."""
        if len(path) == 1 and path[0] in self.fields:
            text = as_text(S.col(self.fields[path[0]]))
            if self.spec is not None and path[0] in self.spec.upper:
                return S.fn("upper", text)
            return text
        if len(path) == 2:
            return self.keyed(path[0], path[1])
        return None

    def keyed(self, field: str, key: str) -> X | None:
        return None
