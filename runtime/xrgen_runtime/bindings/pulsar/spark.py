"""How Spark reads the Apache Pulsar binding's landing shape (``LANDING_SCHEMAS['pulsar']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.sql import Expr as X
from ...spark.wire import Wire

__all__ = ["PulsarWire"]


class PulsarWire(Wire):
    lineage = ("topic",)
    fields = {"topic": "topic", "partition_key": "partition_key"}

    def content_type(self) -> X:
        props = S.col("properties")
        return S.coalesce(props["CE-datacontenttype"], props["CE-ContentType"])

    def attribute(self, name: str) -> X:
        return S.col("properties")["CE-" + name]

    def datacontenttype(self) -> X:
        return self.attribute("datacontenttype")

    def keyed(self, field: str, key: str) -> X | None:
        return S.col("properties")[key] if field == "properties" else None
