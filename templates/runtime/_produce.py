"""Event construction for the generated producers.

An ``Emitter`` is built once per message definition at import time: it precomputes the
constant attributes (in canonical Python types), compiles the uritemplate attributes and
protocol options, and picks the protocol's ``*Binding`` class. ``emit`` then only copies the
constants, expands templates (RFC 6570 level 1: values are percent-encoded), fills ``id``
(uuid4) and ``time`` (now, UTC) unless given, validates a dict payload into its model, and
builds the binding metadata.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from pydantic import BaseModel

from ._core import (
    AmqpBinding,
    AttrValue,
    Binding,
    Event,
    HttpBinding,
    KafkaBinding,
    MessageDef,
    MqttBinding,
    NatsBinding,
    PulsarBinding,
    RocketMqBinding,
    UriTemplate,
)

M = TypeVar("M")

_BINDINGS: dict[str, type[Any]] = {
    "KAFKA": KafkaBinding,
    "AMQP/1.0": AmqpBinding,
    "MQTT/5.0": MqttBinding,
    "MQTT/3.1.1": MqttBinding,
    "NATS": NatsBinding,
    "HTTP": HttpBinding,
    "PULSAR": PulsarBinding,
    "ROCKETMQ": RocketMqBinding,
}
#: binding fields holding a tuple of (name, value) pairs rather than a mapping
_PAIR_FIELDS = frozenset({"headers", "user_properties", "query"})
_INT_FIELDS = frozenset(
    {
        "qos",
        "partition",
        "status",
        "message_expiry_interval",
        "payload_format_indicator",
    }
)


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
        "binding_constants",
        "binding_templates",
        "mqtt_version",
    )

    def __init__(self, definition: MessageDef) -> None:
        self.definition = definition
        self.cloudevents = definition.envelope is not None
        self.model = definition.model
        self.constants: dict[str, AttrValue] = {}
        self.templates: list[tuple[str, UriTemplate]] = []
        for a in definition.attributes:
            if a.value is None:
                continue
            if a.kind == "uritemplate" and isinstance(a.value, str):
                self.templates.append((a.name, UriTemplate(a.value)))
            else:
                self.constants[a.name] = _canonical(a.kind, a.value)
        self.binding_cls = _BINDINGS.get(definition.protocol or "")
        self.mqtt_version = "3.1.1" if definition.protocol == "MQTT/3.1.1" else "5.0"
        self.binding_constants: list[tuple[tuple[str, ...], str | int | bool]] = []
        self.binding_templates: list[tuple[tuple[str, ...], UriTemplate]] = []
        for o in definition.options:
            if o.template and isinstance(o.value, str):
                self.binding_templates.append((o.path, UriTemplate(o.value)))
            else:
                self.binding_constants.append((o.path, o.value))

    def emit(
        self,
        model: type[M],
        data: M | Mapping[str, Any],
        values: Mapping[str, str],
        id: str | None,
        time: datetime | None,
        extensions: Mapping[str, AttrValue | None],
    ) -> Event[M]:
        attributes = self.attributes(values, id, time, extensions)
        payload: Any = data
        if isinstance(model, type) and issubclass(model, BaseModel):
            if not isinstance(data, model):
                payload = model.model_validate(data)
        return Event(attributes, payload, self.binding(values))

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
        return Event(attributes, data, self.binding(values))

    def attributes(
        self,
        values: Mapping[str, str],
        id: str | None,
        time: datetime | None,
        extensions: Mapping[str, AttrValue | None],
    ) -> dict[str, AttrValue]:
        """Constants, expanded templates, ``id``/``time`` defaults and given extensions."""
        attributes: dict[str, AttrValue] = dict(self.constants)
        for name, template in self.templates:
            attributes[name] = template.expand(values)
        if self.cloudevents:
            attributes["id"] = id if id is not None else str(uuid.uuid4())
            attributes["time"] = (
                time if time is not None else datetime.now(timezone.utc)
            )
        for name, ext in extensions.items():
            if ext is not None:
                attributes[name] = ext
        return attributes

    def binding(self, values: Mapping[str, str]) -> Binding | None:
        if self.binding_cls is None:
            return None
        scalars: dict[str, Any] = {}
        maps: dict[str, dict[str, Any]] = {}
        items = [(p, v) for p, v in self.binding_constants]
        items += [(p, t.expand(values)) for p, t in self.binding_templates]
        for path, value in items:
            if len(path) == 1:
                scalars[path[0]] = value
            else:
                maps.setdefault(path[0], {})[path[1]] = value
        for name in _INT_FIELDS & scalars.keys():
            scalars[name] = int(scalars[name])
        if "retain" in scalars:
            scalars["retain"] = scalars["retain"] in (True, "true")
        if self.binding_cls is KafkaBinding:
            if "key" in scalars:
                scalars["key"] = str(scalars["key"]).encode()
            if "headers" in maps:
                scalars["headers"] = tuple(
                    (k, str(v).encode()) for k, v in maps.pop("headers").items()
                )
        if self.binding_cls is MqttBinding:
            scalars["version"] = self.mqtt_version
        for name, entries in maps.items():
            if name in _PAIR_FIELDS:
                scalars[name] = tuple((k, str(v)) for k, v in entries.items())
            else:
                scalars[name] = entries
        result: Binding = self.binding_cls(**scalars)
        return result
