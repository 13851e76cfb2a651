"""Event construction for the generated producers.

An ``Emitter`` is built once per message definition at import time: it precomputes the
constant attributes (in canonical Python types), compiles the uritemplate attributes and
protocol options, and picks the ``*Binding`` class that the protocol's binding declares
(``xrgen_runtime.bindings.BINDINGS``). ``emit`` then only copies the constants, expands
templates (RFC 6570 level 1: values are percent-encoded), fills ``id`` (uuid4, ``new_id``) and
``time`` (now, UTC) unless given, validates a dict payload into its model, and builds the
binding metadata.
"""

from __future__ import annotations

import base64
import typing
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from pydantic import BaseModel

from ._cloudevents import AttrValue
from ._definitions import MessageDef
from ._event import Event
from ._hooks import HOOKS
from ._ids import _ID_POOL, new_id
from ._uritemplate import UriTemplate
from .bindings import Binding, by_protocol
from .formats import plain_content_type

M = TypeVar("M")

#: the hook slot: an observer in it (``xrgen_runtime.otel``) sees every created event
_HOOKS = HOOKS

_UTC = timezone.utc
_now = datetime.now
_pop_id = _ID_POOL.pop

#: how an option value becomes the value of a ``*Binding`` field, by the field's type:
#: ``int``, ``bool``, ``bytes`` (UTF-8 text), name/value pairs with ``bytes`` or ``str``
#: values (``bytes-pairs``, ``pairs``); any other field takes the value as is (a mapping for
#: name/value options)
_KINDS: tuple[tuple[object, str], ...] = (
    (int, "int"),
    (int | None, "int"),
    (bool, "bool"),
    (bytes | None, "bytes"),
    (tuple[tuple[str, bytes | None], ...], "bytes-pairs"),
    (tuple[tuple[str, str], ...], "pairs"),
)
#: binding type -> field name -> its kind (see ``_KINDS``)
_FIELD_KINDS: dict[type, dict[str, str]] = {}


def _field_kinds(cls: type | None) -> dict[str, str]:
    """The kinds of the fields of the binding type ``cls`` (computed once per type)."""
    if cls is None:
        return {}
    kinds = _FIELD_KINDS.get(cls)
    if kinds is None:
        hints = typing.get_type_hints(cls)
        kinds = _FIELD_KINDS[cls] = {
            name: next((kind for t, kind in _KINDS if hint == t), "value")
            for name, hint in hints.items()
        }
    return kinds


def pick(value: str | None, default: str | None, name: str) -> str:
    """A group-level placeholder: the call's value, else the producer's, else an error."""
    if value is not None:
        return value
    if default is not None:
        return default
    raise TypeError(f"missing value for placeholder {name!r}")


def _canonical(kind: str, value: str | int | bool) -> AttrValue:
    if kind == "timestamp" and isinstance(value, str):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    if kind == "integer" and isinstance(value, str):
        return int(value)
    if kind == "boolean" and isinstance(value, str):
        return value == "true"
    if kind == "binary" and isinstance(value, str):
        return base64.b64decode(value)
    return value


class Emitter:
    """Builds events for one message definition (see the module docstring)."""

    __slots__ = (
        "definition",
        "cloudevents",
        "constants",
        "templates",
        "model",
        "binding_cls",
        "field_kinds",
        "binding_base",
        "binding_dicts",
        "scalar_templates",
        "map_constants",
        "map_templates",
        "fixed_binding",
        "prefix",
        "content_type",
        "simple",
        "validate",
    )

    def __init__(self, definition: MessageDef) -> None:
        self.definition = definition
        self.cloudevents = definition.envelope is not None
        self.model = definition.model
        #: the payload's content type of a plain message whose payload is not JSON (its
        #: events carry it: see ``Event.content_type``)
        self.content_type = plain_content_type(definition)
        self.constants: dict[str, AttrValue] = {}
        #: (name, template, its text when it has no placeholders: then nothing to expand);
        #: after ``__init__`` only those that follow the last attribute in ``prefix``
        self.templates: list[tuple[str, UriTemplate, str | None]] = []
        for a in definition.attributes:
            if a.value is None:
                continue
            if a.kind == "uritemplate" and isinstance(a.value, str):
                template = UriTemplate(a.value)
                text = None if template.names else template.expand({})
                self.templates.append((a.name, template, text))
            else:
                self.constants[a.name] = _canonical(a.kind, a.value)
        #: ``constants`` followed by the texts of the leading templates without placeholders:
        #: what ``attributes`` holds after copying the constants and expanding those templates
        #: (same values, same order), so it starts from a copy of this instead
        self.prefix: dict[str, AttrValue] = dict(self.constants)
        static = 0
        for name, _, text in self.templates:
            if text is None:
                break
            self.prefix[name] = text
            static += 1
        del self.templates[:static]  # the rest, still expanded per call
        #: ``emit`` without extensions starts from a copy of ``prefix`` (no templates left)
        self.simple = self.cloudevents and not self.templates
        #: ``model_validate`` of the definition's model without its Python-level wrapper
        self.validate: Any = (
            self.model.__pydantic_validator__.validate_python
            if self.model is not None
            else None
        )
        binding = by_protocol(definition.protocol)
        self.binding_cls = binding.binding_type if binding is not None else None
        self.field_kinds = _field_kinds(self.binding_cls)
        self._compile_binding(definition)

    def _compile_binding(self, definition: MessageDef) -> None:
        """Convert everything that does not depend on placeholder values once."""
        cls = self.binding_cls
        kinds = self.field_kinds
        binding = by_protocol(definition.protocol)
        # the field values the protocol itself implies (MQTT's ``version``)
        base: dict[str, Any] = (
            dict(binding.protocols[definition.protocol or ""]) if binding else {}
        )
        templated = {o.path[0] for o in definition.options if o.template}
        maps: dict[str, dict[str, Any]] = {}
        self.scalar_templates: list[tuple[str, UriTemplate]] = []
        self.map_templates: list[tuple[str, str, UriTemplate]] = []
        for o in definition.options:
            field = o.path[0]
            if o.template and isinstance(o.value, str):
                if len(o.path) == 1:
                    self.scalar_templates.append((field, UriTemplate(o.value)))
                else:
                    self.map_templates.append((field, o.path[1], UriTemplate(o.value)))
            elif len(o.path) == 1:
                base[field] = _scalar(kinds, field, o.value)
            else:
                maps.setdefault(field, {})[o.path[1]] = o.value
        #: constant map fields of fields that also have templates (merged per call)
        self.map_constants = {f: m for f, m in maps.items() if f in templated}
        for field, entries in maps.items():
            if field not in templated:
                base[field] = _map_field(kinds, field, entries)
        self.binding_base = base
        #: mapping-valued fields are copied per event so events never share a mutable dict
        self.binding_dicts = tuple(f for f, v in base.items() if isinstance(v, dict))
        constant = not self.scalar_templates and not self.map_templates
        self.fixed_binding: Binding | None = (
            cls(**base)
            if cls is not None and constant and not self.binding_dicts
            else None
        )

    def emit(
        self,
        model: type[M],
        data: M | Mapping[str, Any],
        values: Mapping[str, str],
        id: str | None,
        time: datetime | None,
        extensions: Mapping[str, AttrValue | None],
    ) -> Event[M]:
        if self.simple and not extensions:
            # ``self.attributes(...)`` for the usual definition: constants and constant
            # templates (``prefix``), then ``id`` and ``time``
            attributes = dict(self.prefix)
            if id is None:
                try:  # ``new_id()`` without its call
                    id = _pop_id()
                except IndexError:
                    id = new_id()
            attributes["id"] = id
            attributes["time"] = time if time is not None else _now(_UTC)
        else:
            attributes = self.attributes(values, id, time, extensions)
        payload: Any = data
        # the definition's own model first: no subclass checks for it
        if model is self.model:
            if data.__class__ is dict:
                payload = self.validate(data)
            elif not isinstance(data, model):
                payload = self.validate(data)
        elif isinstance(model, type) and issubclass(model, BaseModel):
            cls = data.__class__
            # a plain ``dict`` is never an instance of a model (pydantic's metaclass admits no
            # virtual subclasses), so the usual call skips the ``isinstance`` (~0.1 us)
            if cls is not model and (cls is dict or not isinstance(data, model)):
                # ``model.model_validate(data)`` without its Python-level wrapper
                payload = model.__pydantic_validator__.validate_python(data)
        fixed = self.fixed_binding
        event = Event(
            attributes,
            payload,
            fixed if fixed is not None else self.binding(values),
            self.content_type,
        )
        observer = _HOOKS.observer
        if observer is not None:
            observer.created(self, event)
        return event

    def emit_raw(
        self,
        data: bytes | None,
        values: Mapping[str, str],
        id: str | None,
        time: datetime | None,
        extensions: Mapping[str, AttrValue | None],
    ) -> Event[bytes | None]:
        """Like ``emit`` for messages without a payload model (opaque bytes)."""
        attributes = self.attributes(values, id, time, extensions)
        event = Event(attributes, data, self.binding(values))
        observer = _HOOKS.observer
        if observer is not None:
            observer.created(self, event)
        return event

    def attributes(
        self,
        values: Mapping[str, str],
        id: str | None,
        time: datetime | None,
        extensions: Mapping[str, AttrValue | None],
    ) -> dict[str, AttrValue]:
        """Constants, expanded templates, ``id``/``time`` defaults and given extensions."""
        attributes: dict[str, AttrValue] = dict(self.prefix)
        for name, template, text in self.templates:
            attributes[name] = text if text is not None else template.expand(values)
        if self.cloudevents:
            attributes["id"] = id if id is not None else new_id()
            attributes["time"] = time if time is not None else _now(_UTC)
        if extensions:
            for name, ext in extensions.items():
                if ext is not None:
                    attributes[name] = ext
        return attributes

    def binding(self, values: Mapping[str, str]) -> Binding | None:
        cls = self.binding_cls
        if cls is None or self.fixed_binding is not None:
            return self.fixed_binding
        kinds = self.field_kinds
        kw = dict(self.binding_base)
        for field in self.binding_dicts:
            kw[field] = dict(kw[field])
        for field, template in self.scalar_templates:
            kw[field] = _scalar(kinds, field, template.expand(values))
        if self.map_templates:
            maps = {f: dict(m) for f, m in self.map_constants.items()}
            for field, key, template in self.map_templates:
                maps.setdefault(field, {})[key] = template.expand(values)
            for field, entries in maps.items():
                kw[field] = _map_field(kinds, field, entries)
        result: Binding = cls(**kw)
        return result


def _scalar(kinds: dict[str, str], field: str, value: Any) -> Any:
    """A protocol option value in the type of its binding field."""
    kind = kinds.get(field)
    if kind == "int":
        return int(value)
    if kind == "bool":
        return value in (True, "true")
    if kind == "bytes":
        return str(value).encode()
    return value


def _map_field(kinds: dict[str, str], field: str, entries: dict[str, Any]) -> Any:
    """Name/value options as their binding field: pairs with ``bytes`` values (Kafka
    headers), pairs of strings, or a mapping (AMQP sections, Pulsar/RocketMQ properties).
    """
    kind = kinds.get(field)
    if kind == "bytes-pairs":
        return tuple((k, str(v).encode()) for k, v in entries.items())
    if kind == "pairs":
        return tuple((k, str(v)) for k, v in entries.items())
    return dict(entries)
