"""How Spark reads the HTTP binding's landing shape (``LANDING_SCHEMAS['http']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from ...spark import sql as S
from ...spark.sql import Expr as X
from ...spark.values import media_is_cloudevents, starts_caseless
from ..nats.spark import NatsWire

__all__ = ["HttpWire"]


class HttpWire(NatsWire):
    payload = "body"
    lineage = ("method", "path")
    fields = {"method": "method", "status": "status"}

    def structured(self) -> X:
        return media_is_cloudevents(self.content_type())

    def datacontenttype(self) -> X:
        return self.content_type()

    def unsupported(self) -> X:
        return starts_caseless(self.content_type(), "application/cloudevents-batch")

    def option(self, path: tuple[str, ...]) -> X | None:
        if path == ("path",):
            return S.fn("substring_index", S.col("path"), "?", 1)
        if len(path) == 2 and path[0] == "query":
            return S.fn(
                "try_parse_url",
                S.concat("http://h", S.col("path")),
                "QUERY",
                path[1],
            )
        return super().option(path)
