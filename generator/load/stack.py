"""Stacking: documents (or split-file pieces) added to one ``Registry``, a later one shadowing
an earlier one per entity (a message, schema version or endpoint is replaced; groups and
schemas merge their children). Every entity keeps its file and JSON Pointer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diagnostics import Diagnostics, pointer
from ..model.registry import (
    Entity,
    MessageGroupEntry,
    Registry,
    SchemaEntry,
    SchemaGroupEntry,
)
from ..suggest import same_name
from .attributes import Names
from .common import COLLECTIONS
from .normalize import (
    normalize_endpoint,
    normalize_message,
    normalize_messagegroup,
    normalize_schema,
    normalize_schemagroup,
    normalize_version,
)

#: legacy (CNCF discovery / early xRegistry drafts) spellings of root collections
_ROOT_RENAMES = (
    ("definitionGroups", "messagegroups"),
    ("definitiongroups", "messagegroups"),
    ("schemaGroups", "schemagroups"),
)


class Stacker:
    """Adds documents (or split-file pieces) to a ``Registry``, later shadowing earlier."""

    def __init__(self, reg: Registry, diags: Diagnostics) -> None:
        self.reg = reg
        self.diags = diags
        self.names = Names(diags)

    def finish(self) -> None:
        """After the last document: the notes about extension attributes."""
        self.names.finish()

    # -- whole documents
    def document(self, doc: Any, file: str, ptr: str = "", whole: bool = False) -> None:
        """Add a document; ``whole``: a complete catalog (not a split folder's root index),
        which must hold at least one collection."""
        if not isinstance(doc, dict):
            self.diags.error(
                "XRG102", file, ptr, f"a catalog document must be an object, not {kind(doc)}"
            )
            return
        for old, new in _ROOT_RENAMES:
            if old in doc and new not in doc:
                doc = {new if k == old else k: v for k, v in doc.items()}
                self.diags.warning(
                    "XRG110", file, ptr + pointer(old), f"legacy collection '{old}' read as '{new}'"
                )
        written = {coll: _written(doc, coll) for coll in COLLECTIONS}
        doc = self.names.fold(doc, "registry", file, ptr)
        if whole and not any(coll in doc for coll in COLLECTIONS):
            self.diags.error(
                "XRG114",
                file,
                ptr,
                "the document holds no xRegistry collection (messagegroups, schemagroups,"
                " endpoints); it has "
                + (", ".join(repr(k) for k in list(doc)[:8]) or "no attributes"),
            )
        else:  # XRG114 names what the document holds instead
            self.names.check(doc, "registry", file, ptr)
        root = doc.get("self")
        if isinstance(root, str) and root.lower().startswith(("http://", "https://")):
            base = root.split("#", 1)[0].split("?", 1)[0].rstrip("/")
            if base not in self.reg.bases:
                self.reg.bases.append(base)
        for coll, add in (
            ("messagegroups", self.messagegroup),
            ("schemagroups", self.schemagroup),
            ("endpoints", self.endpoint),
        ):
            if coll in doc:
                self.collection(doc[coll], file, ptr + pointer(written[coll]), add)

    def collection(
        self, items: Any, file: str, ptr: str, add: Callable[[str, Any, str, str], None]
    ) -> None:
        if not isinstance(items, dict):
            if items is not None:
                self.diags.error(
                    "XRG103",
                    file,
                    ptr,
                    f"a collection must be an object keyed by id, not {kind(items)}",
                )
            return
        for key, item in items.items():
            add(key, item, file, ptr + pointer(key))

    def _entity_ok(self, item: Any, file: str, ptr: str) -> bool:
        if isinstance(item, dict):
            return True
        self.diags.error("XRG103", file, ptr, f"an entity must be an object, not {kind(item)}")
        return False

    # -- message groups
    def messagegroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        mkey = _written(item, "messages", "definitions")
        data = normalize_messagegroup(
            self.names.fold(item, "messagegroup", file, ptr), gid, file, ptr, self.diags
        )
        self.names.check(data, "messagegroup", file, ptr)
        msgs = data.pop("messages", None)
        entry = self.reg.messagegroups.get(gid)
        if entry is None:
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        if msgs is not None:
            self.collection(
                msgs, file, ptr + pointer(mkey), lambda k, m, f, p: self.message(gid, k, m, f, p)
            )

    def message(self, gid: str, mid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        entry = self.reg.messagegroups.get(gid)
        if entry is None:  # a split file for a group the documents never declared
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(
                Entity({"messagegroupid": gid}, file, ptr)
            )
        entry.messages[mid] = Entity(self.read_message(item, mid, file, ptr), file, ptr)

    def read_message(self, item: dict[str, Any], mid: str, file: str, ptr: str) -> dict[str, Any]:
        """A message in current spelling, its names checked."""
        data = normalize_message(
            self.names.fold(item, "message", file, ptr), mid, file, ptr, self.diags
        )
        self.names.check(data, "message", file, ptr)
        return data

    # -- schema groups
    def schemagroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        skey = _written(item, "schemas")
        data = normalize_schemagroup(
            self.names.fold(item, "schemagroup", file, ptr), gid, file, ptr, self.diags
        )
        self.names.check(data, "schemagroup", file, ptr)
        schemas = data.pop("schemas", None)
        entry = self.reg.schemagroups.get(gid)
        if entry is None:
            entry = self.reg.schemagroups[gid] = SchemaGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        if schemas is not None:
            self.collection(
                schemas, file, ptr + pointer(skey), lambda k, s, f, p: self.schema(gid, k, s, f, p)
            )

    def _schema_group_entry(self, gid: str, file: str, ptr: str) -> SchemaGroupEntry:
        entry = self.reg.schemagroups.get(gid)
        if entry is None:
            entry = self.reg.schemagroups[gid] = SchemaGroupEntry(
                Entity({"schemagroupid": gid}, file, ptr)
            )
        return entry

    def schema(self, gid: str, sid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        vkey = _written(item, "versions")
        item = self.names.fold(item, "schema", file, ptr)
        data = normalize_schema(item, sid, file, ptr, self.diags)
        self.names.check(data, "schema", file, ptr)
        versions = data.pop("versions", None)
        group = self._schema_group_entry(gid, file, ptr)
        entry = group.schemas.get(sid)
        if entry is None:
            entry = group.schemas[sid] = SchemaEntry(Entity(data, file, ptr))
        else:
            merged = {**entry.entity.data, **data}
            if "meta" in entry.entity.data and "meta" in data:
                merged["meta"] = {**entry.entity.data["meta"], **data["meta"]}
            entry.entity = Entity(merged, file, ptr)
        meta = entry.entity.data.get("meta")
        if isinstance(meta, dict) and meta.get("defaultversionid") is not None:
            entry.default_version = str(meta["defaultversionid"])
        if versions is None:
            return
        if not isinstance(versions, dict):
            self.diags.error(
                "XRG103",
                file,
                ptr + pointer(vkey),
                f"'versions' must be an object, not {kind(versions)}",
            )
            return
        # a version made from the resource's own document is located at the resource
        synthesized = "versions" not in item
        for vid, v in versions.items():
            self.version(entry, vid, v, file, ptr if synthesized else ptr + pointer(vkey, vid))

    def version(self, entry: SchemaEntry, vid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_version(
            self.names.fold(item, "version", file, ptr), vid, file, ptr, self.diags
        )
        self.names.check(data, "version", file, ptr)
        entry.versions[vid] = Entity(data, file, ptr)

    # -- endpoints
    def endpoint(self, eid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        key = _written(item, "messages", "definitions")
        item = dict(self.names.fold(item, "endpoint", file, ptr))
        inline = item.pop("messages", None)
        if inline is None:
            inline = item.pop("definitions", None)
        for legacy in ("config", "protocoloptions"):
            if legacy in item:
                where = ptr + pointer(_written(item, legacy))
                item[legacy] = self.names.fold_endpoint_options(item[legacy], file, where)
        data = normalize_endpoint(item, eid, file, ptr, self.diags)
        self.names.check(data, "endpoint", file, ptr)
        self.names.check_endpoint_options(
            data.get("protocoloptions"), file, ptr + "/protocoloptions"
        )
        self.reg.endpoints[eid] = Entity(data, file, ptr)
        if isinstance(inline, dict) and inline:
            self.endpoint_messages(eid, data, inline, file, ptr + pointer(key))

    def endpoint_messages(
        self, eid: str, endpoint: dict[str, Any], inline: dict[str, Any], file: str, ptr: str
    ) -> None:
        """An endpoint's own messages form the message group named like the endpoint, bound
        to its envelope and protocol (warning XRG118 when a message group has that id); the
        endpoint's options reach them as they reach the groups it references (resolve)."""
        entry = self.reg.messagegroups.get(eid)
        if entry is not None and eid not in self.reg.endpoint_groups:
            self.diags.warning(
                "XRG118",
                file,
                ptr,
                f"the messages of endpoint {eid!r} are left out: a message group has that id",
            )
            return
        self.reg.endpoint_groups.add(eid)
        group = {"messagegroupid": eid}
        group.update({k: endpoint[k] for k in ("envelope", "protocol") if k in endpoint})
        entry = self.reg.messagegroups[eid] = MessageGroupEntry(Entity(group, file, ptr))
        self.collection(inline, file, ptr, lambda k, m, f, p: self.message(eid, k, m, f, p))


def _written(data: dict[str, Any], *names: str) -> str:
    """How ``data`` spells the first of ``names`` it holds in any case or with separators
    (the pointer of a collection ``fold`` renames), else the first of ``names``."""
    for name in names:
        if name in data:
            return name
    for name in names:
        found = same_name(name, [k for k in data if isinstance(k, str)])
        if found is not None:
            return found
    return names[0]


def kind(o: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", type(None): "null"}.get(
        type(o), type(o).__name__
    )
