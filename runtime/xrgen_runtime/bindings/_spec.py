"""What a protocol binding declares (:class:`BindingSpec`) and the landing-schema vocabulary.

Every binding is one package, ``bindings/<name>/``, whose declaration module ``spec.py`` holds
its ``*Binding`` and ``*Message`` dataclasses and one ``BINDING = BindingSpec(...)``;
``xrgen_runtime.bindings.BINDINGS`` lists them. Dispatch,
produce, the Spark decoders, the testing brokers and the generator read these declarations
instead of holding their own lists of bindings.

Standard library only: the generator's command line reads the declarations without importing
pydantic, a codec or a client library.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = [
    "BindingSpec",
    "LandingField",
    "LandingType",
    "array",
    "codec_attribute",
    "load",
    "mapping",
    "spark_json",
    "struct",
]

#: A landing column type without pyspark: a Spark atomic type name (``"string"``,
#: ``"binary"``, ``"integer"``, ``"long"``, ``"boolean"``, ``"timestamp"``), or a tuple made
#: by :func:`array`, :func:`mapping` or :func:`struct`.
LandingType = str | tuple[Any, ...]
#: ``(column name, type)``; every landing column is nullable
LandingField = tuple[str, LandingType]


def array(element: LandingType) -> LandingType:
    """An array column of ``element`` values."""
    return ("array", element)


def mapping(key: LandingType, value: LandingType) -> LandingType:
    """A map column."""
    return ("map", key, value)


def struct(*fields: LandingField) -> LandingType:
    """A struct column of ``fields``."""
    return ("struct", fields)


def spark_json(kind: LandingType) -> Any:
    """``kind`` in Spark's JSON schema form (what ``StructType.fromJson`` and
    ``DataType.fromJson`` read): every field nullable, every container holding nulls."""
    if isinstance(kind, str):
        return kind
    tag = kind[0]
    if tag == "array":
        return {
            "type": "array",
            "elementType": spark_json(kind[1]),
            "containsNull": True,
        }
    if tag == "map":
        return {
            "type": "map",
            "keyType": spark_json(kind[1]),
            "valueType": spark_json(kind[2]),
            "valueContainsNull": True,
        }
    if tag == "struct":
        return {
            "type": "struct",
            "fields": [
                {
                    "name": name,
                    "type": spark_json(sub),
                    "nullable": True,
                    "metadata": {},
                }
                for name, sub in kind[1]
            ],
        }
    raise ValueError(f"not a landing type: {kind!r}")


#: the runtime's package (``xrgen_runtime``)
_RUNTIME = __package__.rpartition(".")[0]


def load(ref: str) -> Any:
    """The object ``ref`` names: ``"module:name"``; a module starting with ``.`` is in the
    runtime's package (``".testing._brokers:KafkaBroker"``)."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module, _RUNTIME), name)


def codec_attribute(package: str, name: str) -> Any:
    """Attribute ``name`` of the codec of the binding package ``package`` (its module
    ``__getattr__``): the package exposes its codec's names, and the codec (which imports
    pydantic) is imported on first use, not by the registry reading the declaration."""
    if name.startswith("__"):
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    codec = importlib.import_module(package + ".codec")
    # the package's names become its own attributes: later reads skip ``__getattr__``
    module = sys.modules[package]
    for public in getattr(module, "__all__", ()):
        if public not in module.__dict__ and hasattr(codec, public):
            setattr(module, public, getattr(codec, public))
    try:
        return getattr(codec, name)
    except AttributeError:
        raise AttributeError(f"module {package!r} has no attribute {name!r}") from None


@dataclass(frozen=True, slots=True, eq=False)
class BindingSpec:
    """Everything the runtime knows about one protocol binding, declared once (one instance
    per binding: compared and hashed by identity).

    ``name`` names the binding's package ``xrgen_runtime.bindings.<name>`` (its modules
    ``spec``, ``codec``, ``adapter``, ``endpoint`` and ``spark``; the package itself exposes the
    codec's names), its ``LANDING_SCHEMAS`` key in Spark and its attribute of
    ``xrgen_runtime.testing.Brokers``.
    """

    #: ``"kafka"``, ``"amqp"``, ...
    name: str
    #: the protocol family wire messages are compared by (``"MQTT"`` for both MQTT versions)
    family: str
    #: canonical protocol id (``MessageDef.protocol``: ``"MQTT/5.0"``) -> the values of
    #: ``binding_type`` fields that the protocol itself implies (``{"version": "5.0"}``)
    protocols: Mapping[str, Mapping[str, object]]
    #: the protocol metadata an event carries (``KafkaBinding``)
    binding_type: type
    #: the wire message the codec produces and consumes and the adapter moves
    #: (``KafkaMessage``)
    message_type: type
    #: the field of ``binding_type`` and of ``message_type`` that names where a message goes
    #: (a topic, subject, address or path): ``messaging.destination.name`` in telemetry
    destination: str
    #: the landing schema of ``message_type`` in a lake (a struct's fields, see
    #: :func:`spark_json`); Spark's Kafka source schema for Kafka
    landing: tuple[LandingField, ...]
    #: the Spark decoder function of a generated ``spark.py`` for that landing shape, and its
    #: documentation
    decoder: str
    decoder_doc: str
    #: the binding's place in ``BINDINGS`` (the order the bindings are documented in)
    order: int
    #: the client library the adapter drives: the requirement of the runtime's extra named
    #: like the binding (``"confluent-kafka>=2.3"``) and the top-level modules it installs
    #: (a generated package must not be named like them)
    requirement: str
    client_modules: frozenset[str]
    #: what the in-memory broker stands for, in its pytest fixture's documentation
    #: (``"Kafka broker"``)
    title: str
    #: where the binding's other parts live, as ``"module:name"`` (a module starting with
    #: ``.`` is in the runtime's package; imported on first use by :func:`load`): the Spark
    #: reader of the landing shape (a subclass of ``xrgen_runtime.spark.wires.Wire``, built
    #: with this declaration), the in-memory broker class of ``xrgen_runtime.testing``, and
    #: the function giving a copy of a wire message addressed to a dead-letter destination
    #: ``(message, destination, reason, detail)``
    spark_reader: str
    broker: str
    readdress: str
    #: ``binding_type`` fields that brokers may change in transit: never matched
    transit: frozenset[str] = frozenset()
    #: fields of name/value entries whose names are case-insensitive (HTTP and NATS headers)
    caseless: frozenset[str] = frozenset()
    #: fields whose values compare in upper case (the HTTP method)
    upper: frozenset[str] = frozenset()
    #: fields of name/value entries that a binary-mode event carries as its CloudEvents
    #: attributes (MQTT 5 user properties, named exactly as the attributes)
    attribute_entries: frozenset[str] = frozenset()

    @property
    def package(self) -> str:
        """The binding's package (``xrgen_runtime.bindings.kafka``)."""
        return f"{__package__}.{self.name}"

    @property
    def codec_module(self) -> str:
        """The codec: ``encode(event, mode, **overrides)`` and ``decode(message)``."""
        return f"{self.package}.codec"

    @property
    def adapter_module(self) -> str:
        """The client-library adapter (imports its client library when imported)."""
        return f"{self.package}.adapter"

    @property
    def endpoint_module(self) -> str:
        """The adapter's endpoint support: how the binding's endpoint options (xRegistry
        1.0-rc4) become client settings and adapters (``xrgen_runtime.endpoints``)."""
        return f"{self.package}.endpoint"

    @property
    def stem(self) -> str:
        """The class-name stem of the binding's types (``"Kafka"``, ``"RocketMq"``), which
        its adapter's and in-memory broker's classes share (``KafkaSender``,
        ``KafkaBroker``)."""
        return self.message_type.__name__.removesuffix("Message")

    def codec(self) -> ModuleType:
        """The codec module (imported on first use)."""
        return importlib.import_module(self.codec_module)

    def part(self, ref: str) -> Any:
        """The object a ``"module:name"`` field names (``spec.part(spec.broker)``)."""
        return load(ref)

    def landing_json(self) -> Any:
        """The landing schema in Spark's JSON schema form (``StructType.fromJson``)."""
        return spark_json(struct(*self.landing))
