"""Validate stage: structural checks (our pydantic models, ``model.catalog``) and the semantic
rules of the xRegistry message, schema and endpoint specs, on the loaded ``Registry``.

Every problem becomes a diagnostic; nothing stops the run. References are not resolved here
(``resolve`` does that), so rules that need a complete message (required CloudEvents attributes,
mutually exclusive options, payload declarations) skip messages with a ``basemessage`` or an
``xref``: ``resolve`` calls ``validate_resolved_message`` on the merged result instead.
Rules about what a message declares itself (attribute names, types, constant values) apply to
every message where it is written, so each problem is reported once, at its own location.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from . import formats, protocols
from .cloudevents import (
    DEFAULT_TYPES,
    FREE_CORE,
    IMPLICITLY_REQUIRED,
    NOW,
    absolute_dataschema,
    is_cloudevents,
    may_be_absolute,
    registry_base,
    takes_group_envelope,
)
from .diagnostics import Diagnostics, pointer
from .endpoints.checks import check_endpoint, message_checked
from .formats.spelling import (
    format_hint,
    format_problem,
    schema_format_family,
    schema_format_version,
)
from .load import paused_gc
from .load.errors import SourceError
from .load.text import parse_text
from .model import catalog as cm
from .model.registry import Entity, Registry, SchemaEntry
from .value_types import VALUE_CHECKS
from .value_types import template_problem as template_problem

Data = dict[str, Any]

# ------------------------------------------------------------------------------ entry points


def validate(registry: Registry, diags: Diagnostics) -> None:
    """Check every entity of ``registry``; append the problems to ``diags``."""
    with paused_gc():
        _validate(registry, diags)


def _validate(registry: Registry, diags: Diagnostics) -> None:
    for group in registry.messagegroups.values():
        g = group.entity
        _structure(cm.MessageGroup, g, "XRG120", "message group", diags)
        _check_selectors(g.data, g.file, g.pointer, diags)
        _check_shared_options(g.data, g.file, g.pointer, diags)
        for msg in group.messages.values():
            validate_message(msg.data, msg.file, msg.pointer, diags, group=g.data)
    for sgroup in registry.schemagroups.values():
        _structure(cm.SchemaGroup, sgroup.entity, "XRG122", "schema group", diags)
        _check_format_name(sgroup.entity.data, "format", sgroup.entity.file, sgroup.entity.pointer, diags)
        for schema in sgroup.schemas.values():
            _check_schema(schema, sgroup.entity.data, diags)
    for ep in registry.endpoints.values():
        _check_endpoint(ep, diags)


def validate_message(
    data: Data, file: str, ptr: str, diags: Diagnostics, group: Data | None = None
) -> None:
    """All checks of one message as written in the catalog (its structure, what it declares,
    and, unless it inherits through ``basemessage``/``xref``, the whole-message rules)."""
    _structure(cm.Message, Entity(data, file, ptr), "XRG121", "message", diags)
    read = data
    if group is not None:
        _check_group_consistency(data, group, file, ptr, diags)
        read = with_group_selectors(data, group)
    _check_declared(read, file, ptr, diags)
    if not inherits(data):
        _check_complete(read, file, ptr, diags, declared=data)


def with_group_selectors(data: Data, group: Data) -> Data:
    """``data`` with its group's ``envelope`` and ``protocol`` where it declares none: the
    message is read (and checked) under them (``resolve`` notes it, XRG147)."""
    taken = {
        attr: group[attr]
        for attr in ("envelope", "protocol")
        if data.get(attr) is None and isinstance(group.get(attr), str)
    }
    if "envelope" in taken and not takes_group_envelope(data):
        del taken["envelope"]  # a plain protocol message
    return {**data, **taken} if taken else data


def validate_resolved_message(
    data: Data, file: str, ptr: str, diags: Diagnostics, group: Data | None = None
) -> None:
    """Whole-message rules for a message after ``basemessage`` resolution (the merged data),
    reported at the derived message's location. ``validate`` already ran them for messages
    without ``basemessage``/``xref``; an xref'd message is a copy of its checked target, so
    call this for ``basemessage``-derived messages only."""
    _check_complete(data, file, ptr, diags)
    if group is not None:
        _check_group_consistency(data, group, file, ptr, diags)


def inherits(data: Data) -> bool:
    """True when the message takes (part of) its definition from another one."""
    meta = data.get("meta")
    return bool(
        data.get("basemessage") or data.get("xref") or (isinstance(meta, dict) and meta.get("xref"))
    )


# ------------------------------------------------------------------------------ structure


def _structure(
    model: type[BaseModel], ent: Entity, code: str, what: str, diags: Diagnostics
) -> bool:
    """Validate ``ent.data`` against ``model``; map pydantic locations to JSON pointers."""
    try:
        model.model_validate(ent.data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            diags.error(
                code,
                ent.file,
                ent.pointer + _loc_pointer(ent.data, err["loc"], err["type"] == "missing"),
                f"invalid {what}: {_INSTANCE_OF.sub('', err['msg'])}",
            )
        return False
    return True


_INSTANCE_OF = re.compile(r" or instance of \w+")


def _loc_pointer(data: Any, loc: tuple[int | str, ...], missing: bool) -> str:
    """Follow a pydantic error location through the data, skipping validator/union tags."""
    tokens: list[str | int] = []
    cur = data
    for i, tok in enumerate(loc):
        if isinstance(cur, dict) and tok in cur:
            tokens.append(tok)
            cur = cur[tok]
        elif isinstance(cur, list) and isinstance(tok, int) and 0 <= tok < len(cur):
            tokens.append(tok)
            cur = cur[tok]
        elif missing and i == len(loc) - 1 and isinstance(tok, str):
            tokens.append(tok)
    return pointer(*tokens)


# ------------------------------------------------------------------ envelope / protocol ids


def _check_selectors(data: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    """``envelope`` and ``protocol`` names of a group, message or endpoint."""
    env = data.get("envelope")
    if isinstance(env, str) and not is_cloudevents(env):
        diags.warning(
            "XRG139",
            file,
            ptr + "/envelope",
            f"envelope '{env}' is not supported (only CloudEvents/1.0); it is ignored",
        )
    proto = data.get("protocol")
    if isinstance(proto, str) and protocols.lookup(proto) is None:
        diags.warning(
            "XRG162",
            file,
            ptr + "/protocol",
            f"protocol '{proto}' is not supported; its options are neither checked nor applied",
        )


def _check_group_consistency(
    data: Data, group: Data, file: str, ptr: str, diags: Diagnostics
) -> None:
    """A message's envelope and protocol equal its group's when both are set."""
    for attr, code, same in (
        ("envelope", "XRG160", lambda a, b: a.lower() == b.lower()),
        ("protocol", "XRG161", _same_protocol),
    ):
        mine, theirs = data.get(attr), group.get(attr)
        if isinstance(mine, str) and isinstance(theirs, str) and not same(mine, theirs):
            diags.error(
                code,
                file,
                ptr + "/" + attr,
                f"{attr} '{mine}' differs from its group's {attr} '{theirs}'",
            )


def _same_protocol(a: str, b: str) -> bool:
    fa, fb = protocols.lookup(a), protocols.lookup(b)
    return fa is fb if fa and fb else a.lower() == b.lower()


# ----------------------------------------------------------------------- declared content

_CE_NAME = re.compile(r"^[a-z0-9]+$")


def _check_declared(data: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    """Rules about what the message itself declares: CloudEvents attributes and options."""
    em = data.get("envelopemetadata")
    if is_cloudevents(data.get("envelope")) and isinstance(em, dict):
        for name, attr in em.items():
            if isinstance(attr, dict):
                _check_ce_attribute(
                    name, attr, file, ptr + pointer("envelopemetadata", name), diags
                )
    _check_selectors(data, file, ptr, diags)
    _check_format_name(data, "dataschemaformat", file, ptr, diags)
    po = data.get("protocoloptions")
    proto = protocols.lookup(data.get("protocol"))
    if isinstance(po, dict) and proto is not None:
        _check_protocol_options(proto, po, file, ptr + "/protocoloptions", diags)


def _check_ce_attribute(name: str, attr: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    if not _CE_NAME.match(name):
        diags.error(
            "XRG132",
            file,
            ptr,
            f"CloudEvents attribute name '{name}' must be lower-case letters and digits only",
        )
    elif len(name) > 20:
        diags.warning(
            "XRG133", file, ptr, f"CloudEvents attribute name '{name}' is longer than 20 characters"
        )
    if name in IMPLICITLY_REQUIRED and attr.get("required") is False:
        diags.error(
            "XRG130",
            file,
            ptr + "/required",
            f"'{name}' is always required in CloudEvents and must not be declared required: false",
        )
    kind = attr.get("type", DEFAULT_TYPES.get(name, "string"))
    value = attr.get("value")
    if name == "specversion":
        if kind != "string" or (value is not None and value != "1.0"):
            diags.error(
                "XRG131", file, ptr, 'specversion must be declared as type string with value "1.0"'
            )
        return
    if name == "time" and isinstance(value, str) and "{" in value:
        _warn_fixed_time(value, file, ptr, diags)  # a template: as ignored as a constant
        return
    if not isinstance(kind, str):
        return  # structural error already reported
    if kind not in VALUE_CHECKS:
        diags.error(
            "XRG134",
            file,
            ptr + "/type",
            f"unknown attribute type '{kind}' (expected one of {', '.join(sorted(VALUE_CHECKS))})",
        )
        return
    if value is not None:
        problem = VALUE_CHECKS[kind](value)
        if problem:
            diags.error(
                "XRG135", file, ptr + "/value", f"value {value!r} is not a valid {kind}: {problem}"
            )
            return
    if name == "id" and value is not None:
        diags.warning(
            "XRG136", file, ptr + "/value", "the CloudEvents 'id' should not have a constant value"
        )
    if name == "dataschema" and isinstance(value, str) and value and not may_be_absolute(value):
        base = registry_base(file)
        fate = (
            f"it is read as {absolute_dataschema(base, value)!r}, relative to the registry"
            if base
            else "it is left out (the producer does not send it and the dispatcher does not"
            " expect it), as the catalog was not read from an http(s) registry"
        )
        diags.warning(
            "XRG144",
            file,
            ptr + "/value",
            f"'dataschema' value {value!r} is not an absolute URI as CloudEvents requires; {fate}",
        )
    if name == "time" and value is not None and value != NOW:
        _warn_fixed_time(value, file, ptr, diags)
    if name in FREE_CORE and value == "":
        diags.warning(
            "XRG145",
            file,
            ptr + "/value",
            f"'{name}' has an empty value, which CloudEvents does not allow; it is read as no"
            " value (the producer takes it as an argument)",
        )


def _warn_fixed_time(value: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    diags.warning(
        "XRG137",
        file,
        ptr + "/value",
        f"'time' has the fixed value {value!r}; it is ignored (events get the time they"
        f" are created, or the one given, and time is not matched on receipt): use {NOW!r}"
        " for 'now' or omit the value",
    )


# --------------------------------------------------------------------- protocol options

def _check_shared_options(data: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    """The options of a group, which its messages take as defaults."""
    po = data.get("protocoloptions")
    proto = protocols.lookup(data.get("protocol"))
    if isinstance(po, dict) and proto is not None:
        _check_protocol_options(proto, po, file, ptr + "/protocoloptions", diags)


def _check_protocol_options(
    proto: protocols.Protocol, po: Data, file: str, ptr: str, diags: Diagnostics
) -> None:
    """Structure of the options of a known protocol plus its per-option value rules."""
    _structure(proto.model, Entity(po, file, ptr), "XRG126", f"{proto.id} protocol options", diags)
    if proto.check is not None:
        proto.check(po, file, ptr, diags)


# --------------------------------------------------------------------- whole-message rules


def _check_complete(
    data: Data, file: str, ptr: str, diags: Diagnostics, declared: Data | None = None
) -> None:
    """Rules that need the complete message (after basemessage resolution); ``declared``:
    the message as written, when ``data`` holds what it takes from its group."""
    _check_payload(data, file, ptr, diags)
    if is_cloudevents(data.get("envelope")):
        _check_ce_complete(data, file, ptr, diags)
    proto = data.get("protocol")
    po = data.get("protocoloptions")
    if isinstance((declared or data).get("protocol"), str) and po is None:
        diags.warning(
            "XRG163",
            file,
            ptr + "/protocol",
            "'protocoloptions' is required when 'protocol' is set",
        )
    binding = protocols.lookup(proto)
    if isinstance(po, dict) and binding is not None and binding.check_complete is not None:
        binding.check_complete(po, file, ptr + "/protocoloptions", diags)


def _check_ce_complete(data: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    em = data.get("envelopemetadata")
    ce_type = _attr_value(em, "type") if isinstance(em, dict) else None
    if not (isinstance(ce_type, str) and ce_type):
        where = "/envelopemetadata/type" if isinstance(em, dict) and "type" in em else "/envelope"
        base = data.get("basemessage")
        diags.error(
            "XRG146",
            file,
            ptr + where,
            "a CloudEvents message needs a 'type' value; without one its producer would emit"
            " events that every CloudEvents consumer rejects"
            + (f" (its basemessage {base!r} did not resolve)" if isinstance(base, str) else ""),
        )
    if em is None:
        diags.warning(
            "XRG138",
            file,
            ptr + "/envelope",
            "'envelopemetadata' is required with a CloudEvents envelope; only implied attributes are used",
        )
        return
    if not isinstance(em, dict):
        return
    uri = data.get("dataschemauri")
    ds = _attr_value(em, "dataschema")
    if isinstance(uri, str) and isinstance(ds, str) and ds != uri:
        diags.error(
            "XRG142",
            file,
            ptr + "/envelopemetadata/dataschema/value",
            f"CloudEvents 'dataschema' {ds!r} must match 'dataschemauri' {uri!r}",
        )
    mct = data.get("datacontenttype")
    act = _attr_value(em, "datacontenttype")
    if isinstance(mct, str) and isinstance(act, str) and _media(mct) != _media(act):
        diags.error(
            "XRG143",
            file,
            ptr + "/envelopemetadata/datacontenttype/value",
            f"CloudEvents 'datacontenttype' {act!r} differs from the message's 'datacontenttype' {mct!r}",
        )


def _attr_value(em: Data, name: str) -> Any:
    attr = em.get(name)
    return attr.get("value") if isinstance(attr, dict) else None


def _media(ct: str) -> str:
    """Compare content types case-insensitively, ignoring spaces around parameters."""
    return ";".join(p.strip().lower() for p in ct.split(";"))


def _check_payload(data: Data, file: str, ptr: str, diags: Diagnostics) -> None:
    refs = [k for k in ("dataschema", "dataschemauri", "dataschemaxid") if data.get(k) is not None]
    if "dataschema" in refs and "dataschemauri" in refs:
        diags.error(
            "XRG141",
            file,
            ptr + "/dataschema",
            "'dataschema' and 'dataschemauri' are mutually exclusive",
        )
    fmt = data.get("dataschemaformat")
    if refs and fmt is None:
        diags.warning(
            "XRG140",
            file,
            ptr + "/" + refs[0],
            f"'dataschemaformat' is required with '{refs[0]}'; the format is inferred from the schema",
        )
    if "dataschema" in refs:
        _check_schema_document(data["dataschema"], fmt, file, ptr + "/dataschema", diags)
    elif isinstance(fmt, str) and schema_format_family(fmt) is None and refs:
        diags.warning(
            "XRG152",
            file,
            ptr + "/dataschemaformat",
            f"schema format '{fmt}' is not supported; the payload is opaque" + format_hint(fmt),
        )


def _check_format_name(data: Data, attr: str, file: str, ptr: str, diags: Diagnostics) -> None:
    """A declared schema format string of a known format, spelled as xRegistry defines it."""
    fmt = data.get(attr)
    problem = format_problem(fmt) if isinstance(fmt, str) else None
    if problem is not None:
        diags.warning("XRG148", file, ptr + pointer(attr), problem)


# ----------------------------------------------------------------------------- schemas


def _check_schema(schema: SchemaEntry, group: Data, diags: Diagnostics) -> None:
    ent = schema.entity
    _structure(cm.Schema, ent, "XRG123", "schema", diags)
    _check_format_name(ent.data, "format", ent.file, ent.pointer, diags)
    meta = ent.data.get("meta")
    xref = isinstance(meta, dict) and meta.get("xref")
    if not schema.versions and not xref:
        diags.error("XRG155", ent.file, ent.pointer, "schema has no versions and no xref")
    if (
        schema.default_version is not None
        and schema.versions
        and schema.default_version not in schema.versions
    ):
        diags.warning(
            "XRG156",
            ent.file,
            ent.pointer + "/meta/defaultversionid",
            f"defaultversionid '{schema.default_version}' names no version",
        )
    for version in schema.versions.values():
        v = version.data
        _structure(cm.SchemaVersion, version, "XRG124", "schema version", diags)
        if version.pointer != ent.pointer:  # not the resource's own document, checked above
            _check_format_name(v, "format", version.file, version.pointer, diags)
        fmt = v.get("format") or ent.data.get("format") or group.get("format")
        if "schema" in v and fmt is None:
            diags.warning(
                "XRG152",
                version.file,
                version.pointer,
                "schema version has no 'format' (nor its schema or group); it is not checked",
            )
            _check_unlabelled(v["schema"], version.file, version.pointer + "/schema", diags)
        elif "schema" in v:
            _check_schema_document(
                v["schema"], fmt, version.file, version.pointer + "/schema", diags
            )
        elif v.get("schemaurl") is None and v.get("schemabase64") is None:
            diags.error(
                "XRG153",
                version.file,
                version.pointer,
                "schema version has no 'schema', 'schemaurl' or 'schemabase64'",
            )


def _check_schema_document(doc: Any, fmt: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """Check an embedded schema by its format family (``formats/<family>.check``)."""
    family = schema_format_family(fmt) if isinstance(fmt, str) else None
    module = formats.get(family)
    if module is None and fmt is None:
        _check_unlabelled(doc, file, ptr, diags)
    if module is None:
        if isinstance(fmt, str):
            diags.warning(
                "XRG152",
                file,
                ptr,
                f"schema format '{fmt}' is not supported; the payload is opaque"
                + format_hint(fmt),
            )
        return
    if isinstance(doc, str) and module.json_text(doc):
        try:
            doc = parse_text(doc, yaml_syntax=False)  # within the load limits (depth, NaN, ...)
        except SourceError as e:
            if e.code == "XRG101":
                diags.error(
                    "XRG154",
                    file,
                    ptr,
                    f"{module.TITLE} text is not JSON: {e.message.removeprefix('invalid JSON at ')}",
                )
            else:
                diags.error(e.code, file, ptr, f"{module.TITLE} text: {e.message}")
            return
    module.check(doc, schema_format_version(fmt), file, ptr, diags)


def _check_unlabelled(doc: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """A schema without a format is modeled as the format it looks like; one that looks like
    JSON Schema gets the checks its models rely on (its ``$ref``s and keywords, XRG157/158)."""
    if isinstance(doc, dict):
        formats.FORMATS[formats.guess(doc)].check_unlabelled(doc, file, ptr, diags)


# ----------------------------------------------------------------------------- endpoints

def _check_endpoint(ep: Entity, diags: Diagnostics) -> None:
    """Structure, the rc4 endpoint rules (``endpoints.checks``), the message options it gives
    its messages as defaults, and its own messages."""
    data, file, ptr = ep.data, ep.file, ep.pointer
    _structure(cm.Endpoint, ep, "XRG125", "endpoint", diags)
    _check_selectors(data, file, ptr, diags)
    check_endpoint(data, file, ptr, diags)
    po = data.get("protocoloptions")
    proto = protocols.lookup(data.get("protocol"))
    if isinstance(po, dict) and proto is not None:
        defaults = message_checked(proto, po)
        if defaults:
            _check_protocol_options(proto, defaults, file, ptr + "/protocoloptions", diags)
    msgs = data.get("messages")
    if isinstance(msgs, dict):
        for mid, m in msgs.items():
            if isinstance(m, dict):
                validate_message(m, file, ptr + pointer("messages", mid), diags, group=data)
