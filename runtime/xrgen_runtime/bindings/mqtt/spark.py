"""How Spark reads the MQTT binding's landing shape (``LANDING_SCHEMAS['mqtt']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.columns import pair
from ...spark.sql import Expr as X
from ...spark.values import media_is_cloudevents
from ...spark.wire import Wire

__all__ = ["MqttWire"]


class MqttWire(Wire):
    lineage = ("topic",)
    fields = {
        "topic": "topic",
        "qos": "qos",
        "retain": "retain",
        "content_type": "content_type",
        "response_topic": "response_topic",
    }

    def content_type(self) -> X:
        return S.col("content_type")

    def structured(self) -> X:
        return (S.col("version") == "3.1.1") | media_is_cloudevents(self.content_type())

    def attribute(self, name: str) -> X:
        return pair(S.col("user_properties"), name)

    def keyed(self, field: str, key: str) -> X | None:
        return pair(S.col(field), key) if field == "user_properties" else None
