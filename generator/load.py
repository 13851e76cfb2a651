"""Load stage: JSON / YAML files, split-file folders and http(s) xRegistry URLs -> ``Registry``.

Every source is parsed into plain JSON data, normalized to the current xRegistry spelling (each
legacy or loose spelling is rewritten with a warning, XRG11x) and stacked into one ``Registry``:
a later document shadows an earlier one per entity (a message, schema version or endpoint is
replaced; groups and schemas merge their children). Every entity remembers the display name of
the file it came from and its JSON Pointer inside that file.

Problems never raise: unreadable sources are ``XRG100`` (an I/O error, see ``IO_ERROR_CODES``),
syntax errors ``XRG101`` with ``line:col``; the rest of the catalog still loads.

Split-file folders (``index.json`` per level) follow the xRegistry path layout::

    DIR/index.json                                 the registry document (optional)
    DIR/<groups>/index.json                        map of groups
    DIR/<groups>/<gid>/index.json                  one group
    DIR/<groups>/<gid>/<resources>/<rid>/index.json  one resource (message, schema)
    DIR/<groups>/<gid>/<resources>/<rid>$meta/index.json  the resource's meta entity
    DIR/<groups>/<gid>/<resources>/<rid>/versions/<vid>/index.json  one version

Deeper files are stacked after shallower ones, so a version file wins over the same version
inlined in the registry document.
"""

from __future__ import annotations

import gc
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from . import formats
from .diagnostics import Diagnostics, pointer
from .registry import (
    Entity,
    MessageGroupEntry,
    Registry,
    SchemaEntry,
    SchemaGroupEntry,
)

#: diagnostics that mean "could not read the input" (the CLI exits 2 on them)
IO_ERROR_CODES = frozenset({"XRG100"})

#: seconds to wait for an http(s) source
DEFAULT_TIMEOUT = 30.0

_COLLECTIONS = ("messagegroups", "schemagroups", "endpoints")
_URL_RE = re.compile(r"^https?://", re.IGNORECASE)


def is_io_error(code: str) -> bool:
    """True when a diagnostic code reports an unreadable input (exit code 2 in the CLI)."""
    return code in IO_ERROR_CODES


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic JSON trees.

    Parsing and walking a big catalog allocates millions of containers; the collector's full
    passes over them made a 10x larger catalog take 25x longer. Catalog data holds no cycles,
    so pausing is safe; the previous state is restored on exit."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# --------------------------------------------------------------------------------------------
# format / protocol spelling helpers (used by validate and resolve)

_DRAFT_RE = re.compile(r"^(?:draft[-/_ ]?)?0?(\d)$|^(?:draft[-/_ ]?)?(20\d\d-\d\d)$")


@lru_cache(maxsize=1024)
def _split_format(s: str) -> tuple[str, str]:
    name, _, version = s.strip().lower().partition("/")
    return name.strip(), version.strip()


def schema_format_family(s: str | None) -> str | None:
    """The family id (``"json"``, ``"avro"``, ``"protobuf"``, ``"xsd"``: see ``formats``) of a
    schema format string in any common spelling (``JsonSchema/draft-07``, ``JSONSchema/Draft-07``,
    ``jsonschema``, ``AVRO/1.11``, ``Proto/3``, ``XSD/1.1``, ...); ``None`` for other formats
    (JsonStructure, ...) or no string."""
    if not isinstance(s, str) or not s.strip():
        return None
    name, _ = _split_format(s)
    return formats.family(name)


def schema_format_version(s: str | None) -> str | None:
    """The normalized version of a schema format string, or ``None`` when it has none.

    JSON Schema: ``draft-04`` ... ``draft-07``, ``2019-09``, ``2020-12`` (``draft/2020-12``,
    ``Draft-07``, ``draft7`` all recognized). Protobuf: the syntax major (``"3"`` for
    ``Protobuf/3.0`` or ``proto3``). Avro and others: the version text as written.
    """
    if not isinstance(s, str) or not s.strip():
        return None
    family = schema_format_family(s)
    name, version = _split_format(s)
    if family == "protobuf" and name in ("proto3", "proto2"):
        return name[-1]
    if not version:
        return None
    if family == "json":
        m = _DRAFT_RE.match(version.replace("draft/", ""))
        if m:
            return f"draft-0{m.group(1)}" if m.group(1) else m.group(2)
        return version
    if family == "protobuf":
        return version.split(".", 1)[0]
    return s.strip().partition("/")[2].strip()


_PROTOCOLS = {
    "http": "HTTP",
    "https": "HTTP",
    "amqp": "AMQP/1.0",
    "mqtt": "MQTT/5.0",
    "kafka": "KAFKA",
    "nats": "NATS",
    "pulsar": "PULSAR",
    "rocketmq": "ROCKETMQ",
}


def protocol_family(s: str | None) -> str | None:
    """Canonical protocol id for a protocol string (case-insensitive): ``HTTP`` for any
    ``HTTP[/x]``, ``AMQP/1.0``, ``MQTT/5.0`` or ``MQTT/3.1.1`` (bare ``MQTT`` is 5.0),
    ``KAFKA``, ``NATS``, ``PULSAR``, ``ROCKETMQ``; ``None`` when unknown."""
    if not isinstance(s, str):
        return None
    name, version = _split_format(s)
    canonical = _PROTOCOLS.get(name)
    if canonical is None:
        return None
    if name == "mqtt" and version.startswith("3"):
        return "MQTT/3.1.1"
    if name == "amqp" and version and not version.startswith("1"):
        return None
    return canonical


def is_cloudevents(s: str | None) -> bool:
    """True for ``CloudEvents/1.0`` in any letter case (and bare ``CloudEvents``)."""
    if not isinstance(s, str):
        return False
    name, version = _split_format(s)
    return name == "cloudevents" and version in ("", "1.0", "1")


# --------------------------------------------------------------------------------------------
# reading sources


class _SourceError(Exception):
    """A source could not be read or parsed; carries the diagnostic to report."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrTimestampLoader(_BaseLoader):  # type: ignore[misc]
    """Safe YAML loader that keeps timestamps as strings (catalogs are JSON data)."""


_StrTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _str_keys(o: Any) -> Any:
    """YAML may produce int/float/bool mapping keys (``1.0:``); xRegistry keys are strings."""
    if isinstance(o, dict):
        return {(k if isinstance(k, str) else _yaml_key(k)): _str_keys(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_str_keys(v) for v in o]
    return o


def _yaml_key(k: Any) -> str:
    if isinstance(k, bool):
        return "true" if k else "false"
    return "null" if k is None else str(k)


def parse_text(text: str, yaml_syntax: bool) -> Any:
    """Parse a document; raises ``_SourceError`` (XRG101) with line:col on syntax errors."""
    if not yaml_syntax:
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise _SourceError(
                "XRG101", f"invalid JSON at line {e.lineno}:{e.colno}: {e.msg}"
            ) from None
    try:
        data = yaml.load(text, Loader=_StrTimestampLoader)  # noqa: S506 (safe loader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise _SourceError("XRG101", f"invalid YAML{where}: {problem}") from None
    return _str_keys(data)


def _is_yaml_name(name: str) -> bool:
    return name.lower().endswith((".yaml", ".yml"))


def _read_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise _SourceError("XRG100", f"cannot read file: {_os_reason(e)}") from None
    return parse_text(text, _is_yaml_name(path.name))


def _os_reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)


def display_name(source: str, cwd: Path | None = None) -> str:
    """How diagnostics name a source: URLs as given; a relative path as given (normalized,
    ``/``-separated); an absolute path relative to the cwd when it lies below it."""
    if _URL_RE.match(source):
        return source
    p = Path(source)
    if p.is_absolute():
        try:
            p = p.relative_to(cwd or Path.cwd())
        except ValueError:
            return p.as_posix()
    return Path(os.path.normpath(p)).as_posix()


# -------------------------------------------------------------------------------- http(s)


def _add_query(url: str, **params: str) -> str:
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    names = {k for k, _ in query}
    query += [(k, v) for k, v in params.items() if k not in names]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, safe="*,")))


def _fetch(url: str, timeout: float) -> Any:
    """GET one URL and parse it (JSON, or YAML by name/content type)."""
    req = urllib.request.Request(
        url, headers={"Accept": "application/json, application/yaml;q=0.9, */*;q=0.1"}
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (http/https only)
            body = resp.read()
            ctype = resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        raise _SourceError("XRG100", f"HTTP {e.code} {e.reason} fetching {url}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise _SourceError("XRG100", f"cannot fetch {url}: {reason}") from None
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _SourceError("XRG101", f"{url} did not return UTF-8 text") from None
    path = urllib.parse.urlsplit(url).path
    return parse_text(text, _is_yaml_name(path) or "yaml" in ctype.lower())


def _load_url(url: str, timeout: float) -> Any:
    """Fetch an xRegistry document or server root. A server root that only links its
    collections (``messagegroupsurl`` without ``messagegroups``) is fetched again with
    ``?inline=*``; collections still missing are fetched from their ``<coll>url``."""
    doc = _fetch(url, timeout)
    if not isinstance(doc, dict) or not _missing_collections(doc):
        return doc
    try:
        inlined = _fetch(_add_query(url, inline="*"), timeout)
    except _SourceError:
        inlined = None  # a server without the inline flag: fetch the collections instead
    if isinstance(inlined, dict):
        doc = inlined
    for coll in _missing_collections(doc):
        part = _fetch(_add_query(str(doc[coll + "url"]), inline="*"), timeout)
        if isinstance(part, dict):
            doc[coll] = part
    return doc


def _missing_collections(doc: dict[str, Any]) -> list[str]:
    return [
        c
        for c in _COLLECTIONS
        if c not in doc and isinstance(doc.get(c + "url"), str) and doc.get(c + "count") != 0
    ]


# ---------------------------------------------------------------------------- normalization


class _Norm:
    """Normalization helpers bound to one entity's location (file + pointer)."""

    __slots__ = ("diags", "file", "ptr")

    def __init__(self, diags: Diagnostics, file: str, ptr: str) -> None:
        self.diags = diags
        self.file = file
        self.ptr = ptr

    def rename(self, data: dict[str, Any], old: str, new: str, code: str = "XRG110") -> None:
        """Rename a legacy attribute (only when the current spelling is absent)."""
        if old in data and new not in data:
            data[new] = data.pop(old)
            self.diags.warning(
                code,
                self.file,
                self.ptr + pointer(old),
                f"legacy attribute '{old}' read as '{new}'",
            )

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
        elif protocol_family(fmt) is not None:
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
    ("dataschemaurl", "dataschemauri"),
    ("schema", "dataschema"),
    ("basemessageurl", "basemessage"),
    ("basemessageuri", "basemessage"),
    ("protocolmetadata", "protocoloptions"),
)

_AMQP_SECTIONS = (
    ("application_properties", "application-properties"),
    ("message_annotations", "message-annotations"),
    ("delivery_annotations", "delivery-annotations"),
)


def normalize_message(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message in current spelling (see module docstring); warnings for each fix."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "message", key, warn_missing=True)
    n.format_to_envelope_or_protocol(data)
    for old, new in _MESSAGE_RENAMES:
        n.rename(data, old, new)
    em = data.get("envelopemetadata")
    if isinstance(em, dict):
        data["envelopemetadata"] = _normalize_envelopemetadata(em, n)
    po = data.get("protocoloptions")
    if isinstance(po, dict):
        data["protocoloptions"] = _normalize_protocoloptions(po, data.get("protocol"), n)
    return data


def _normalize_envelopemetadata(em: dict[str, Any], n: _Norm) -> dict[str, Any]:
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


def _normalize_protocoloptions(po: dict[str, Any], protocol: Any, n: _Norm) -> dict[str, Any]:
    family = protocol_family(protocol)
    po = dict(po)
    n2 = _Norm(n.diags, n.file, n.ptr + "/protocoloptions")
    if family == "AMQP/1.0":
        for old, new in _AMQP_SECTIONS:
            n2.rename(po, old, new, "XRG117")
    elif family in ("MQTT/5.0", "MQTT/3.1.1"):
        props = po.get("properties")
        if isinstance(props, dict) and "topic_name" not in po:
            po.pop("properties")
            for k, v in props.items():
                po.setdefault(k, v)
            n.diags.warning(
                "XRG117",
                n.file,
                n2.ptr + "/properties",
                "legacy MQTT 'properties' wrapper read as top-level protocol options",
            )
        n2.rename(po, "topic", "topic_name", "XRG117")
        n2.rename(po, "user-properties", "user_properties", "XRG117")
    return po


def normalize_messagegroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a message group (its ``messages`` included, legacy ``definitions`` renamed)."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
    n.ensure_id(data, "messagegroup", key)
    n.format_to_envelope_or_protocol(data)
    n.rename(data, "definitions", "messages")
    return data


def normalize_endpoint(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of an endpoint: legacy ``config`` -> ``protocol``/``protocoloptions``, ``format``
    -> ``envelope``, string ``usage`` -> list, inline messages normalized like group messages."""
    data = dict(data)
    n = _Norm(diags, file, ptr)
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
_META_ATTRS = (
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
    n = _Norm(diags, file, ptr)
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
    _Norm(diags, file, ptr).ensure_id(data, "version", key)
    return data


def normalize_schemagroup(
    data: dict[str, Any], key: str, file: str, ptr: str, diags: Diagnostics
) -> dict[str, Any]:
    """A copy of a schema group (legacy ``id`` -> ``schemagroupid``)."""
    data = dict(data)
    _Norm(diags, file, ptr).ensure_id(data, "schemagroup", key)
    return data


# ------------------------------------------------------------------------------- stacking


class _Stacker:
    """Adds documents (or split-file pieces) to a ``Registry``, later shadowing earlier."""

    def __init__(self, reg: Registry, diags: Diagnostics) -> None:
        self.reg = reg
        self.diags = diags

    # -- whole documents
    def document(self, doc: Any, file: str, ptr: str = "") -> None:
        if not isinstance(doc, dict):
            self.diags.error(
                "XRG102", file, ptr, f"a catalog document must be an object, not {_kind(doc)}"
            )
            return
        for coll, add in (
            ("messagegroups", self.messagegroup),
            ("schemagroups", self.schemagroup),
            ("endpoints", self.endpoint),
        ):
            if coll in doc:
                self.collection(doc[coll], file, ptr + "/" + coll, add)

    def collection(
        self, items: Any, file: str, ptr: str, add: Callable[[str, Any, str, str], None]
    ) -> None:
        if not isinstance(items, dict):
            if items is not None:
                self.diags.error(
                    "XRG103",
                    file,
                    ptr,
                    f"a collection must be an object keyed by id, not {_kind(items)}",
                )
            return
        for key, item in items.items():
            add(key, item, file, ptr + pointer(key))

    def _entity_ok(self, item: Any, file: str, ptr: str) -> bool:
        if isinstance(item, dict):
            return True
        self.diags.error("XRG103", file, ptr, f"an entity must be an object, not {_kind(item)}")
        return False

    # -- message groups
    def messagegroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_messagegroup(item, gid, file, ptr, self.diags)
        msgs = data.pop("messages", None)
        entry = self.reg.messagegroups.get(gid)
        if entry is None:
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        mkey = "definitions" if "definitions" in item and "messages" not in item else "messages"
        if msgs is not None:
            self.collection(
                msgs, file, ptr + "/" + mkey, lambda k, m, f, p: self.message(gid, k, m, f, p)
            )

    def message(self, gid: str, mid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        entry = self.reg.messagegroups.get(gid)
        if entry is None:  # a split file for a group the documents never declared
            entry = self.reg.messagegroups[gid] = MessageGroupEntry(
                Entity({"messagegroupid": gid}, file, ptr)
            )
        entry.messages[mid] = Entity(normalize_message(item, mid, file, ptr, self.diags), file, ptr)

    # -- schema groups
    def schemagroup(self, gid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        data = normalize_schemagroup(item, gid, file, ptr, self.diags)
        schemas = data.pop("schemas", None)
        entry = self.reg.schemagroups.get(gid)
        if entry is None:
            entry = self.reg.schemagroups[gid] = SchemaGroupEntry(Entity(data, file, ptr))
        else:
            entry.entity = Entity({**entry.entity.data, **data}, file, ptr)
        if schemas is not None:
            self.collection(
                schemas, file, ptr + "/schemas", lambda k, s, f, p: self.schema(gid, k, s, f, p)
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
        data = normalize_schema(item, sid, file, ptr, self.diags)
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
                ptr + "/versions",
                f"'versions' must be an object, not {_kind(versions)}",
            )
            return
        # a version made from the resource's own document is located at the resource
        synthesized = "versions" not in item
        for vid, v in versions.items():
            self.version(
                entry, vid, v, file, ptr if synthesized else ptr + pointer("versions", vid)
            )

    def version(self, entry: SchemaEntry, vid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        entry.versions[vid] = Entity(normalize_version(item, vid, file, ptr, self.diags), file, ptr)

    # -- endpoints
    def endpoint(self, eid: str, item: Any, file: str, ptr: str) -> None:
        if not self._entity_ok(item, file, ptr):
            return
        self.reg.endpoints[eid] = Entity(
            normalize_endpoint(item, eid, file, ptr, self.diags), file, ptr
        )


def _kind(o: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", type(None): "null"}.get(
        type(o), type(o).__name__
    )


# ------------------------------------------------------------------------------ split files

_DOC_KEYS = frozenset(
    {
        "versions",
        "schema",
        "schemaurl",
        "schemabase64",
        "format",
        "schemaid",
        "id",
        "meta",
        "versionid",
    }
)


def _load_folder(folder: Path, display: str, st: _Stacker) -> None:
    """Stack every ``index.json`` (or ``.yaml``) below a split-file folder, shallow first."""
    files = [
        p
        for p in folder.rglob("index.*")
        if p.is_file() and p.suffix.lower() in (".json", ".yaml", ".yml")
    ]
    if not files:
        st.diags.error("XRG100", display, "", "folder holds no index.json")
        return
    files.sort(key=lambda p: (len(p.relative_to(folder).parts), p.as_posix()))
    for path in files:
        rel = path.relative_to(folder)
        file = f"{display}/{rel.as_posix()}" if display not in ("", ".") else rel.as_posix()
        try:
            data = _read_file(path)
        except _SourceError as e:
            st.diags.error(e.code, file, "", e.message)
            continue
        _split_piece(list(rel.parts[:-1]), data, file, st)


def _split_piece(parts: list[str], data: Any, file: str, st: _Stacker) -> None:
    """Place one split file by its folder path (see the module docstring)."""
    n = len(parts)
    coll = parts[0] if parts else None
    adders = {
        "messagegroups": st.messagegroup,
        "schemagroups": st.schemagroup,
        "endpoints": st.endpoint,
    }
    if n == 0:
        st.document(data, file)
    elif coll not in adders:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")
    elif n == 1:
        st.collection(data, file, "", adders[coll])
    elif n == 2:
        adders[coll](parts[1], data, file, "")
    elif n == 4 and coll == "messagegroups" and parts[2] == "messages":
        st.message(parts[1], parts[3], data, file, "")
    elif n == 4 and coll == "schemagroups" and parts[2] == "schemas":
        _split_schema(parts[1], parts[3], data, file, st)
    elif n == 6 and coll == "schemagroups" and parts[2] == "schemas" and parts[4] == "versions":
        _split_version(parts[1], parts[3], parts[5], data, file, st)
    elif n == 4 and coll == "endpoints" and parts[2] == "messages" and isinstance(data, dict):
        ep = st.reg.endpoints.get(parts[1])
        if ep is None:
            st.diags.warning("XRG106", file, "", f"endpoint '{parts[1]}' is not declared; ignored")
            return
        msgs = dict(ep.data.get("messages") or {})
        msgs[parts[3]] = normalize_message(data, parts[3], file, "", st.diags)
        ep.data = {**ep.data, "messages": msgs}
    else:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")


def _split_schema(gid: str, sid: str, data: Any, file: str, st: _Stacker) -> None:
    if sid.endswith("$meta"):
        sid = sid[: -len("$meta")]
        if isinstance(data, dict):
            meta = {k: v for k, v in data.items() if k in _META_ATTRS}
            rest = {k: v for k, v in data.items() if k not in _META_ATTRS}
            data = {**rest, "meta": meta} if meta else rest
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}  # the bare schema document of the default version
    st.schema(gid, sid, data, file, "")


def _split_version(gid: str, sid: str, vid: str, data: Any, file: str, st: _Stacker) -> None:
    ptr = ""
    if (
        isinstance(data, dict)
        and isinstance(data.get("versions"), dict)
        and vid in data["versions"]
    ):
        data, ptr = data["versions"][vid], pointer("versions", vid)
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}
    group = st._schema_group_entry(gid, file, ptr)
    entry = group.schemas.get(sid)
    if entry is None:
        entry = group.schemas[sid] = SchemaEntry(Entity({"schemaid": sid}, file, ptr))
    st.version(entry, vid, data, file, ptr)


# --------------------------------------------------------------------------------- entry


def load(
    sources: Sequence[str], diags: Diagnostics, *, timeout: float = DEFAULT_TIMEOUT
) -> Registry:
    """Load and stack the given sources (files, split-file folders, http(s) URLs), in order.

    Never raises for bad input: every problem becomes a diagnostic (I/O ones have a code in
    ``IO_ERROR_CODES``) and the remaining sources still load.
    """
    reg = Registry()
    st = _Stacker(reg, diags)
    with paused_gc():
        for source in sources:
            _load_source(source, reg, st, timeout)
    return reg


def _load_source(source: str, reg: Registry, st: _Stacker, timeout: float) -> None:
    """Load one source into the registry; read/parse failures become diagnostics."""
    name = display_name(source)
    reg.sources.append(name)
    try:
        if _URL_RE.match(source):
            st.document(_load_url(source, timeout), name)
        elif Path(source).is_dir():
            _load_folder(Path(source), name, st)
        else:
            st.document(_read_file(Path(source)), name)
    except _SourceError as e:
        st.diags.error(e.code, name, "", e.message)
