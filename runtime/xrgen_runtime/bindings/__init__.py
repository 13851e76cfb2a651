"""Pure CloudEvents codecs, one package per protocol binding, plus the JSON event format.

Every binding's package (its codec) has ``encode(event, mode="binary"|"structured", **overrides) -> <X>Message`` and
``decode(message) -> Event`` (HTTP also ``encode_batch``/``decode_batch``; ``jsonformat`` works
on bytes). No client library is imported: the wire types are frozen dataclasses, moved by the
adapters.

``decode`` raises only ``DecodeError``; its ``reason`` is one of these stable codes:

- ``invalid-json``: a structured body (or JSON-format document) is not JSON / not an object
- ``invalid-batch``: a batch body is not a JSON array
- ``invalid-encoding``: bad UTF-8, bad percent-encoding, bad base64, bad quoted-string
- ``missing-attribute``: ``specversion``, ``id``, ``source`` or ``type`` is absent
- ``invalid-specversion``: ``specversion`` is not ``"1.0"``
- ``invalid-attribute``: an attribute value has the wrong type or form (empty ``id``, bad
  RFC 3339 ``time``, Integer out of the 32-bit range, non-absolute ``dataschema``, ...)
- ``invalid-attribute-name``: a CloudEvents name that is not ``[a-z0-9]+`` (or is ``data``)
- ``duplicate-attribute``: the same attribute (or content type) appears twice
- ``mixed-separators``: an AMQP message mixes ``cloudEvents_`` and ``cloudEvents:``
- ``invalid-data``: ``data`` and ``data_base64`` together, or non-string ``data`` with a
  non-JSON ``datacontenttype``
- ``unsupported-format``: structured mode in a format other than JSON (e.g. ``+avro``), or
  batch mode outside HTTP
- ``unexpected-batch``: ``http.decode`` got a batch (use ``http.decode_batch``)
- ``invalid-message``: the message object itself is malformed (wrong field types)

A message without any CloudEvents attribute (and not in structured mode) is a plain protocol
message: ``Event(attributes={}, data=payload, binding=<X>Binding(...))``; encoding such an event
writes the raw payload and the binding metadata.

The package itself is the registry of bindings: ``BINDINGS`` maps each binding's name to its
declaration (:class:`BindingSpec`: types, family, protocols, transit and case-insensitive
fields, codec and adapter modules, Spark landing shape and reader, in-memory broker, client
library). A binding is one package here, ``bindings/<name>/``: its declaration ``spec.py``, its
codec ``codec.py`` (whose names the package exposes: ``bindings.kafka.encode``), its
client-library adapter ``adapter.py``, its endpoint support ``endpoint.py`` and its Spark reader
``spark.py``; with its module in the generator's ``protocols/``, that is all of it. The registry
is found from the packages here that hold a ``spec.py``, and every other part of the runtime
(and the generator's command line) loops over it. Importing the registry imports the
declarations only: no codec, pydantic or client library.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import MappingProxyType

from ._spec import BindingSpec
from .amqp.spec import AmqpBinding as AmqpBinding
from .amqp.spec import AmqpMessage as AmqpMessage
from .http.spec import HttpBinding as HttpBinding
from .http.spec import HttpMessage as HttpMessage
from .kafka.spec import KafkaBinding as KafkaBinding
from .kafka.spec import KafkaMessage as KafkaMessage
from .mqtt.spec import MqttBinding as MqttBinding
from .mqtt.spec import MqttMessage as MqttMessage
from .nats.spec import NatsBinding as NatsBinding
from .nats.spec import NatsMessage as NatsMessage
from .pulsar.spec import PulsarBinding as PulsarBinding
from .pulsar.spec import PulsarMessage as PulsarMessage
from .rocketmq.spec import RocketMqBinding as RocketMqBinding
from .rocketmq.spec import RocketMqMessage as RocketMqMessage

__all__ = [
    "BINDINGS",
    "Binding",
    "BindingSpec",
    "WireMessage",
    "by_protocol",
]


def _declared() -> list[BindingSpec]:
    """Every package of this package that holds a ``spec.py`` is a binding: that module holds
    its declaration (its ``BINDING``)."""
    names = {
        entry.name
        for folder in __path__
        for entry in os.scandir(folder)
        if entry.is_dir()
        and not entry.name.startswith("_")
        and os.path.isfile(os.path.join(entry.path, "spec.py"))
    }
    found = [
        importlib.import_module(f"{__name__}.{name}.spec").BINDING
        for name in sorted(names)
    ]
    return sorted(found, key=lambda b: (b.order, b.name))


#: binding name -> its declaration, in the order the bindings are documented
BINDINGS: Mapping[str, BindingSpec] = MappingProxyType({b.name: b for b in _declared()})

#: Protocol metadata carried by an event: filled by producers from the message definition's
#: protocol options, and by decoders from the wire message (one type per binding).
Binding = (
    KafkaBinding
    | AmqpBinding
    | MqttBinding
    | NatsBinding
    | HttpBinding
    | PulsarBinding
    | RocketMqBinding
)
#: What the codecs produce and consume and the adapters move (one type per binding).
WireMessage = (
    KafkaMessage
    | AmqpMessage
    | MqttMessage
    | NatsMessage
    | HttpMessage
    | PulsarMessage
    | RocketMqMessage
)

_BY_PROTOCOL = {p: b for b in BINDINGS.values() for p in b.protocols}


def by_protocol(protocol: str | None) -> BindingSpec | None:
    """The binding of a canonical protocol id (``MessageDef.protocol``: ``"KAFKA"``,
    ``"MQTT/3.1.1"``, ...); ``None`` for no protocol or an unknown one."""
    return _BY_PROTOCOL.get(protocol or "")
