"""Pure CloudEvents codecs, one module per protocol binding, plus the JSON event format.

Every module has ``encode(event, mode="binary"|"structured", **overrides) -> <X>Message`` and
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
library), declared once in the binding's ``_<name>.py`` beside its codec ``<name>.py``: the
registry is found from the modules of this package, and every other part of the runtime (and
the generator's command line) loops over it. Importing the registry imports no codec,
pydantic or client library. A binding is its declaration and codec here, its adapter in
``adapters/`` and its module in the generator's ``protocols/``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from types import MappingProxyType

from ._amqp import AmqpBinding as AmqpBinding
from ._amqp import AmqpMessage as AmqpMessage
from ._http import HttpBinding as HttpBinding
from ._http import HttpMessage as HttpMessage
from ._kafka import KafkaBinding as KafkaBinding
from ._kafka import KafkaMessage as KafkaMessage
from ._mqtt import MqttBinding as MqttBinding
from ._mqtt import MqttMessage as MqttMessage
from ._nats import NatsBinding as NatsBinding
from ._nats import NatsMessage as NatsMessage
from ._pulsar import PulsarBinding as PulsarBinding
from ._pulsar import PulsarMessage as PulsarMessage
from ._rocketmq import RocketMqBinding as RocketMqBinding
from ._rocketmq import RocketMqMessage as RocketMqMessage
from ._spec import BindingSpec

__all__ = [
    "BINDINGS",
    "Binding",
    "BindingSpec",
    "WireMessage",
    "by_protocol",
]


def _declared() -> list[BindingSpec]:
    """Every ``_<name>.py`` of this package that has a codec ``<name>.py`` beside it holds a
    binding's declaration (its ``BINDING``)."""
    modules = {
        entry.name.removesuffix(".py")
        for folder in __path__
        for entry in os.scandir(folder)
        if entry.name.endswith(".py")
    }
    found = [
        importlib.import_module(f"{__name__}._{name}").BINDING
        for name in sorted(modules)
        if not name.startswith("_") and "_" + name in modules
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
