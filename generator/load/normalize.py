"""Normalization: each entity as a copy in the current xRegistry spelling.

Legacy and loose spellings (CNCF discovery and early xRegistry drafts, real catalogs) are
rewritten with a warning (XRG110-XRG117): ``id`` -> ``<singular>id``, ``format`` ->
``envelope``/``protocol``, ``schemaurl`` -> ``dataschemauri``, attribute type aliases, legacy
protocol option names and wrappers, endpoint ``config``, a schema holding its document without
``versions``. One function per entity kind (``normalize_message``, ``normalize_messagegroup``,
``normalize_endpoint``, ``normalize_schemagroup``, ``normalize_schema``, ``normalize_version``);
``Norm`` holds the rename and id rules bound to one entity's location.
"""

from __future__ import annotations

from typing import Any

from .. import protocols
from ..cloudevents import is_cloudevents
from ..diagnostics import Diagnostics, pointer
from ..endpoints.normalize import normalize_endpoint_options
from ..suggest import same_name


class Norm:
    """Normalization helpers bound to one entity's location (file + pointer)."""

    __slots__ = ("diags", "file", "ptr")

    def __init__(self, diags: Diagnostics, file: str, ptr: str) -> None:
        self.diags = diags
        self.file = file
        self.ptr = ptr

    def rename(
        self,
        data: dict[str, Any],
        old: str,
        new: str,
        code: str = "XRG110",
        why: str | None = None,
    ) -> None:
        """Rename a legacy attribute; when the current spelling is set too, the legacy one is
        ignored, with a warning as well. ``why``: what ``old`` is, when not a legacy name."""
        if old not in data:
            return
        what = why or f"legacy attribute '{old}'"
        if new in data:
            self.diags.warning(
                code, self.file, self.ptr + pointer(old), f"{what} is ignored: '{new}' is set"
            )
            return
        data[new] = data.pop(old)
        self.diags.warning(code, self.file, self.ptr + pointer(old), f"{what} read as '{new}'")

    def ensure_id(
        self, data: dict[str, Any], singular: str, key: str, warn_missing: bool = False
    ) -> None:
        """``id`` -> ``<singular>id``; a missing id is the map key (a warning only when
        ``warn_missing``: messages, whose id should be the CloudEvents type); a different id
        is an error."""
        idname = singular + "id"
        if "id" in data and idname not in data:
            data[idname] = data.pop("id")
            self.diags.warning(
                "XRG111", self.file, self.ptr + "/id", f"legacy attribute 'id' read as '{idname}'"
            )
        value = data.get(idname)
        if value is None:
            data[idname] = key
            if warn_missing:
                self.diags.warning(
                    "XRG112", self.file, self.ptr, f"'{idname}' missing; using the map key '{key}'"
                )
        elif value != key:
            self.diags.error(
                "XRG113",
                self.file,
                self.ptr + pointer(idname),
                f"'{idname}' {value!r} differs from its map key {key!r}",
            )

    def format_to_envelope_or_protocol(self, data: dict[str, Any]) -> None:
        """Legacy ``format``: ``CloudEvents/1.0`` -> ``envelope``; a protocol -> ``protocol``."""
        fmt = data.get("format")
        if is_cloudevents(fmt):
            self.rename(data, "format", "envelope")
        elif protocols.lookup(fmt) is not None:
            self.rename(data, "format", "protocol")


_ATTR_TYPE_ALIASES = {
    "datetime": "timestamp",
    "date-time": "timestamp",
    "uri-reference": "urireference",
    "uri-template": "uritemplate",
    "int": "integer",
    "bool": "boolean",
}

_MESSAGE_RENAMES = (
    ("metadata", "envelopemetadata"),
    ("schemaurl", "dataschemauri"),
    ("schemauri", "dataschemauri"),
    ("dataschemaurl", "dataschemauri"),
    ("schema", "dataschema"),
    ("basemessageurl", "basemessage"),
    ("basemessageuri", "basemessage"),
    ("protocolmetadata", "protocoloptions"),
)

def normalize_message(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message in current spelling (see module docstring); warnings for each fix."""
    data = dict(data)
    n = Norm(diags, file, ptr)
    n.ensure_id(data, "message", key, warn_missing=True)
    n.format_to_envelope_or_protocol(data)
    for old, new in _MESSAGE_RENAMES:
        n.rename(data, old, new)
    n.rename(data, "ancestor", "ancestorid")
    em = data.get("envelopemetadata")
    if isinstance(em, dict):
        data["envelopemetadata"] = _normalize_envelopemetadata(em, n)
    _normalize_entity_options(data, n)
    return data


def _normalize_envelopemetadata(em: dict[str, Any], n: Norm) -> dict[str, Any]:
    inner = em.get("attributes")
    if (
        len(em) == 1
        and isinstance(inner, dict)
        and all(isinstance(v, dict) for v in inner.values())
    ):
        em = inner  # the spec's `envelopemetadata.attributes` form, read flat
    out = dict(em)
    base = n.ptr + "/envelopemetadata"
    for name, attr in em.items():
        if isinstance(attr, dict) and isinstance(attr.get("type"), str):
            alias = _ATTR_TYPE_ALIASES.get(attr["type"].lower())
            if alias is not None:
                out[name] = {**attr, "type": alias}
                n.diags.warning(
                    "XRG116",
                    n.file,
                    base + pointer(name, "type"),
                    f"attribute type '{attr['type']}' read as '{alias}'",
                )
    return out


def _normalize_protocoloptions(po: dict[str, Any], protocol: Any, n: Norm) -> dict[str, Any]:
    proto = protocols.lookup(protocol)
    po = dict(po)
    if proto is None:
        return po
    n2 = Norm(n.diags, n.file, n.ptr + "/protocoloptions")
    wrapped = po.get(proto.wrapper) if proto.wrapper else None
    if proto.wrapper and isinstance(wrapped, dict) and not any(k in po for k in proto.scalars):
        po.pop(proto.wrapper)
        for k, v in wrapped.items():
            po.setdefault(k, v)
        n.diags.warning(
            "XRG117",
            n.file,
            n2.ptr + pointer(proto.wrapper),
            f"legacy {proto.family} '{proto.wrapper}' wrapper read as top-level protocol options",
        )
    for old, new in proto.renames:
        why = (
            f"{proto.family} '{old}', the name of the endpoint option (a message's is '{new}'),"
            if old in proto.endpoint_names
            else None
        )
        n2.rename(po, old, new, "XRG117", why)
    names = [*proto.scalars, *proto.maps, *proto.unapplied]
    for key in [k for k in po if isinstance(k, str) and not proto.known(k)]:
        target = same_name(key, names)
        if target is not None:
            n2.rename(po, key, target, "XRG117", f"'{key}', in another case,")
    return po


def normalize_messagegroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message group (its ``messages`` included, legacy ``definitions`` renamed)."""
    data = dict(data)
    n = Norm(diags, file, ptr)
    n.ensure_id(data, "messagegroup", key)
    n.format_to_envelope_or_protocol(data)
    n.rename(data, "definitions", "messages")
    _normalize_entity_options(data, n)
    return data


def _normalize_entity_options(data: dict[str, Any], n: Norm) -> None:
    po = data.get("protocoloptions")
    if isinstance(po, dict):
        data["protocoloptions"] = _normalize_protocoloptions(po, data.get("protocol"), n)


def normalize_endpoint(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of an endpoint: legacy ``config`` -> ``protocol``/``protocoloptions``, ``format``
    -> ``envelope``, string ``usage`` -> list, its options in rc4 spelling
    (``endpoints.normalize``), inline messages normalized like group messages."""
    data = dict(data)
    n = Norm(diags, file, ptr)
    n.ensure_id(data, "endpoint", key)
    n.format_to_envelope_or_protocol(data)
    n.rename(data, "definitions", "messages")
    config = data.get("config")
    if isinstance(config, dict) and "protocoloptions" not in data:
        options = dict(data.pop("config"))
        if "protocol" in options and "protocol" not in data:
            data["protocol"] = options.pop("protocol")
        eps = options.get("endpoints")
        if isinstance(eps, list):
            options["endpoints"] = [{"uri": e} if isinstance(e, str) else e for e in eps]
        data["protocoloptions"] = options
        diags.warning(
            "XRG110",
            file,
            ptr + "/config",
            "legacy attribute 'config' read as 'protocol' and 'protocoloptions'",
        )
    if isinstance(data.get("usage"), str):
        data["usage"] = [data["usage"]]
        diags.warning("XRG110", file, ptr + "/usage", "'usage' is a single string; read as a list")
    normalize_endpoint_options(data, file, ptr, diags)
    msgs = data.get("messages")
    if isinstance(msgs, dict):
        mptr = ptr + "/messages"
        data["messages"] = {
            mid: normalize_message(m, mid, file, mptr + pointer(mid), diags)
            if isinstance(m, dict)
            else m
            for mid, m in msgs.items()
        }
    return data


_RESOURCE_LEVEL = (
    "versions",
    "meta",
    "schemaid",
    "self",
    "xid",
    "metaurl",
    "versionsurl",
    "versionscount",
)
META_ATTRS = (
    "xref",
    "defaultversionid",
    "defaultversionurl",
    "defaultversionsticky",
    "readonly",
    "compatibility",
)


def normalize_schema(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema resource. Top-level ``defaultversionid``/``xref`` move into ``meta``;
    a resource holding its document directly (``schema``/``schemaurl``/``schemabase64``) and
    no ``versions`` gets one version (its ``versionid``, else ``"1"``)."""
    data = dict(data)
    n = Norm(diags, file, ptr)
    n.ensure_id(data, "schema", key)
    meta = dict(data["meta"]) if isinstance(data.get("meta"), dict) else {}
    for attr in ("defaultversionid", "xref"):
        if attr in data and attr not in meta:
            meta[attr] = data.pop(attr)
            diags.warning(
                "XRG110",
                file,
                ptr + pointer(attr),
                f"'{attr}' belongs in the resource's 'meta'; read as 'meta.{attr}'",
            )
    if meta:
        data["meta"] = meta
    n.rename(data, "schemauri", "schemaurl")
    has_doc = any(k in data for k in ("schema", "schemaurl", "schemabase64"))
    if "versions" not in data and has_doc:
        vid = str(data.get("versionid") or "1")
        version = {k: v for k, v in data.items() if k not in _RESOURCE_LEVEL}
        version["versionid"] = vid
        data["versions"] = {vid: version}
        diags.warning(
            "XRG115",
            file,
            ptr,
            f"schema has no 'versions'; its document is read as version '{vid}'",
        )
    return data


def normalize_version(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema version (legacy ``id`` -> ``versionid``; missing -> map key, silently,
    as versions are nearly always written without their id)."""
    data = dict(data)
    n = Norm(diags, file, ptr)
    n.ensure_id(data, "version", key)
    n.rename(data, "schemauri", "schemaurl")
    n.rename(data, "ancestor", "ancestorid")
    return data


def normalize_schemagroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema group (legacy ``id`` -> ``schemagroupid``)."""
    data = dict(data)
    Norm(diags, file, ptr).ensure_id(data, "schemagroup", key)
    return data
