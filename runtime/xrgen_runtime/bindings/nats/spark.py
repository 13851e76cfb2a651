"""How Spark reads the NATS binding's landing shape (``LANDING_SCHEMAS['nats']``):
its CloudEvents attributes, content type, payload and protocol options."""

from __future__ import annotations

from collections.abc import Sequence

from ...spark import sql as S
from ...spark.columns import any_of, as_text, pair
from ...spark.sql import Expr as X
from ...spark.values import media_is_cloudevents, pct_decoded, pct_invalid
from ...spark.wire import Wire

__all__ = ["NatsWire"]


class NatsWire(Wire):
    lineage: tuple[str, ...] = ("subject",)
    fields = {"subject": "subject", "reply": "reply"}

    def content_type(self) -> X:
        return pair(S.col("headers"), "content-type", caseless=self.caseless("headers"))

    def structured(self) -> X:
        """``Content-Type`` says so, or no ``ce-`` headers and a JSON object payload."""
        ce_header = self.attribute("specversion").isNotNull()
        json_object = S.fn("ltrim", as_text(S.col(self.payload))).startswith("{")
        plain = ~ce_header & S.coalesce(json_object, False)
        return media_is_cloudevents(self.content_type()) | plain

    def attribute(self, name: str) -> X:
        return pct_decoded(self._raw_attribute(name))

    def _raw_attribute(self, name: str) -> X:
        return pair(S.col("headers"), "ce-" + name, caseless=self.caseless("headers"))

    def attribute_invalid(self, names: Sequence[str]) -> X | None:
        return any_of([pct_invalid(self._raw_attribute(n)) for n in names])

    def datacontenttype(self) -> X:
        return self.attribute("datacontenttype")

    def keyed(self, field: str, key: str) -> X | None:
        if field == "headers":
            return pair(S.col("headers"), key, caseless=self.caseless("headers"))
        return None
