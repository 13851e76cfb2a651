"""The AMQP 1.0 binding's declaration: its metadata and wire message types and ``BINDING``.

Read by the registry (``BINDINGS['amqp']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._spec import BindingSpec, mapping, struct

__all__ = ["BINDING", "AmqpBinding", "AmqpMessage"]


@dataclass(frozen=True, slots=True)
class AmqpBinding:
    #: target node address (AMQP ``to`` / link target) when known
    address: str | None = None
    #: AMQP properties section by AMQP field name (``message-id``, ``subject``, ``to``, ...)
    properties: Mapping[str, Any] = field(default_factory=dict)
    #: application-properties that are not CloudEvents attributes
    application_properties: Mapping[str, Any] = field(default_factory=dict)
    message_annotations: Mapping[str, Any] = field(default_factory=dict)
    header: Mapping[str, Any] = field(default_factory=dict)
    footer: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AmqpMessage:
    body: bytes | None
    #: properties section by AMQP field name: ``message-id``, ``user-id``, ``to``, ``subject``,
    #: ``reply-to``, ``correlation-id``, ``content-type``, ``content-encoding``,
    #: ``absolute-expiry-time``, ``creation-time``, ``group-id``, ``group-sequence``,
    #: ``reply-to-group-id``
    properties: Mapping[str, Any] = field(default_factory=dict)
    #: values are AMQP-native Python values: bool, int, float, str, bytes, datetime (timestamp)
    application_properties: Mapping[str, Any] = field(default_factory=dict)
    message_annotations: Mapping[str, Any] = field(default_factory=dict)
    header: Mapping[str, Any] = field(default_factory=dict)
    footer: Mapping[str, Any] = field(default_factory=dict)
    #: link target address the message is sent to / was received from (not a message section)
    address: str | None = None


_STRINGS = mapping("string", "string")

BINDING = BindingSpec(
    name="amqp",
    family="AMQP",
    protocols={"AMQP/1.0": {}},
    binding_type=AmqpBinding,
    message_type=AmqpMessage,
    destination="address",
    # application properties, annotations and footer hold canonical CloudEvents strings
    # (``true``, RFC 3339 timestamps, base64)
    landing=(
        ("body", "binary"),
        (
            "properties",
            struct(
                ("message_id", "string"),
                ("user_id", "binary"),
                ("to", "string"),
                ("subject", "string"),
                ("reply_to", "string"),
                ("correlation_id", "string"),
                ("content_type", "string"),
                ("content_encoding", "string"),
                ("absolute_expiry_time", "timestamp"),
                ("creation_time", "timestamp"),
                ("group_id", "string"),
                ("group_sequence", "long"),
                ("reply_to_group_id", "string"),
            ),
        ),
        ("application_properties", _STRINGS),
        ("message_annotations", _STRINGS),
        (
            "header",
            struct(
                ("durable", "boolean"),
                ("priority", "integer"),
                ("ttl", "long"),
                ("first_acquirer", "boolean"),
                ("delivery_count", "long"),
            ),
        ),
        ("footer", _STRINGS),
        ("address", "string"),
    ),
    decoder="decode_amqp",
    decoder_doc="Decode landed AMQP 1.0 messages (LANDING_SCHEMAS['amqp']).",
    order=1,
    requirement="python-qpid-proton>=0.39",
    client_modules=frozenset({"proton"}),
    title="AMQP 1.0 broker",
    spark_reader=".bindings.amqp.spark:AmqpWire",
    broker=".testing._brokers:AmqpBroker",
    readdress=".serving._deadletter:_amqp",
)
