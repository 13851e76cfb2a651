"""Load stage: the attribute names of each entity, checked against what xRegistry defines.

Every key of a registry document, message group, message, schema group, schema, schema
version, endpoint, and of the objects inside them (``meta``, ``deprecated``, an
``envelopemetadata`` attribute definition, ``envelopeoptions``, an endpoint address or
authorization entry) is one of:

- a name xRegistry 1.0 (core, message, schema and endpoint specifications) defines for that
  entity, or a legacy spelling ``normalize`` reads under its current name: nothing to say;
- the same name in another case or with separators (``protocolOptions``, ``data_schema_uri``):
  read under the defined name, warning XRG127 (xRegistry names are lower case, so the author
  meant the defined one; without the rename the value would be lost);
- a name close to a defined one (``protocoloption``, ``schemaformatr``): warning XRG128 naming
  the closest, and the value is not read;
- any other name: an extension attribute, which xRegistry allows on every entity. It is kept
  and not read, with note XRG129 (one per name, kind and file, counting the other places), so
  nothing a catalog declares goes unmentioned (names are compared with the defined ones once
  each, for up to ``SEARCHES`` distinct names per load, so that any document costs bounded
  time). ``version`` and ``type`` (entity-kind tags such
  as ``"type": "schema"``), attributes of earlier xRegistry and CNCF discovery drafts that real
  catalogs still carry, are always read as extensions, never as misspellings. In an attribute
  definition, which xRegistry closes to ``type``, ``value``, ``required`` and ``description``,
  any other name is warning XRG128.

The rule follows the real catalogs: their unknown keys are draft attributes (``version``,
``type``, hundreds of times) and misspellings (``schemaformatr``); only the latter are close to
a defined name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostics, pointer
from ..endpoints.addresses import CREDENTIALS
from ..suggest import closest, squash

#: attributes of every xRegistry entity (core spec, "Common attributes"), plus the ``$schema``
#: a single-entity document may carry and ``$comment`` (JSON has no comments; catalogs borrow
#: JSON Schema's keyword for them)
_COMMON = frozenset(
    {
        "self",
        "shortself",
        "xid",
        "epoch",
        "name",
        "description",
        "documentation",
        "icon",
        "labels",
        "createdat",
        "modifiedat",
        "deprecated",
        "$schema",
        "$comment",
    }
)
#: the attributes of a Version (and of a Resource showing its default Version)
_VERSION = frozenset(
    {
        "versionid",
        "isdefault",
        "ancestorid",
        "contenttype",
        "format",
        "formatvalidated",
        "formatvalidatedreason",
        "compatibilityvalidated",
        "compatibilityvalidatedreason",
    }
)
#: the Resource-level attributes beside the default Version's
_RESOURCE = frozenset({"meta", "metaurl", "versions", "versionsurl", "versionscount"})
#: attributes of earlier xRegistry and CNCF discovery drafts: read as extensions, never as a
#: misspelling of a defined name (``version`` is close to ``versions``)
_DRAFT = frozenset({"version", "type"})


def _collection(name: str) -> frozenset[str]:
    return frozenset({name, name + "url", name + "count"})


@dataclass(frozen=True, slots=True)
class Shape:
    """The names one kind of object defines, its legacy spellings, and its nested objects."""

    #: how diagnostics name the object ("a message")
    what: str
    names: frozenset[str]
    #: legacy spellings ``normalize`` reads (known: they are read or warned there)
    legacy: frozenset[str] = frozenset()
    #: whether extension attributes are allowed (every entity; not attribute definitions)
    open: bool = True
    #: attribute -> the shape of its object value (``"map:<shape>"``: a map of such objects,
    #: ``"list:<shape>"``: an array of them)
    nested: Mapping[str, str] = field(default_factory=dict)
    #: names (``squash``-ed) another check reports as errors: nothing more to say about them
    reported: frozenset[str] = frozenset()

    def known(self, key: str) -> bool:
        return key in self.names or key in self.legacy


SHAPES: dict[str, Shape] = {
    "registry": Shape(
        "a registry document",
        _COMMON
        | {"specversion", "registryid", "capabilities", "model", "modelsource"}
        | _collection("messagegroups")
        | _collection("schemagroups")
        | _collection("endpoints"),
        legacy=frozenset({"id", "definitionGroups", "definitiongroups", "schemaGroups"}),
    ),
    "messagegroup": Shape(
        "a message group",
        _COMMON
        | {
            "messagegroupid",
            "envelope",
            "envelopeoptions",
            "protocol",
            "protocoloptions",
        }
        | {"xref", "meta"}
        | _collection("messages"),
        legacy=frozenset({"id", "format"}) | _collection("definitions"),
        nested={
            "envelopeoptions": "envelopeoptions",
            "meta": "meta",
            "deprecated": "deprecated",
        },
    ),
    "message": Shape(
        "a message",
        _COMMON
        | _VERSION
        | _RESOURCE
        | {
            "messageid",
            "basemessage",
            "xref",
            "envelope",
            "envelopemetadata",
            "envelopeoptions",
            "protocol",
            "protocoloptions",
            "dataschemaformat",
            "dataschema",
            "dataschemauri",
            "dataschemaxid",
            "datacontenttype",
        },
        legacy=frozenset(
            {
                "id",
                "format",
                "metadata",
                "schemaurl",
                "schemauri",
                "dataschemaurl",
                "schema",
                "basemessageurl",
                "basemessageuri",
                "protocolmetadata",
                "ancestor",
            }
        ),
        nested={
            "envelopemetadata": "map:attribute",
            "envelopeoptions": "envelopeoptions",
            "meta": "meta",
            "deprecated": "deprecated",
        },
    ),
    "schemagroup": Shape(
        "a schema group",
        _COMMON | {"schemagroupid", "format", "constraints"} | _collection("schemas"),
        legacy=frozenset({"id"}),
        nested={"deprecated": "deprecated"},
    ),
    "schema": Shape(
        "a schema",
        _COMMON | _VERSION | _RESOURCE | {"schemaid", "schema", "schemaurl", "schemabase64"},
        legacy=frozenset({"id", "schemauri", "defaultversionid", "xref", "ancestor"}),
        nested={"meta": "meta", "deprecated": "deprecated"},
    ),
    "version": Shape(
        "a schema version",
        _COMMON | _VERSION | {"schemaid", "schema", "schemaurl", "schemabase64"},
        legacy=frozenset({"id", "schemauri", "ancestor"}),
        nested={"deprecated": "deprecated"},
    ),
    "endpoint": Shape(
        "an endpoint",
        _COMMON
        | {
            "endpointid",
            "usage",
            "channel",
            "envelope",
            "envelopeoptions",
            "protocol",
            "protocoloptions",
            "messagegroups",
        }
        | _collection("messages"),
        legacy=frozenset({"id", "format", "config"}) | _collection("definitions"),
        nested={"envelopeoptions": "envelopeoptions", "deprecated": "deprecated"},
    ),
    "meta": Shape(
        "a resource's meta",
        _COMMON
        | {
            "messageid",
            "schemaid",
            "xref",
            "readonly",
            "compatibility",
            "compatibilityauthority",
            "defaultversionid",
            "defaultversionurl",
            "defaultversionsticky",
        },
        nested={"deprecated": "deprecated"},
    ),
    "deprecated": Shape(
        "'deprecated'",
        frozenset({"effective", "removal", "alternative", "documentation", "docs"}),
    ),
    "envelopeoptions": Shape("'envelopeoptions'", frozenset({"mode", "format"})),
    "attribute": Shape(
        "an attribute definition",
        frozenset({"type", "value", "required", "description", "specurl"}),
        open=False,
    ),
    "address": Shape(
        "an endpoint address",
        frozenset({"uri", "bootstrap.servers", "security.protocol", "sasl.mechanism"}),
        legacy=frozenset({"url"}),
    ),
    "authorization": Shape(
        "an authorization entry",
        frozenset({"type", "mechanism", "resourceuri", "authorityuri"}),
        reported=CREDENTIALS,
    ),
}


#: kind -> squashed defined name -> the name (``fold``: one lookup per key)
_SQUASHED = {kind: {squash(n): n for n in shape.names} for kind, shape in SHAPES.items()}


def _same(kind: str, key: str) -> str | None:
    """The defined name ``key`` spells in another case or with other separators."""
    target = _SQUASHED[kind].get(squash(key))
    return None if target == key else target


#: distinct unknown names compared with the defined ones per load (each costs ~0.1 ms)
SEARCHES = 10_000
_UNSEARCHED = object()


class Names:
    """The name checks of one load: ``fold`` before an entity is normalized, ``check`` after;
    ``finish`` emits the extension notes (one per name, kind and file)."""

    __slots__ = ("diags", "_extensions", "_near")

    def __init__(self, diags: Diagnostics) -> None:
        self.diags = diags
        #: (file, what, key) -> pointers where that extension attribute occurs
        self._extensions: dict[tuple[str, str, str], list[str]] = {}
        #: (kind, name) -> the closest defined name; bounded (``SEARCHES``)
        self._near: dict[tuple[str, str], str | None] = {}

    # -- case and separator variants
    def fold(self, data: dict[str, Any], kind: str, file: str, ptr: str) -> dict[str, Any]:
        """``data`` with names that differ from a defined one only in case or separators
        renamed to it (warning XRG127), also in its nested objects: a copy when it changes,
        else ``data`` itself."""
        if _all_known(data, kind):
            return data
        shape = SHAPES[kind]
        out: dict[str, Any] = {}
        variants: list[tuple[str, str]] = []
        for key, value in data.items():
            target = None if shape.known(key) or not isinstance(key, str) else _same(kind, key)
            if target is None:
                out[key] = value
            else:
                variants.append((key, target))
        for key, target in variants:
            if target in out:
                self.diags.warning(
                    "XRG127",
                    file,
                    ptr + pointer(key),
                    f"'{key}' is ignored: '{target}' is set (xRegistry attribute names are"
                    " lower case)",
                )
            else:
                out[target] = data[key]
                self.diags.warning(
                    "XRG127",
                    file,
                    ptr + pointer(key),
                    f"'{key}' read as '{target}' (xRegistry attribute names are lower case)",
                )
        for attr, sub in shape.nested.items():
            if attr in out and not _all_known(out[attr], sub):
                at = ptr + pointer(_original(data, variants, attr))
                out[attr] = self._nested(out[attr], sub, file, at, self.fold)
        return out

    # -- unknown names
    def check(self, data: Mapping[str, Any], kind: str, file: str, ptr: str) -> None:
        """Warn about names close to a defined one (XRG128) and note extension attributes
        (XRG129) in ``data`` (normalized) and its nested objects."""
        if _all_known(data, kind):
            return
        shape = SHAPES[kind]
        for key in data:
            if not isinstance(key, str) or shape.known(key) or squash(key) in shape.reported:
                continue
            if key in _DRAFT and shape.open:
                self._extension(file, shape.what, key, ptr + pointer(key))
                continue
            near = self._closest(kind, key) if key not in _DRAFT else None
            if near is not None or not shape.open:
                hint = f" (did you mean '{near}'?)" if near is not None else ""
                self.diags.warning(
                    "XRG128",
                    file,
                    ptr + pointer(key),
                    f"unknown attribute '{key}' of {shape.what} is not read{hint}",
                )
            else:
                self._extension(file, shape.what, key, ptr + pointer(key))
        for attr, sub in shape.nested.items():
            if attr in data and not _all_known(data[attr], sub):
                self._nested(data[attr], sub, file, ptr + pointer(attr), self._check_one)

    def _closest(self, kind: str, key: str) -> str | None:
        """The defined name of ``kind`` closest to ``key``, computed once per distinct name and
        for at most ``SEARCHES`` distinct names per load: a document of countless distinct
        extension names costs bounded time (the rest are read as extensions)."""
        found = self._near.get((kind, key), _UNSEARCHED)
        if found is not _UNSEARCHED:
            return found  # type: ignore[return-value]
        if len(self._near) >= SEARCHES:
            return None
        shape = SHAPES[kind]
        near = self._near[(kind, key)] = closest(key, shape.names | shape.legacy)
        return near

    def _check_one(self, value: dict[str, Any], kind: str, file: str, ptr: str) -> dict[str, Any]:
        self.check(value, kind, file, ptr)
        return value

    def check_endpoint_options(self, po: Any, file: str, ptr: str) -> None:
        """The address and authorization entries of an endpoint's ``protocoloptions``."""
        if isinstance(po, Mapping):
            for attr, sub in (
                ("endpoints", "list:address"),
                ("authorization", "list:authorization"),
            ):
                if attr in po:
                    self._nested(po[attr], sub, file, ptr + pointer(attr), self._check_one)

    def fold_endpoint_options(self, po: Any, file: str, ptr: str) -> Any:
        if not isinstance(po, dict):
            return po
        out = dict(po)
        for attr, sub in (
            ("endpoints", "list:address"),
            ("authorization", "list:authorization"),
        ):
            if attr in out:
                out[attr] = self._nested(out[attr], sub, file, ptr + pointer(attr), self.fold)
        return out

    @staticmethod
    def _nested(value: Any, sub: str, file: str, ptr: str, apply: Any) -> Any:
        """``apply(obj, kind, file, pointer)`` on the objects of a nested value of shape
        ``sub``; other values stay as they are (the structure check reports them)."""
        form, _, kind = sub.rpartition(":")
        if form == "map" and isinstance(value, dict):
            return {
                k: apply(v, kind, file, ptr + pointer(k)) if isinstance(v, dict) else v
                for k, v in value.items()
            }
        if form == "list" and isinstance(value, list):
            return [
                apply(v, kind, file, ptr + pointer(i)) if isinstance(v, dict) else v
                for i, v in enumerate(value)
            ]
        if not form and isinstance(value, dict):
            return apply(value, kind, file, ptr)
        return value

    def _extension(self, file: str, what: str, key: str, ptr: str) -> None:
        self._extensions.setdefault((file, what, key), []).append(ptr)

    def finish(self) -> None:
        """The extension notes: one per attribute name, kind of object and file."""
        for (file, what, key), ptrs in self._extensions.items():
            more = len(ptrs) - 1
            also = f" (also in {more} more {'place' if more == 1 else 'places'} of this file)"
            draft = " (an attribute of earlier xRegistry drafts)" if key in _DRAFT else ""
            self.diags.note(
                "XRG129",
                file,
                ptrs[0],
                f"'{key}' is not an attribute of {what} in xRegistry 1.0{draft}: kept as an"
                f" extension attribute and not read{also if more else ''}",
            )
        self._extensions.clear()


def _all_known(value: Any, sub: str) -> bool:
    """Whether every name of ``value`` (of shape ``sub``, see ``Shape.nested``) and of its
    nested objects is defined: nothing to fold or report (the common case, checked cheaply)."""
    form, _, kind = sub.rpartition(":")
    if form == "map" and isinstance(value, dict):
        return all(_all_known(v, kind) for v in value.values())
    if form == "list" and isinstance(value, list):
        return all(_all_known(v, kind) for v in value)
    if form or not isinstance(value, dict):
        return True  # not the shape's object: the structure check reports it
    shape = SHAPES[kind]
    known = shape.names | shape.legacy
    return known.issuperset(value) and all(
        _all_known(value[attr], nested) for attr, nested in shape.nested.items() if attr in value
    )


def _original(data: Mapping[str, Any], variants: list[tuple[str, str]], attr: str) -> str:
    """The key ``attr`` was written as in ``data`` (a variant that ``fold`` renamed)."""
    if attr in data:
        return attr
    return next((key for key, target in variants if target == attr), attr)
