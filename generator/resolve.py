"""Resolve stage: basemessage chains, xref aliases, payload schemas, implied CloudEvents
attributes and endpoint protocol defaults. Input: the stacked ``Registry`` from ``load``;
output: ``Resolved``, plain data that ``build`` turns into the IR.

Rules (DESIGN.md section 3, message_spec.md):
- basemessage: follow the chain to its end, then merge back up: objects deep-merge, scalars and
  arrays replace (a message bound to another protocol family than its base does not inherit
  the base's ``protocoloptions``); transitive; a cycle is an error naming the whole chain
  (XRG201); a dangling reference or an absolute URI that cannot be resolved is a warning
  (XRG202, naming the closest existing message; XRG203) and the message stands on its own.
- xref (``meta.xref`` or ``xref``, on a message or a group): the source looks like the target
  except for its own id; not transitive (an xref to an xref is a warning, XRG205); dangling is
  a warning (XRG204) and the source is left out.
- payload: ``dataschema`` (embedded object), ``dataschemauri`` or ``dataschemaxid`` into
  schemagroups (``#/...`` and ``/...``; the default version, else the newest; or an explicit
  ``/versions/v``). A reference that does not resolve is an error (XRG210).
- CloudEvents/1.0: ``specversion``/``id``/``source``/``type`` always present and required;
  ``datacontenttype`` inferred from the schema format; ``dataschema`` inferred from an
  absolute schema URI; a ``dataschema`` that is not absolute is made absolute from the
  registry URL (catalogs read from http(s)) or left out (XRG144).
- plain protocol messages (no envelope): ``datacontenttype`` inferred from a schema format
  other than JSON Schema (Avro binary, Protobuf, XML travel in their format; JSON needs no
  content type).
- group and endpoint defaults: ``group_defaults`` and docs/catalogs.md.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from . import formats, protocols, xids
from .cloudevents import (
    CLOUDEVENTS,
    IMPLIED,
    absolute_dataschema,
    is_cloudevents,
    may_be_absolute,
    registry_base,
)
from .diagnostics import Diagnostics
from .formats.spelling import schema_format_family
from .group_defaults import apply_endpoints, group_envelope
from .model.registry import Entity, MessageGroupEntry, Registry, SchemaEntry
from .model.resolved import Resolved, ResolvedGroup, ResolvedMessage, ResolvedSchema

#: ``.../schemas/<id>[/versions/<v>]:<type name or pointer>``
_NAMED_TYPE = re.compile(r"^(.*?/schemas/[^/:]+(?:/versions/[^/:]+)?):(.+)$")


def deep_merge(base: Any, child: Any) -> Any:
    """Objects deep-merge (child wins per key); scalars and arrays replace."""
    if isinstance(base, dict) and isinstance(child, dict):
        out = dict(base)
        for k, v in child.items():
            out[k] = deep_merge(base[k], v) if k in base else v
        return out
    return child


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
    def message_entity(
        self, ref: str, file: str
    ) -> tuple[tuple[str, str] | None, Entity | None]:
        """The message an xid or URI written in ``file`` references (``xids``: relative, an
        absolute URL into this registry, ``/versions/v`` of a message)."""
        key = xids.message_path(xids.tokens(ref, xids.bases(self.reg, file)))
        if key is None:
            return None, None
        grp = self.reg.messagegroups.get(key[0])
        ent = grp.messages.get(key[1]) if grp else None
        return key, ent

    # -- basemessage -------------------------------------------------------------------
    def merged(self, gid: str, mid: str, ent: Entity) -> dict[str, Any]:
        """The message's data with its basemessage chain merged in (memoized).

        Iterative: the chain is followed to its end (a message without a base, one already
        merged, a dangling reference or the message that closes a cycle), then merged back up,
        so a chain of any length uses no interpreter stack."""
        key, cur = (gid, mid), ent
        done = self._merged.get(key)
        if done is not None:
            return done
        base_ref = ent.data.get("basemessage")
        if not isinstance(base_ref, str) or not base_ref:  # the usual case: no chain at all
            self._merged[key] = ent.data
            return ent.data
        chain: list[tuple[tuple[str, str], Entity]] = []
        on_chain: dict[tuple[str, str], int] = {}
        result: dict[str, Any] | None = None
        while True:
            done = self._merged.get(key)
            if done is not None:
                result = done
                break
            on_chain[key] = len(chain)
            chain.append((key, cur))
            base_key, base_ent = self._base_of(cur)
            if base_key is None or base_ent is None:
                break
            if base_key in on_chain:
                self._cycle(chain[on_chain[base_key] :], base_key)
                break
            key, cur = base_key, base_ent
        for key, cur in reversed(chain):
            base_ref = cur.data.get("basemessage")
            if result is None and (not isinstance(base_ref, str) or not base_ref):
                result = self._merged[key] = cur.data  # the end of the chain, as written
                continue
            if result is None:
                merged = cur.data
            else:
                dropped = {"messageid", "basemessage", "xref", "meta"}
                if _rebinds(result, cur.data):
                    # options of another binding mean nothing to this one
                    dropped.add("protocoloptions")
                merged = deep_merge(
                    {k: v for k, v in result.items() if k not in dropped}, cur.data
                )
            result = {k: v for k, v in merged.items() if k != "basemessage"}
            self._merged[key] = result
            if key == (gid, mid):
                break
        assert result is not None
        return result

    def _base_of(self, ent: Entity) -> tuple[tuple[str, str] | None, Entity | None]:
        """The message ``ent`` names as its basemessage; a reference that does not resolve
        is a warning (the message stands on its own) and ``(None, None)``."""
        base_ref = ent.data.get("basemessage")
        if not isinstance(base_ref, str) or not base_ref:
            return None, None
        base_key, base_ent = self.message_entity(base_ref, ent.file)
        if base_key is None:
            outside = xids.tokens(base_ref, xids.bases(self.reg, ent.file)) is None
            code = "XRG203" if outside else "XRG202"
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
                f"basemessage {base_ref!r} does not exist{self.did_you_mean(base_ref)};"
                " the message stands on its own",
            )
        return base_key, base_ent

    def _cycle(self, members: list[tuple[tuple[str, str], Entity]], back: tuple[str, str]) -> None:
        """XRG201 at the message that closes a cycle (it stands without its base)."""
        names = [f"/messagegroups/{g}/messages/{m}" for (g, m), _ in members]
        names.append(f"/messagegroups/{back[0]}/messages/{back[1]}")
        if len(names) > 12:  # a long cycle: its ends and its length
            shown = [*names[:6], f"... ({len(names) - 10} more) ...", *names[-4:]]
        else:
            shown = names
        closing = members[-1][1]
        self.d.error(
            "XRG201",
            closing.file,
            closing.pointer + "/basemessage",
            f"basemessage cycle: {' -> '.join(shown)}",
        )

    def did_you_mean(self, ref: str) -> str:
        """``" (did you mean '#/messagegroups/g/messages/m'?)"`` for the closest existing
        message reference (in the spelling of ``ref``), or ``""``."""
        prefix = "#/" if ref.startswith("#") else "/" if ref.startswith("/") else ""
        path = xids.tokens(ref) or []
        wanted = "/".join(path)
        known = [
            f"messagegroups/{gid}/messages/{mid}"
            for gid, group in self.reg.messagegroups.items()
            for mid in group.messages
        ]
        close = difflib.get_close_matches(wanted, known, n=1, cutoff=0.6)
        if not close and path:  # the message id alone (another group, or a typo in the group)
            by_id = {k.rsplit("/", 1)[1]: k for k in known}
            ids = difflib.get_close_matches(path[-1], list(by_id), n=1, cutoff=0.6)
            close = [by_id[i] for i in ids]
        return f" (did you mean {prefix + close[0]!r}?)" if close else ""

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
            text_format = formats.get(family)
            if text_format is not None and text_format.TEXT:
                return ResolvedSchema(family, fmt_s, embedded, ent.location + "/dataschema")
        for attr in ("dataschemauri", "dataschemaxid"):
            ref = data.get(attr)
            if isinstance(ref, str) and ref:
                return self.schema_ref(ref, fmt_s, ent, attr)
        return None

    def schema_ref(self, ref: str, fmt: str, ent: Entity, attr: str) -> ResolvedSchema | None:
        where = ent.pointer + "/" + attr
        if xids.ABSOLUTE.match(ref):
            self.d.warning(
                "XRG211",
                ent.file,
                where,
                f"{attr} {ref!r} is an absolute URI; the payload is opaque bytes",
            )
            return None
        # "<schema ref>#/definitions/X" points into the schema document
        document, _, fragment = (ref[1:] if ref.startswith("#") else ref).partition("#/")
        # xrcg's "<schema>:TypeName" names a type inside the schema; for JSON Schema the part
        # after ":" may be a pointer into it ("<version>:definitions/X")
        type_name = None
        named = _NAMED_TYPE.match(document)
        if named:
            document, type_name = named.group(1), named.group(2)
        path = xids.tokens(document) or []
        if len(path) > 6 and path[4] == "versions" and not fragment:
            # rc4: "#/schemagroups/g/schemas/s/versions/1/definitions/X" goes on into the
            # schema document (a JSON pointer after the version)
            fragment = "/".join(t.replace("~", "~0").replace("/", "~1") for t in path[6:])
            path = path[:6]
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
        schema_format = formats.get(family)
        if fragment:
            # a schema of another format is read as a JSON document
            linked = (schema_format or formats.jsonschema).deep_link(body, fragment)
            if linked.schema is None:
                self.d.error("XRG210", ent.file, where, f"{attr}: {linked.problem}")
                return None
            body = linked.schema
            if linked.pointer is not None:
                location += "/" + linked.pointer
        if type_name and schema_format is not None:
            selected = schema_format.select_type(body, type_name, bool(fragment))
            if selected.problem is not None:
                self.d.warning("XRG213", ent.file, where, f"{attr}: {selected.problem}")
            body = selected.schema
            if selected.pointer is not None:
                location += "/" + selected.pointer
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
        endpoints = apply_endpoints(self.reg, self.d, groups)
        return Resolved(groups, list(self.reg.sources), endpoints)

    def group_target(
        self, gid: str, gentry: MessageGroupEntry
    ) -> tuple[str, MessageGroupEntry] | None:
        ref = _xref_of(gentry.entity.data)
        if ref is None:
            return gid, gentry
        ent = gentry.entity
        path = xids.tokens(ref)
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
            tkey, tent = self.message_entity(ref, ent.file)
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
        group_envelope(self.reg, self.d, gid, data, ent)
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
        if envelope is None:
            _plain_content_type(rm)
            return
        if not is_cloudevents(envelope):
            return
        data["envelope"] = CLOUDEVENTS
        meta = data.get("envelopemetadata")
        meta = dict(meta) if isinstance(meta, dict) else {}
        for name, implied in IMPLIED.items():
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
            and xids.ABSOLUTE.match(rm.schema.uri)
            and "dataschema" not in meta
        ):
            meta["dataschema"] = {"type": "uri", "value": rm.schema.uri}
        ds = meta.get("dataschema")
        value = ds.get("value") if isinstance(ds, dict) else None
        if isinstance(value, str) and value and not may_be_absolute(value):
            # warned at the declaration (XRG144): never send what CloudEvents consumers reject
            base = registry_base(rm.file)
            if base is None:
                del meta["dataschema"]
            else:
                meta["dataschema"] = {**ds, "value": absolute_dataschema(base, value)}  # type: ignore[dict-item]
        data["envelopemetadata"] = meta

def _plain_content_type(rm: ResolvedMessage) -> None:
    """A plain message without ``datacontenttype`` whose schema format is not JSON Schema
    gets the format's content type: its payload travels in that format (Avro binary,
    Protobuf, XML), as a CloudEvent's would."""
    data = rm.data
    if rm.schema is None or isinstance(data.get("datacontenttype"), str):
        return
    ct = formats.content_type(rm.schema.family)
    if formats.jsonschema.accepts(ct):
        return
    if ct:
        data["datacontenttype"] = ct


def _rebinds(base: dict[str, Any], child: dict[str, Any]) -> bool:
    """Whether ``child`` binds to another protocol than its ``basemessage``."""
    mine, theirs = protocols.lookup(child.get("protocol")), protocols.lookup(base.get("protocol"))
    return mine is not None and theirs is not None and mine.family != theirs.family


def _guess_family(schema: Any) -> str:
    return formats.guess(schema)


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
