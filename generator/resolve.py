"""Resolve stage: basemessage chains, xref aliases, payload schemas, implied CloudEvents
attributes and endpoint protocol defaults. Input: the stacked ``Registry`` from ``load``;
output: ``Resolved``, plain data that ``build`` turns into the IR.

Rules (DESIGN.md section 3, message_spec.md):
- basemessage: follow the chain to its end, then merge back up: objects deep-merge, scalars and
  arrays replace; transitive; a cycle is an error naming the whole chain (XRG201); a dangling
  reference or an absolute URI that cannot be resolved is a warning (XRG202/XRG203) and the
  message stands on its own.
- xref (``meta.xref`` or ``xref``, on a message or a group): the source looks like the target
  except for its own id; not transitive (an xref to an xref is a warning, XRG205); dangling is
  a warning (XRG204) and the source is left out.
- payload: ``dataschema`` (embedded object), ``dataschemauri`` or ``dataschemaxid`` into
  schemagroups (``#/...`` and ``/...``; the default version, else the newest; or an explicit
  ``/versions/v``). A reference that does not resolve is an error (XRG210).
- CloudEvents/1.0: ``specversion``/``id``/``source``/``type`` always present and required;
  ``datacontenttype`` inferred from the schema format; ``dataschema`` inferred from an
  absolute schema URI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import formats
from .diagnostics import Diagnostics, pointer
from .ir import CLOUDEVENTS
from .load import schema_format_family
from .registry import Entity, MessageGroupEntry, Registry, SchemaEntry

_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_IMPLIED_CE = {
    "specversion": {"type": "string", "value": "1.0", "required": True},
    "id": {"type": "string", "required": True},
    "source": {"type": "urireference", "required": True},
    "type": {"type": "string", "required": True},
}


@dataclass(slots=True)
class ResolvedSchema:
    family: str  # a ``formats`` family id ("json", "avro", "protobuf", "xsd") or other name
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


def deep_merge(base: Any, child: Any) -> Any:
    """Objects deep-merge (child wins per key); scalars and arrays replace."""
    if isinstance(base, dict) and isinstance(child, dict):
        out = dict(base)
        for k, v in child.items():
            out[k] = deep_merge(base[k], v) if k in base else v
        return out
    return child


def _ref_path(ref: str) -> list[str] | None:
    """``#/a/b`` or ``/a/b`` (or ``a/b``) -> unescaped tokens; absolute URIs -> None."""
    if _ABSOLUTE.match(ref):
        return None
    ref = ref[1:] if ref.startswith("#") else ref
    tokens = [t for t in ref.strip("/").split("/") if t != ""]
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def _xref_of(data: dict[str, Any]) -> str | None:
    meta = data.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("xref"), str):
        return str(meta["xref"])
    x = data.get("xref")
    return x if isinstance(x, str) else None


class _Resolver:
    def __init__(self, reg: Registry, diags: Diagnostics) -> None:
        self.reg = reg
        self.d = diags
        self._merged: dict[tuple[str, str], dict[str, Any] | None] = {}

    # -- lookups -----------------------------------------------------------------------
    def message_entity(self, ref: str) -> tuple[tuple[str, str] | None, Entity | None]:
        path = _ref_path(ref)
        if not path or len(path) != 4 or path[0] != "messagegroups" or path[2] != "messages":
            return None, None
        grp = self.reg.messagegroups.get(path[1])
        ent = grp.messages.get(path[3]) if grp else None
        return (path[1], path[3]), ent

    # -- basemessage -------------------------------------------------------------------
    def merged(
        self, gid: str, mid: str, ent: Entity, chain: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        key = (gid, mid)
        if key in self._merged:
            cached = self._merged[key]
            return cached if cached is not None else ent.data
        here = f"/messagegroups/{gid}/messages/{mid}"
        if here in chain:
            return ent.data  # the cycle is reported by the caller that closes it
        base_ref = ent.data.get("basemessage")
        if not isinstance(base_ref, str) or not base_ref:
            self._merged[key] = ent.data
            return ent.data
        self._merged[key] = None  # in progress
        base_key, base_ent = self.message_entity(base_ref)
        result = ent.data
        if base_key is None:
            code = "XRG203" if _ABSOLUTE.match(base_ref) else "XRG202"
            what = (
                "cannot be resolved (absolute URI)"
                if code == "XRG203"
                else "is not a message reference"
            )
            self.d.warning(
                code,
                ent.file,
                ent.pointer + "/basemessage",
                f"basemessage {base_ref!r} {what}; the message stands on its own",
            )
        elif base_ent is None:
            self.d.warning(
                "XRG202",
                ent.file,
                ent.pointer + "/basemessage",
                f"basemessage {base_ref!r} does not exist; the message stands on its own",
            )
        else:
            full_chain = (*chain, here)
            base_here = f"/messagegroups/{base_key[0]}/messages/{base_key[1]}"
            if base_here in full_chain:
                cycle = " -> ".join((*full_chain[full_chain.index(base_here) :], base_here))
                self.d.error(
                    "XRG201", ent.file, ent.pointer + "/basemessage", f"basemessage cycle: {cycle}"
                )
            else:
                base = self.merged(base_key[0], base_key[1], base_ent, full_chain)
                result = deep_merge(
                    {
                        k: v
                        for k, v in base.items()
                        if k not in ("messageid", "basemessage", "xref", "meta")
                    },
                    ent.data,
                )
        result = {k: v for k, v in result.items() if k != "basemessage"}
        self._merged[key] = result
        return result

    # -- schemas -----------------------------------------------------------------------
    def schema(self, data: dict[str, Any], ent: Entity) -> ResolvedSchema | None:
        fmt = data.get("dataschemaformat")
        fmt_s = fmt if isinstance(fmt, str) else ""
        if isinstance(data.get("dataschema"), (dict, bool)):
            family = schema_format_family(fmt_s) or _guess_family(data["dataschema"])
            return ResolvedSchema(family, fmt_s, data["dataschema"], ent.location + "/dataschema")
        embedded = data.get("dataschema")
        if isinstance(embedded, str):
            # text schemas (.proto, XSD) are embedded as strings
            family = schema_format_family(fmt_s) or _guess_family(embedded)
            if family in ("protobuf", "xsd"):
                return ResolvedSchema(family, fmt_s, embedded, ent.location + "/dataschema")
        for attr in ("dataschemauri", "dataschemaxid"):
            ref = data.get(attr)
            if isinstance(ref, str) and ref:
                return self.schema_ref(ref, fmt_s, ent, attr)
        return None

    def schema_ref(self, ref: str, fmt: str, ent: Entity, attr: str) -> ResolvedSchema | None:
        where = ent.pointer + "/" + attr
        if _ABSOLUTE.match(ref):
            self.d.warning(
                "XRG211",
                ent.file,
                where,
                f"{attr} {ref!r} is an absolute URI; the payload is opaque bytes",
            )
            return None
        # "<schema ref>#/definitions/X" points into the schema document
        document, _, fragment = (ref[1:] if ref.startswith("#") else ref).partition("#/")
        path = _ref_path(document) or []
        type_name = None
        if path and ":" in path[-1]:  # xrcg's "schema:TypeName" names a type inside the schema
            path[-1], _, type_name = path[-1].partition(":")
        ok = len(path) in (4, 6) and path[0] == "schemagroups" and path[2] == "schemas"
        if ok and len(path) == 6 and path[4] != "versions":
            ok = False
        sg = self.reg.schemagroups.get(path[1]) if ok else None
        sch: SchemaEntry | None = sg.schemas.get(path[3]) if sg else None
        if sch is None:
            self.d.error("XRG210", ent.file, where, f"{attr} {ref!r} does not resolve to a schema")
            return None
        if len(path) == 6:
            ver = sch.versions.get(path[5])
            if ver is None:
                self.d.error(
                    "XRG210", ent.file, where, f"{attr} {ref!r}: schema has no version {path[5]!r}"
                )
                return None
        else:
            ver = _default_version(sch)
            if ver is None:
                self.d.error("XRG210", ent.file, where, f"{attr} {ref!r}: schema has no versions")
                return None
        vfmt = ver.data.get("format") or sch.entity.data.get("format") or fmt
        spelled = fmt or (vfmt if isinstance(vfmt, str) else "")
        body = ver.data.get("schema")
        if body is None:
            self.d.warning(
                "XRG212",
                ver.file,
                ver.pointer,
                "schema version has no embedded `schema` (schemaurl/schemabase64 are not"
                " fetched); the payload is opaque bytes",
            )
            return None
        family = schema_format_family(spelled) or _guess_family(body)
        location = ver.location + "/schema"
        if fragment:
            body = _json_fragment(body, fragment)
            if body is None:
                self.d.error("XRG210", ent.file, where, f"{attr}: the schema has no '#/{fragment}'")
                return None
            location += "/" + fragment
        if type_name and family == "avro":
            named = formats.avro.named_type(body, type_name)
            if named is None:
                self.d.warning("XRG213", ent.file, where, f"{attr}: no Avro type {type_name!r} in the schema; the root type is used")
            else:
                body = named
        return ResolvedSchema(family, spelled, body, location, ref)

    # -- groups and messages -----------------------------------------------------------
    def run(self) -> Resolved:
        groups: list[ResolvedGroup] = []
        for gid, gentry in self.reg.messagegroups.items():
            target = self.group_target(gid, gentry)
            if target is None:
                continue
            target_gid, tentry = target
            g = gentry.entity
            rg = ResolvedGroup(gid, tentry.entity.data, g.file, g.pointer)
            for mid, ment in tentry.messages.items():
                rm = self.message(target_gid, mid, ment)
                if rm is None:
                    continue
                rm.group_id = gid
                if target_gid != gid:
                    rm.alias_of = rm.alias_of or mid
                rg.messages.append(rm)
            groups.append(rg)
        self.apply_endpoints(groups)
        return Resolved(groups, list(self.reg.sources))

    def group_target(
        self, gid: str, gentry: MessageGroupEntry
    ) -> tuple[str, MessageGroupEntry] | None:
        ref = _xref_of(gentry.entity.data)
        if ref is None:
            return gid, gentry
        ent = gentry.entity
        path = _ref_path(ref)
        tgid = path[1] if path and len(path) == 2 and path[0] == "messagegroups" else None
        target = self.reg.messagegroups.get(tgid) if tgid else None
        if target is None or tgid is None:
            self.d.warning(
                "XRG204",
                ent.file,
                ent.pointer + "/xref",
                f"xref {ref!r} does not resolve; group left out",
            )
            return None
        if _xref_of(target.entity.data) is not None:
            self.d.warning(
                "XRG205",
                ent.file,
                ent.pointer + "/xref",
                f"xref {ref!r} points at another xref (xref is not transitive); group left out",
            )
            return None
        return tgid, target

    def message(self, gid: str, mid: str, ent: Entity) -> ResolvedMessage | None:
        ref = _xref_of(ent.data)
        alias_of: str | None = None
        if ref is not None:
            tkey, tent = self.message_entity(ref)
            if tent is None or tkey is None:
                self.d.warning(
                    "XRG204",
                    ent.file,
                    ent.pointer,
                    f"xref {ref!r} does not resolve; message left out",
                )
                return None
            if _xref_of(tent.data) is not None:
                self.d.warning(
                    "XRG205",
                    ent.file,
                    ent.pointer,
                    f"xref {ref!r} points at another xref (xref is not transitive); message left out",
                )
                return None
            data = self.merged(tkey[0], tkey[1], tent)
            alias_of = tkey[1]
            src = tent
        else:
            data = self.merged(gid, mid, ent)
            src = ent
        data = dict(data)  # later steps replace values, never mutate shared nested ones
        data["messageid"] = mid
        data.pop("meta", None)
        data.pop("xref", None)
        derived = alias_of is None and isinstance(ent.data.get("basemessage"), str)
        rm = ResolvedMessage(mid, gid, data, ent.file, ent.pointer, alias_of=alias_of, derived=derived)
        rm.schema = self.schema(data, src)
        self.implied(rm)
        return rm

    def implied(self, rm: ResolvedMessage) -> None:
        data = rm.data
        envelope = data.get("envelope")
        if envelope is None or not _is_cloudevents(envelope):
            return
        data["envelope"] = CLOUDEVENTS
        meta = data.get("envelopemetadata")
        meta = dict(meta) if isinstance(meta, dict) else {}
        for name, implied in _IMPLIED_CE.items():
            spec = meta.get(name)
            merged = deep_merge(implied, spec) if isinstance(spec, dict) else dict(implied)
            merged["required"] = True
            if name == "source" and "value" in merged and "{" in str(merged["value"]):
                merged.setdefault("type", "uritemplate")
            meta[name] = merged
        if rm.schema is not None and "datacontenttype" not in meta:
            ct = data.get("datacontenttype")
            if not isinstance(ct, str):
                ct = formats.content_type(rm.schema.family)
            if ct:
                meta["datacontenttype"] = {"type": "string", "value": ct}
        if (
            rm.schema is not None
            and rm.schema.uri
            and _ABSOLUTE.match(rm.schema.uri)
            and "dataschema" not in meta
        ):
            meta["dataschema"] = {"type": "uri", "value": rm.schema.uri}
        data["envelopemetadata"] = meta

    # -- endpoints ---------------------------------------------------------------------
    def apply_endpoints(self, groups: list[ResolvedGroup]) -> None:
        """Messages of groups an endpoint selects inherit the endpoint's protocol and its
        routing option (topic/subject/address) when they declare no protocol themselves."""
        by_id = {g.id: g for g in groups}
        for eid, ent in self.reg.endpoints.items():
            refs = ent.data.get("messagegroups")
            if not isinstance(refs, list):
                continue
            proto = ent.data.get("protocol")
            opts = (
                ent.data.get("protocoloptions")
                if isinstance(ent.data.get("protocoloptions"), dict)
                else {}
            )
            routing = {k: v for k, v in (opts or {}).items() if k in _ROUTING_OPTIONS}
            for i, ref in enumerate(refs):
                path = _ref_path(ref) if isinstance(ref, str) else None
                gid = path[1] if path and len(path) == 2 and path[0] == "messagegroups" else None
                if gid is None or gid not in by_id:
                    self.d.warning(
                        "XRG206",
                        ent.file,
                        ent.pointer + pointer("messagegroups", i),
                        f"endpoint {eid!r} selects {ref!r}, which is not a message group",
                    )
                    continue
                if not isinstance(proto, str):
                    continue
                for rm in by_id[gid].messages:
                    if "protocol" not in rm.data:
                        rm.data["protocol"] = proto
                        if routing:
                            rm.data["protocoloptions"] = deep_merge(
                                routing, rm.data.get("protocoloptions") or {}
                            )


_ROUTING_OPTIONS = frozenset(
    {"topic", "topic_name", "subject", "node", "address", "path", "method", "qos"}
)


def _is_cloudevents(envelope: Any) -> bool:
    return isinstance(envelope, str) and envelope.lower().replace(" ", "") in (
        "cloudevents/1.0",
        "cloudevents",
    )


def _guess_family(schema: Any) -> str:
    return formats.guess(schema)


def _json_fragment(schema: Any, fragment: str) -> Any:
    """A JSON Schema whose root is ``#/<fragment>`` of ``schema``, keeping its definitions."""
    node = schema
    for token in fragment.split("/"):
        if not isinstance(node, dict) or token not in node:
            return None
        node = node[token.replace("~1", "/").replace("~0", "~")]
    if not isinstance(schema, dict):
        return None
    out = {k: schema[k] for k in ("$schema", "definitions", "$defs") if k in schema}
    out.update({"$ref": "#/" + fragment, "title": fragment.rsplit("/", 1)[-1]})
    return out


def _default_version(sch: SchemaEntry) -> Entity | None:
    if not sch.versions:
        return None
    if sch.default_version and sch.default_version in sch.versions:
        return sch.versions[sch.default_version]
    ids = list(sch.versions)
    if all(i.isdigit() for i in ids):
        return sch.versions[max(ids, key=int)]
    return sch.versions[ids[-1]]


def resolve(reg: Registry, diags: Diagnostics) -> Resolved:
    return _Resolver(reg, diags).run()
