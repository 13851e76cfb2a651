"""The landing shapes of the Spark decoder: their schemas and how each one is read.

``LANDING_SCHEMAS[binding]`` is the DataFrame schema that wire messages of a binding land in
(mirroring the runtime's ``*Message`` types); a :class:`_Wire` reads the CloudEvents
attributes, content type, payload and protocol options of rows of that shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from . import _spark_sql as S
from ._spark_columns import (
    _any,
    _media_is_cloudevents,
    _pair,
    _pct_decoded,
    _pct_invalid,
    _starts_caseless,
    _text,
)
from ._spark_sql import Expr as X

_S = StringType()
_PAIRS = ArrayType(StructType([StructField("key", _S), StructField("value", _S)]))
_SMAP = MapType(_S, _S)


#: Landing schemas of wire messages (mirroring the ``*Message`` dataclasses of ``_core``).
#: ``kafka`` is Spark's Kafka source schema. AMQP application properties, annotations and
#: footer hold canonical CloudEvents strings (``true``, RFC 3339 timestamps, base64).
LANDING_SCHEMAS: dict[str, StructType] = {
    "kafka": StructType(
        [
            StructField("key", BinaryType()),
            StructField("value", BinaryType()),
            StructField("topic", _S),
            StructField("partition", IntegerType()),
            StructField("offset", LongType()),
            StructField("timestamp", TimestampType()),
            StructField("timestampType", IntegerType()),
            StructField(
                "headers",
                ArrayType(
                    StructType(
                        [StructField("key", _S), StructField("value", BinaryType())]
                    )
                ),
            ),
        ]
    ),
    "amqp": StructType(
        [
            StructField("body", BinaryType()),
            StructField(
                "properties",
                StructType(
                    [
                        StructField("message_id", _S),
                        StructField("user_id", BinaryType()),
                        StructField("to", _S),
                        StructField("subject", _S),
                        StructField("reply_to", _S),
                        StructField("correlation_id", _S),
                        StructField("content_type", _S),
                        StructField("content_encoding", _S),
                        StructField("absolute_expiry_time", TimestampType()),
                        StructField("creation_time", TimestampType()),
                        StructField("group_id", _S),
                        StructField("group_sequence", LongType()),
                        StructField("reply_to_group_id", _S),
                    ]
                ),
            ),
            StructField("application_properties", _SMAP),
            StructField("message_annotations", _SMAP),
            StructField(
                "header",
                StructType(
                    [
                        StructField("durable", BooleanType()),
                        StructField("priority", IntegerType()),
                        StructField("ttl", LongType()),
                        StructField("first_acquirer", BooleanType()),
                        StructField("delivery_count", LongType()),
                    ]
                ),
            ),
            StructField("footer", _SMAP),
            StructField("address", _S),
        ]
    ),
    "mqtt": StructType(
        [
            StructField("topic", _S),
            StructField("payload", BinaryType()),
            StructField("qos", IntegerType()),
            StructField("retain", BooleanType()),
            StructField("version", _S),
            StructField("content_type", _S),
            StructField("user_properties", _PAIRS),
            StructField("response_topic", _S),
            StructField("correlation_data", BinaryType()),
            StructField("message_expiry_interval", LongType()),
            StructField("payload_format_indicator", IntegerType()),
        ]
    ),
    "nats": StructType(
        [
            StructField("subject", _S),
            StructField("payload", BinaryType()),
            StructField("headers", _PAIRS),
            StructField("reply", _S),
        ]
    ),
    "http": StructType(
        [
            StructField("method", _S),
            StructField("path", _S),
            StructField("headers", _PAIRS),
            StructField("body", BinaryType()),
            StructField("status", IntegerType()),
        ]
    ),
    "pulsar": StructType(
        [
            StructField("topic", _S),
            StructField("payload", BinaryType()),
            StructField("properties", _SMAP),
            StructField("partition_key", _S),
            StructField("event_time", LongType()),
        ]
    ),
    "rocketmq": StructType(
        [
            StructField("topic", _S),
            StructField("body", BinaryType()),
            StructField("properties", _SMAP),
            StructField("tag", _S),
            StructField("keys", ArrayType(_S)),
        ]
    ),
}


class _Wire:
    """Reads one landing shape. Subclasses set the class attributes and override readers."""

    family: str | None = None
    payload = "payload"
    lineage: tuple[str, ...] = ()
    fields: dict[str, str] = {}

    def content_type(self) -> X:
        """The protocol content type (structured-mode detection)."""
        return S.lit(None).cast("string")

    def structured(self) -> X:
        return _media_is_cloudevents(self.content_type())

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
            return _text(S.col(self.fields[path[0]]))
        if len(path) == 2:
            return self.keyed(path[0], path[1])
        return None

    def keyed(self, field: str, key: str) -> X | None:
        return None


class _Kafka(_Wire):
    family = "KAFKA"
    payload = "value"
    lineage = ("topic", "partition", "offset", "timestamp")
    fields = {"topic": "topic", "partition": "partition", "key": "key"}

    def payload_bytes(self) -> X:
        return S.col("value")  # a null value (tombstone) is no data; b"" stays b""

    def content_type(self) -> X:
        return _text(_pair(S.col("headers"), "content-type"))

    def attribute(self, name: str) -> X:
        return _text(_pair(S.col("headers"), "ce_" + name))

    def keyed(self, field: str, key: str) -> X | None:
        return _text(_pair(S.col("headers"), key)) if field == "headers" else None


class _Amqp(_Wire):
    family = "AMQP"
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
            return _text(S.col("properties").getField(key.replace("-", "_")))
        if field in ("application_properties", "message_annotations", "footer"):
            return S.col(field)[key]
        if field == "header":
            return _text(S.col("header").getField(key.replace("-", "_")))
        return None


class _Mqtt(_Wire):
    family = "MQTT"
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
        return (S.col("version") == "3.1.1") | _media_is_cloudevents(
            self.content_type()
        )

    def attribute(self, name: str) -> X:
        return _pair(S.col("user_properties"), name)

    def keyed(self, field: str, key: str) -> X | None:
        return _pair(S.col(field), key) if field == "user_properties" else None


class _Nats(_Wire):
    family = "NATS"
    lineage: tuple[str, ...] = ("subject",)
    fields = {"subject": "subject", "reply": "reply"}

    def content_type(self) -> X:
        return _pair(S.col("headers"), "content-type", caseless=True)

    def structured(self) -> X:
        """``Content-Type`` says so, or no ``ce-`` headers and a JSON object payload."""
        ce_header = self.attribute("specversion").isNotNull()
        json_object = S.fn("ltrim", _text(S.col(self.payload))).startswith("{")
        plain = ~ce_header & S.coalesce(json_object, False)
        return _media_is_cloudevents(self.content_type()) | plain

    def attribute(self, name: str) -> X:
        return _pct_decoded(self._raw_attribute(name))

    def _raw_attribute(self, name: str) -> X:
        return _pair(S.col("headers"), "ce-" + name, caseless=True)

    def attribute_invalid(self, names: Sequence[str]) -> X | None:
        return _any([_pct_invalid(self._raw_attribute(n)) for n in names])

    def datacontenttype(self) -> X:
        return self.attribute("datacontenttype")

    def keyed(self, field: str, key: str) -> X | None:
        if field == "headers":
            return _pair(S.col("headers"), key, caseless=True)
        return None


class _Http(_Nats):
    family = "HTTP"
    payload = "body"
    lineage = ("method", "path")
    fields = {"method": "method", "status": "status"}

    def structured(self) -> X:
        return _media_is_cloudevents(self.content_type())

    def datacontenttype(self) -> X:
        return self.content_type()

    def unsupported(self) -> X:
        return _starts_caseless(self.content_type(), "application/cloudevents-batch")

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


class _Pulsar(_Wire):
    family = "PULSAR"
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


class _RocketMq(_Wire):
    family = "ROCKETMQ"
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


class _Json(_Wire):
    payload = "value"

    def structured(self) -> X:
        return S.lit(True)

    def attribute(self, name: str) -> X:
        return S.lit(None).cast("string")

    def payload_bytes(self) -> X:
        return S.col("value").cast("binary")


_WIRES: dict[str, _Wire] = {
    "kafka": _Kafka(),
    "amqp": _Amqp(),
    "mqtt": _Mqtt(),
    "nats": _Nats(),
    "http": _Http(),
    "pulsar": _Pulsar(),
    "rocketmq": _RocketMq(),
    "json": _Json(),
}
