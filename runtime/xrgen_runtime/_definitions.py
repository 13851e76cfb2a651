"""Message definitions as data: what the generated ``_defs.py`` declares and the generic
engines (dispatch, produce, Spark) read."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["AttrDef", "MessageDef", "OptionDef"]


@dataclass(frozen=True, slots=True)
class AttrDef:
    """One CloudEvents attribute declared by a message definition.

    ``kind`` is the xRegistry attribute type: ``string``, ``uritemplate``, ``uri``,
    ``urireference``, ``timestamp``, ``integer``, ``boolean``, ``binary``.
    ``value`` is the constant the attribute must carry (``None``: free), or for
    ``uritemplate`` the template text.
    """

    name: str
    kind: str = "string"
    required: bool = False
    value: str | int | bool | None = None


@dataclass(frozen=True, slots=True)
class OptionDef:
    """One protocol option of a message definition, as a constant or a template to match.

    ``path`` addresses a field of the protocol's ``*Binding`` dataclass, then (for mapping- or
    pair-valued fields) a key: ``("topic",)``, ``("properties", "subject")``,
    ``("application_properties", "x-kind")``, ``("user_properties", "k")``,
    ``("headers", "x-h")``, ``("method",)``, ``("path",)``. ``template`` says whether ``value``
    is an RFC 6570 template (its placeholders become handler parameters) or a constant.
    """

    path: tuple[str, ...]
    value: str | int | bool
    template: bool = False


@dataclass(frozen=True, slots=True)
class MessageDef:
    """A resolved message definition as the runtime engines see it."""

    id: str
    group: str
    #: "CloudEvents/1.0" or None (plain protocol message)
    envelope: str | None
    #: CloudEvents ``type`` constant, when the definition fixes one
    type: str | None
    attributes: tuple[AttrDef, ...] = ()
    #: "KAFKA", "AMQP/1.0", "MQTT/5.0", "MQTT/3.1.1", "NATS", "HTTP", "PULSAR", "ROCKETMQ" or None
    protocol: str | None = None
    options: tuple[OptionDef, ...] = ()
    datacontenttype: str | None = None
    #: "json" (JSON Schema), "avro" or None (opaque bytes)
    schemaformat: str | None = None
    #: pydantic model of the payload, or None for opaque payloads
    model: builtins.type[BaseModel] | None = None
