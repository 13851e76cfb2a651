"""What the resolve stage hands on: message groups with their messages after basemessage and
``xref`` resolution, each message's payload schema, and the catalog's endpoints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..protocols import Protocol
from .registry import Entity


@dataclass(slots=True)
class ResolvedSchema:
    family: str  # a ``formats`` family id ("json", "avro", "jsonstructure", ...) or other name
    format: str  # as spelled by the catalog
    schema: Any
    location: str
    uri: str | None = None


@dataclass(slots=True)
class ResolvedMessage:
    id: str
    group_id: str
    data: dict[str, Any]
    file: str
    pointer: str
    schema: ResolvedSchema | None = None
    alias_of: str | None = None
    #: True when the message merged a basemessage (its result needs the full semantic check)
    derived: bool = False
    #: True when ``data["protocol"]`` is the one the endpoints carrying its group imply
    #: (neither the message nor its group declares a binding xrgen knows)
    protocol_from_endpoints: bool = False

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}"


@dataclass(slots=True)
class ResolvedGroup:
    id: str
    data: dict[str, Any]
    file: str
    pointer: str
    messages: list[ResolvedMessage] = field(default_factory=list)


@dataclass(slots=True)
class Resolved:
    groups: list[ResolvedGroup]
    sources: list[str]
    endpoints: list[ResolvedEndpoint] = field(default_factory=list)


@dataclass(slots=True)
class ResolvedEndpoint:
    id: str
    data: dict[str, Any]
    file: str
    pointer: str
    protocol: Protocol | None
    usage: tuple[str, ...]
    #: message groups it carries: referenced (in order), then the group of its own messages
    groups: list[str] = field(default_factory=list)
    #: ``(index in messagegroups, group id)`` of each reference that resolved
    references: list[tuple[int, str]] = field(default_factory=list)
    #: rc4 endpoint options (no endpoints/authorization/deployed); ``willmessage``: a message id
    options: dict[str, Any] = field(default_factory=dict)
    uris: list[str] = field(default_factory=list)
    authorization: list[dict[str, str]] = field(default_factory=list)
    deployed: bool = True
    #: message option -> value: what its messages take as defaults
    defaults: dict[str, Any] = field(default_factory=dict)
    #: message option -> the endpoint option it comes from (for diagnostics)
    origin: dict[str, str] = field(default_factory=dict)

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}"

    @property
    def entity(self) -> Entity:
        return Entity(self.data, self.file, self.pointer)
