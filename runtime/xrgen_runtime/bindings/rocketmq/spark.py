"""How Spark reads the Apache RocketMQ binding's landing shape (``LANDING_SCHEMAS['rocketmq']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.sql import Expr as X
from ...spark.wire import Wire

__all__ = ["RocketMqWire"]


class RocketMqWire(Wire):
    payload = "body"
    lineage = ("topic",)
    fields = {"topic": "topic", "tag": "tag"}

    def content_type(self) -> X:
        props = S.col("properties")
        return S.coalesce(props["CE_contenttype"], props["CE_contentType"])

    def attribute(self, name: str) -> X:
        return S.col("properties")["CE_" + name]

    def payload_bytes(self) -> X:
        body = S.col("body")
        return S.when((S.fn("length", body) > 0) & (body != b"\x00"), body)

    def keyed(self, field: str, key: str) -> X | None:
        return S.col("properties")[key] if field == "properties" else None
