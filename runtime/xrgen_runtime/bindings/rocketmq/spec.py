"""The Apache RocketMQ binding's declaration: its metadata and wire message types and
``BINDING``.

Read by the registry (``BINDINGS['rocketmq']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .._spec import BindingSpec, array, mapping

__all__ = ["BINDING", "RocketMqBinding", "RocketMqMessage"]


@dataclass(frozen=True, slots=True)
class RocketMqBinding:
    topic: str | None = None
    tag: str | None = None
    keys: tuple[str, ...] = ()
    #: non-CloudEvents user properties
    properties: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RocketMqMessage:
    topic: str
    body: bytes
    properties: Mapping[str, str] = field(default_factory=dict)
    tag: str | None = None
    keys: tuple[str, ...] = ()


BINDING = BindingSpec(
    name="rocketmq",
    family="ROCKETMQ",
    protocols={"ROCKETMQ": {}},
    binding_type=RocketMqBinding,
    message_type=RocketMqMessage,
    destination="topic",
    landing=(
        ("topic", "string"),
        ("body", "binary"),
        ("properties", mapping("string", "string")),
        ("tag", "string"),
        ("keys", array("string")),
    ),
    decoder="decode_rocketmq",
    decoder_doc="Decode landed RocketMQ messages (LANDING_SCHEMAS['rocketmq']).",
    order=6,
    requirement="rocketmq-python-client>=5.0",
    client_modules=frozenset({"rocketmq"}),
    title="RocketMQ broker",
    spark_reader=".bindings.rocketmq.spark:RocketMqWire",
    broker=".testing._brokers:RocketMqBroker",
    readdress=".serving._deadletter:_rocketmq",
)
