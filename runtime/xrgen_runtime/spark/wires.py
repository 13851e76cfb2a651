"""The landing shapes of the decoder: their schemas and how each one is read.

``LANDING_SCHEMAS[binding]`` is the DataFrame schema that wire messages of a binding land in,
as the binding's declaration (``bindings.BINDINGS``) states it; ``WIRES[binding]`` reads rows of
that shape: the binding's Spark reader (a :class:`~.wire.Wire` in ``bindings/<name>/spark.py``,
named by the declaration), built with its declaration, and ``WIRES["json"]`` for structured JSON
text.
"""

from __future__ import annotations

from pyspark.sql.types import StructType

from ..bindings import BINDINGS
from . import sql as S
from .sql import Expr as X
from .wire import Wire

__all__ = ["LANDING_SCHEMAS", "WIRES", "Wire"]

#: Landing schemas of wire messages, from the binding declarations (mirroring the
#: ``*Message`` types). ``kafka`` is Spark's Kafka source schema. AMQP application
#: properties, annotations and footer hold canonical CloudEvents strings (``true``, RFC 3339
#: timestamps, base64).
LANDING_SCHEMAS: dict[str, StructType] = {
    name: StructType.fromJson(spec.landing_json()) for name, spec in BINDINGS.items()
}


class _Json(Wire):
    payload = "value"

    def structured(self) -> X:
        return S.lit(True)

    def attribute(self, name: str) -> X:
        return S.lit(None).cast("string")

    def payload_bytes(self) -> X:
        return S.col("value").cast("binary")


WIRES: dict[str, Wire] = {
    **{name: spec.part(spec.spark_reader)(spec) for name, spec in BINDINGS.items()},
    "json": _Json(),
}
