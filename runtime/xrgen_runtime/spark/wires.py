"""The landing shapes of the decoder: their schemas and how each one is read.

``LANDING_SCHEMAS[binding]`` is the DataFrame schema that wire messages of a binding land in,
as the binding's declaration (``bindings.BINDINGS``) states it; a :class:`Wire` reads the
CloudEvents attributes, content type, payload and protocol options of rows of that shape, with
the declaration's family, transit, case-insensitive and upper-case fields.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql.types import StructType

from ..bindings import BINDINGS, BindingSpec
from . import sql as S
from .columns import any_of, as_text, pair
from .sql import Expr as X
from .values import media_is_cloudevents, pct_decoded, pct_invalid, starts_caseless

#: Landing schemas of wire messages, from the binding declarations (mirroring the
#: ``*Message`` types). ``kafka`` is Spark's Kafka source schema. AMQP application
#: properties, annotations and footer hold canonical CloudEvents strings (``true``, RFC 3339
#: timestamps, base64).
LANDING_SCHEMAS: dict[str, StructType] = {
    name: StructType.fromJson(spec.landing_json()) for name, spec in BINDINGS.items()
}


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


class _Kafka(Wire):
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


class _Amqp(Wire):
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


class _Mqtt(Wire):
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


class _Nats(Wire):
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


class _Http(_Nats):
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


class _Pulsar(Wire):
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


class _RocketMq(Wire):
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
