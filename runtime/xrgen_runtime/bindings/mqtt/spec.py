"""The MQTT binding's declaration (5.0 and 3.1.1): its metadata and wire message types and
``BINDING``.

Read by the registry (``BINDINGS['mqtt']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._spec import BindingSpec, array, struct

__all__ = ["BINDING", "MqttBinding", "MqttMessage"]


@dataclass(frozen=True, slots=True)
class MqttBinding:
    topic: str | None = None
    qos: int = 0
    retain: bool = False
    #: "5.0" or "3.1.1"
    version: str = "5.0"
    #: user properties that are not CloudEvents attributes
    user_properties: tuple[tuple[str, str], ...] = ()
    content_type: str | None = None
    response_topic: str | None = None
    correlation_data: bytes | None = None
    message_expiry_interval: int | None = None
    payload_format_indicator: int | None = None


@dataclass(frozen=True, slots=True)
class MqttMessage:
    topic: str
    payload: bytes
    qos: int = 0
    retain: bool = False
    #: "5.0" or "3.1.1"
    version: str = "5.0"
    content_type: str | None = None
    user_properties: tuple[tuple[str, str], ...] = ()
    response_topic: str | None = None
    correlation_data: bytes | None = None
    message_expiry_interval: int | None = None
    payload_format_indicator: int | None = None


BINDING = BindingSpec(
    name="mqtt",
    family="MQTT",
    protocols={"MQTT/5.0": {"version": "5.0"}, "MQTT/3.1.1": {"version": "3.1.1"}},
    binding_type=MqttBinding,
    message_type=MqttMessage,
    destination="topic",
    landing=(
        ("topic", "string"),
        ("payload", "binary"),
        ("qos", "integer"),
        ("retain", "boolean"),
        ("version", "string"),
        ("content_type", "string"),
        ("user_properties", array(struct(("key", "string"), ("value", "string")))),
        ("response_topic", "string"),
        ("correlation_data", "binary"),
        ("message_expiry_interval", "long"),
        ("payload_format_indicator", "integer"),
    ),
    decoder="decode_mqtt",
    decoder_doc="Decode landed MQTT messages (LANDING_SCHEMAS['mqtt']).",
    # brokers downgrade qos, clear retain on delivery and count the expiry down
    transit=frozenset({"qos", "retain", "message_expiry_interval"}),
    attribute_entries=frozenset({"user_properties"}),
    order=2,
    requirement="paho-mqtt>=2.0",
    client_modules=frozenset({"paho"}),
    title="MQTT 5.0/3.1.1 broker",
    spark_reader=".bindings.mqtt.spark:MqttWire",
    broker=".testing._brokers:MqttBroker",
    readdress=".serving._deadletter:_mqtt",
)
