"""Intermediate representation: what every target renders from.

Frozen, slotted dataclasses. The IR holds catalog facts and the Python names decided by
``build.py`` (the only place that invents names); it holds no template text and no escaped
strings: turning text into source code is ``literals.py``'s job, at render time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A uritemplate placeholder: its wire name and the Python parameter that carries it."""

    name: str
    py_name: str


@dataclass(frozen=True, slots=True)
class Attribute:
    """A CloudEvents attribute of a message (after basemessage/xref resolution).

    ``kind`` is the xRegistry attribute type (string, uritemplate, uri, urireference, timestamp,
    integer, boolean, binary). ``value`` is the constant (or template text for uritemplate),
    ``None`` when free. ``placeholders`` lists the template's variables in order of appearance.
    """

    name: str
    kind: str
    required: bool
    value: str | int | bool | None
    placeholders: tuple[str, ...] = ()
    #: True for attributes that are not CloudEvents core/optional context attributes
    extension: bool = False
    #: the Python keyword parameter of a free attribute (an extension, or source, subject or
    #: dataschema, without a value); None for others
    py_name: str | None = None


@dataclass(frozen=True, slots=True)
class ProtocolOption:
    """One protocol option: ``path`` into the runtime ``*Binding`` dataclass (see
    ``runtime/xrgen_runtime/_core.py`` ``OptionDef``); ``value`` a constant or a template."""

    path: tuple[str, ...]
    value: str | int | bool
    template: bool = False
    placeholders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Payload:
    """A payload schema, shared by every message that uses an identical schema.

    ``format`` is ``"json"`` (JSON Schema; ``schema`` is the resolved schema with its
    ``$ref``s still in place and ``definitions``/``$defs`` kept) or ``"avro"`` (``schema`` is
    the Avro schema: a record, enum, array, map, union or primitive). ``model_name`` is the
    Python class name the root model gets in ``models.py``.
    """

    key: str
    format: str
    schema: Any
    model_name: str
    #: ``file#/pointer`` of the schema, for diagnostics
    location: str = ""
    #: module-level name of the payload's Spark type in ``spark.py``
    spark_var: str = ""


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    group_id: str
    #: method name in the group's producer, snake case, unique within the group
    py_name: str
    #: decorator name on the group's dispatcher (``on_<py_name>``)
    handler: str
    #: decorator name on the package-wide dispatcher, unique across the package
    package_handler: str
    #: module-level names: the ``MessageDef`` in ``_defs.py``, its ``Emitter`` and its create
    #: function (``MESSAGES[id].create``: every placeholder required) in ``producer.py``
    def_const: str
    emitter: str
    create: str
    #: the ``TypedDict`` in ``consumer.py`` of the placeholder values its handlers receive
    params_class: str
    description: str | None
    envelope: str | None
    attributes: tuple[Attribute, ...]
    protocol: str | None
    options: tuple[ProtocolOption, ...]
    datacontenttype: str | None
    payload: Payload | None
    #: every placeholder of the message, deduplicated, in order of first appearance
    placeholders: tuple[Placeholder, ...]
    #: for an ``xref`` alias: the id of the message it stands for (same definition)
    alias_of: str | None = None
    location: str = ""

    @property
    def ce_type(self) -> str | None:
        for a in self.attributes:
            if a.name == "type" and isinstance(a.value, str) and a.kind != "uritemplate":
                return a.value
        return None


@dataclass(frozen=True, slots=True)
class MessageGroup:
    id: str
    #: Pascal-case stem of the group's names
    py_name: str
    #: classes: ``<py_name>Producer``, ``<py_name>Dispatcher``, the registrations the
    #: package-wide dispatcher inherits (``_<py_name>Handlers``) and those the group's
    #: dispatcher inherits (the same class unless a method name differs package-wide)
    producer_class: str
    dispatcher_class: str
    handlers_class: str
    group_handlers_class: str
    #: module-level names: the group's ``MessageDef`` tuple in ``_defs.py`` and its
    #: ``(MessageDef, create)`` pairs in ``__init__.py``
    defs_const: str
    entries_var: str
    description: str | None
    messages: tuple[Message, ...]
    #: placeholders every message of the group uses (producer constructor arguments)
    common_placeholders: tuple[Placeholder, ...] = ()
    #: the producer's instance attribute holding each common placeholder (same order)
    producer_attrs: tuple[str, ...] = ()
    location: str = ""


@dataclass(frozen=True, slots=True)
class Authorization:
    """One ``protocoloptions.authorization`` entry of an endpoint: metadata, never a
    credential (the generator rejects credentials, XRG188)."""

    type: str | None = None
    mechanism: str | None = None
    resourceuri: str | None = None
    authorityuri: str | None = None


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A catalog endpoint (xRegistry 1.0-rc4), rendered as one object in ``endpoints.py``.

    ``options`` and ``envelope_options`` hold JSON values (rc4 option names; placeholders
    kept); ``uris`` the addresses in preference order (Kafka: the bootstrap servers)."""

    id: str
    #: its attribute in ``NAME.endpoints``
    py_name: str
    #: its dispatcher class in ``consumer.py`` (``Dispatcher``, the package-wide one, for an
    #: endpoint that declares no messages: it takes every message of the package); ``None``
    #: for an endpoint that only sends (usage ``producer``, not HTTP): it receives nothing
    dispatcher_class: str | None
    usage: tuple[str, ...]
    #: canonical protocol id (an unknown protocol as written, upper case); None: abstract
    protocol: str | None
    channel: str | None
    envelope: str | None
    envelope_options: tuple[tuple[str, Any], ...]
    uris: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    authorization: tuple[Authorization, ...]
    deployed: bool
    #: the message groups it carries (its dispatcher registers their messages)
    group_ids: tuple[str, ...]
    #: ids of the messages it carries, catalog order, each once
    message_ids: tuple[str, ...]
    #: every ``{placeholder}`` in its URIs and options (keys and values), sorted
    placeholders: tuple[str, ...]
    description: str | None = None
    location: str = ""


@dataclass(frozen=True, slots=True)
class Catalog:
    groups: tuple[MessageGroup, ...]
    payloads: tuple[Payload, ...]
    #: display names of the input documents (no absolute paths: output is deterministic)
    sources: tuple[str, ...] = ()
    endpoints: tuple[Endpoint, ...] = ()

    def messages(self) -> tuple[Message, ...]:
        return tuple(m for g in self.groups for m in g.messages)
