"""The Apache Pulsar binding's declaration: its metadata and wire message types and
``BINDING``.

Read by the registry (``BINDINGS['pulsar']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .._spec import BindingSpec, mapping

__all__ = ["BINDING", "PulsarBinding", "PulsarMessage"]


@dataclass(frozen=True, slots=True)
class PulsarBinding:
    topic: str | None = None
    partition_key: str | None = None
    #: non-CloudEvents properties
    properties: Mapping[str, str] = field(default_factory=dict)
    event_time: int | None = None


@dataclass(frozen=True, slots=True)
class PulsarMessage:
    topic: str
    payload: bytes
    properties: Mapping[str, str] = field(default_factory=dict)
    partition_key: str | None = None
    #: event time in milliseconds since the epoch
    event_time: int | None = None


BINDING = BindingSpec(
    name="pulsar",
    family="PULSAR",
    protocols={"PULSAR": {}},
    binding_type=PulsarBinding,
    message_type=PulsarMessage,
    destination="topic",
    landing=(
        ("topic", "string"),
        ("payload", "binary"),
        ("properties", mapping("string", "string")),
        ("partition_key", "string"),
        ("event_time", "long"),
    ),
    decoder="decode_pulsar",
    decoder_doc="Decode landed Pulsar messages (LANDING_SCHEMAS['pulsar']).",
    # set by the sending client
    transit=frozenset({"event_time"}),
    order=5,
    requirement="pulsar-client>=3.4",
    client_modules=frozenset({"pulsar"}),
    title="Pulsar broker",
    spark_reader=".bindings.pulsar.spark:PulsarWire",
    broker=".testing._brokers:PulsarBroker",
    readdress=".serving._deadletter:_pulsar",
)
