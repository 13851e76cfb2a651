"""The stacked, normalized catalog that ``load`` produces and ``resolve`` consumes.

Every entity keeps the raw JSON object it came from (normalized to the current xRegistry
spelling: ``envelope``, ``envelopemetadata``, ``dataschemauri``, ``messageid``, ...) and its
provenance: the display name of its document and its JSON Pointer inside that document, so
diagnostics can say ``file#/pointer``. Stacking is per entity: a message (or schema version,
endpoint) of a later document replaces the same one of an earlier document; groups and schemas
merge their children.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Entity:
    data: dict[str, Any]
    file: str
    pointer: str

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}"


@dataclass(slots=True)
class SchemaEntry:
    entity: Entity
    #: version id -> version entity (its data holds ``schema`` or ``schemaurl``/``schemabase64``)
    versions: dict[str, Entity] = field(default_factory=dict)
    #: the ``defaultversionid`` if the catalog names one
    default_version: str | None = None


@dataclass(slots=True)
class SchemaGroupEntry:
    entity: Entity
    schemas: dict[str, SchemaEntry] = field(default_factory=dict)


@dataclass(slots=True)
class MessageGroupEntry:
    entity: Entity
    messages: dict[str, Entity] = field(default_factory=dict)


@dataclass(slots=True)
class Registry:
    messagegroups: dict[str, MessageGroupEntry] = field(default_factory=dict)
    schemagroups: dict[str, SchemaGroupEntry] = field(default_factory=dict)
    endpoints: dict[str, Entity] = field(default_factory=dict)
    #: message groups made from endpoints' own ``messages`` (each named like its endpoint)
    endpoint_groups: set[str] = field(default_factory=set)
    #: the registry's own root URLs (the root ``self`` of its documents): an absolute
    #: reference under one of them points into this registry
    bases: list[str] = field(default_factory=list)
    #: display names of the documents, in stacking order
    sources: list[str] = field(default_factory=list)
