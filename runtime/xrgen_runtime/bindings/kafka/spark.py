"""How Spark reads the Kafka binding's landing shape (``LANDING_SCHEMAS['kafka']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.columns import as_text, pair
from ...spark.sql import Expr as X
from ...spark.wire import Wire

__all__ = ["KafkaWire"]


class KafkaWire(Wire):
    payload = "value"
    lineage = ("topic", "partition", "offset", "timestamp")
    fields = {"topic": "topic", "partition": "partition", "key": "key"}

    def payload_bytes(self) -> X:
        return S.col("value")  # a null value (tombstone) is no data; b"" stays b""

    def content_type(self) -> X:
        return as_text(pair(S.col("headers"), "content-type"))

    def attribute(self, name: str) -> X:
        return as_text(pair(S.col("headers"), "ce_" + name))

    def keyed(self, field: str, key: str) -> X | None:
        return as_text(pair(S.col("headers"), key)) if field == "headers" else None
