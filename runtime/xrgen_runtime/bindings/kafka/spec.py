"""The Kafka binding's declaration: its metadata and wire message types and ``BINDING``.

Read by the registry (``BINDINGS['kafka']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._spec import BindingSpec, array, struct

__all__ = ["BINDING", "KafkaBinding", "KafkaMessage"]


@dataclass(frozen=True, slots=True)
class KafkaBinding:
    topic: str | None = None
    key: bytes | None = None
    partition: int | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, bytes | None], ...] = ()


@dataclass(frozen=True, slots=True)
class KafkaMessage:
    topic: str
    key: bytes | None
    #: ``None`` is a tombstone (binary-mode event without data)
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()
    partition: int | None = None


BINDING = BindingSpec(
    name="kafka",
    family="KAFKA",
    protocols={"KAFKA": {}},
    binding_type=KafkaBinding,
    message_type=KafkaMessage,
    destination="topic",
    # Spark's Kafka source schema
    landing=(
        ("key", "binary"),
        ("value", "binary"),
        ("topic", "string"),
        ("partition", "integer"),
        ("offset", "long"),
        ("timestamp", "timestamp"),
        ("timestampType", "integer"),
        ("headers", array(struct(("key", "string"), ("value", "binary")))),
    ),
    decoder="decode_kafka",
    decoder_doc=(
        "Decode a DataFrame with Spark's Kafka-source schema (binary and structured mode)."
    ),
    # the producer's partitioner may place a record elsewhere
    transit=frozenset({"partition"}),
    order=0,
    requirement="confluent-kafka>=2.3",
    client_modules=frozenset({"confluent_kafka"}),
    title="Kafka broker",
    spark_reader=".bindings.kafka.spark:KafkaWire",
    broker=".testing._brokers:KafkaBroker",
    readdress=".serving._deadletter:_kafka",
)
