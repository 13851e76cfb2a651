"""How Spark reads the AMQP 1.0 binding's landing shape (``LANDING_SCHEMAS['amqp']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.columns import as_text
from ...spark.sql import Expr as X
from ...spark.wire import Wire

__all__ = ["AmqpWire"]


class AmqpWire(Wire):
    payload = "body"
    lineage = ("address",)
    fields = {"address": "address"}

    def content_type(self) -> X:
        return S.col("properties").getField("content_type")

    def attribute(self, name: str) -> X:
        props = S.col("application_properties")
        return S.coalesce(props["cloudEvents_" + name], props["cloudEvents:" + name])

    def keyed(self, field: str, key: str) -> X | None:
        if field == "properties":
            return as_text(S.col("properties").getField(key.replace("-", "_")))
        if field in ("application_properties", "message_annotations", "footer"):
            return S.col(field)[key]
        if field == "header":
            return as_text(S.col("header").getField(key.replace("-", "_")))
        return None
