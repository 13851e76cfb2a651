"""Resolve stage: what each endpoint carries, what it passes to its messages, and the rules
that need the resolved messages (endpoint-spec.md).

- ``messagegroups`` (``#/messagegroups/g``, ``/messagegroups/g``, an absolute URL into this
  registry, see ``xids``): XRG230 (warning, left out) a group that does not exist in this
  registry (``--strict`` makes it an error); XRG231
  (warning) an absolute URI into another registry, whose messages xrgen cannot know; XRG206
  (warning) a reference that names no message group. The endpoint's own ``messages`` form the
  group named like it (load) and come after the referenced groups.
- ``willmessage``: the message it references, held as that message's id; XRG232 (error) when
  it does not exist, XRG233 (warning, option left out) for another registry.
- defaults: the rc4 options that describe its messages (``EndpointOption.message``: MQTT
  ``topic`` is the messages' ``topic_name``, HTTP ``method``/``headers``/``query`` of a
  producer endpoint ...) and the message options written on the endpoint; ``resolve`` merges
  them into the messages of its groups.

Checks of the resolved endpoints, run as passes after resolve (``api.PASSES["resolve"]``):

- XRG234 (error): a message of a referenced group bound to another protocol than the
  endpoint's ("all messages inside an Endpoint MUST use this same protocol"): the protocol the
  message or its group declares (one that the endpoints carrying the group imply is theirs).
- XRG235 (error): a placeholder that resolves to two values within one endpoint: a message
  whose own routing value fixes a placeholder of the endpoint's template (endpoint ``topic``
  ``orders/{region}``, the message's ``topic_name`` ``orders/eu``) one way in one value and
  another way in another (its ``key`` template ``{region}`` fixed as ``us``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from .. import protocols, xids
from ..diagnostics import Diagnostics, pointer
from ..model.registry import Entity, Registry
from ..model.resolved import ResolvedEndpoint, ResolvedGroup, ResolvedMessage
from ..protocols import EndpointOptions, Protocol
from ..protocols._base import as_map
from .checks import COMMON, message_options


def read_endpoints(
    reg: Registry, groups: Mapping[str, ResolvedGroup], diags: Diagnostics
) -> list[ResolvedEndpoint]:
    return [_read(reg, eid, ent, groups, diags) for eid, ent in reg.endpoints.items()]


def _read(
    reg: Registry, eid: str, ent: Entity, groups: Mapping[str, ResolvedGroup], diags: Diagnostics
) -> ResolvedEndpoint:
    data = ent.data
    proto = protocols.lookup(data.get("protocol"))
    model = protocols.ENDPOINT_OPTIONS.get(proto.id) if proto is not None else None
    usage = data.get("usage")
    ep = ResolvedEndpoint(
        eid,
        data,
        ent.file,
        ent.pointer,
        proto,
        tuple(u for u in usage if isinstance(u, str)) if isinstance(usage, list) else (),
    )
    roots = xids.bases(reg, ent.file)
    refs = data.get("messagegroups")
    for i, ref in enumerate(refs if isinstance(refs, list) else ()):
        if isinstance(ref, str):
            gid = _group(reg, eid, ref, roots, ent.file, ent.pointer + pointer("messagegroups", i), diags)
            if gid is not None and gid in groups:
                ep.references.append((i, gid))
                if gid not in ep.groups:
                    ep.groups.append(gid)
    if eid in reg.endpoint_groups and eid in groups and eid not in ep.groups:
        ep.groups.append(eid)
    po = data.get("protocoloptions")
    if not isinstance(po, dict):
        return ep
    ep.deployed = po["deployed"] if isinstance(po.get("deployed"), bool) else True
    ep.uris = _uris(po.get("endpoints"), model)
    auth = po.get("authorization")
    for entry in auth if isinstance(auth, list) else ():
        if isinstance(entry, dict):
            keys = ("type", "mechanism", "resourceuri", "authorityuri")
            ep.authorization.append({k: entry[k] for k in keys if isinstance(entry.get(k), str)})
    if proto is None:
        return ep
    if model is not None:
        ep.options = {k: v for k, v in po.items() if k in model.options}
    else:
        ep.options = {k: v for k, v in po.items() if k in proto.connection and k not in COMMON}
    will = ep.options.get("willmessage")
    if isinstance(will, str):
        mid = _will(reg, will, roots, ent.file, ent.pointer + "/protocoloptions/willmessage", diags)
        if mid is None:
            del ep.options["willmessage"]
        else:
            ep.options["willmessage"] = mid
    _defaults(ep, po, proto, model)
    return ep


def _group(
    reg: Registry, eid: str, ref: str, roots: list[str], file: str, where: str, diags: Diagnostics
) -> str | None:
    path = xids.tokens(ref, roots)
    if path is None:
        diags.warning(
            "XRG231",
            file,
            where,
            f"endpoint {eid!r} references {ref!r} in another registry; its messages are not"
            " known here and the endpoint carries the others only",
        )
        return None
    if len(path) != 2 or path[0] != "messagegroups":
        diags.warning(
            "XRG206",
            file,
            where,
            f"endpoint {eid!r} selects {ref!r}, which is not a message group",
        )
        return None
    if path[1] not in reg.messagegroups:
        known = {g.lower(): g for g in reg.messagegroups}
        close = difflib.get_close_matches(path[1].lower(), list(known), n=1, cutoff=0.6)
        hint = f" (did you mean {known[close[0]]!r}?)" if close else ""
        diags.warning(
            "XRG230",
            file,
            where,
            f"endpoint {eid!r} references message group {path[1]!r}, which does not exist in"
            f" this registry{hint}; the endpoint carries the others only",
        )
        return None
    return path[1]


def _will(
    reg: Registry, ref: str, roots: list[str], file: str, where: str, diags: Diagnostics
) -> str | None:
    """The message id ``willmessage`` references, or None (after its diagnostic)."""
    path = xids.tokens(ref, roots)
    if path is None:
        diags.warning(
            "XRG233",
            file,
            where,
            f"willmessage {ref!r} is in another registry; the endpoint declares no will message",
        )
        return None
    if len(path) in (4, 6) and path[2] == "definitions":
        path[2] = "messages"
        diags.warning(
            "XRG110", file, where, f"legacy 'definitions' in willmessage {ref!r} read as 'messages'"
        )
    found = xids.message_path(path)
    group = reg.messagegroups.get(found[0]) if found else None
    if found is None or group is None or found[1] not in group.messages:
        diags.error(
            "XRG232",
            file,
            where,
            f"willmessage {ref!r} does not reference a message of this registry"
            " (/messagegroups/<group>/messages/<message>)",
        )
        return None
    return found[1]


def _uris(eps: Any, model: EndpointOptions | None) -> list[str]:
    out: list[str] = []
    for entry in eps if isinstance(eps, list) else ():
        if not isinstance(entry, dict):
            continue
        if model is not None and model.address == "bootstrap.servers":
            servers = entry.get("bootstrap.servers")
            out += [s for s in servers if isinstance(s, str)] if isinstance(servers, list) else []
        elif isinstance(entry.get("uri"), str):
            out.append(entry["uri"])
    return out


def _defaults(
    ep: ResolvedEndpoint, po: Mapping[str, Any], proto: Protocol, model: EndpointOptions | None
) -> None:
    """The options the endpoint's messages take as defaults (see the module docstring)."""
    roles = set(ep.usage)
    mine: dict[str, Any] = {}
    if model is not None:
        for name, option in model.options.items():
            if name in po and option.message is not None and roles & option.default_roles:
                mine[option.message] = po[name]
                ep.origin[option.message] = name
    for name, value in message_options(proto, po).items():
        if name not in mine:
            mine[name] = value
            ep.origin[name] = name
    for key, raw in mine.items():
        if key in proto.maps and isinstance(raw, (dict, list)):
            ep.defaults[key] = as_map(raw)
        elif key in proto.scalars and protocols.literal(raw) is not None:
            ep.defaults[key] = raw


def check_protocols(
    endpoints: list[ResolvedEndpoint], groups: Mapping[str, ResolvedGroup], diags: Diagnostics
) -> None:
    """XRG234 (see the module docstring)."""
    for ep in endpoints:
        if not isinstance(ep.data.get("protocol"), str):
            continue
        for i, gid in ep.references:
            group = groups[gid]
            other = [
                (rm, p)
                for rm in group.messages
                if isinstance(p := _declared(rm) or group.data.get("protocol"), str)
                and not _same(p, ep.data["protocol"])
            ]
            if other:
                rm, p = other[0]
                more = f" (and {len(other) - 1} more)" if len(other) > 1 else ""
                diags.error(
                    "XRG234",
                    ep.file,
                    ep.pointer + pointer("messagegroups", i),
                    f"endpoint {ep.id!r} ({ep.data['protocol']}) references group {group.id!r},"
                    f" whose message {rm.id!r}{more} is bound to {p}: every message of an"
                    " endpoint uses its protocol",
                )


def _declared(rm: ResolvedMessage) -> Any:
    """The ``protocol`` the message declares (or takes from its group), not one implied by the
    endpoints that carry its group."""
    return None if rm.protocol_from_endpoints else rm.data.get("protocol")


def _same(a: str, b: str) -> bool:
    pa, pb = protocols.lookup(a), protocols.lookup(b)
    return pa is pb if pa and pb else a.strip().lower() == b.strip().lower()


_PART = re.compile(r"(\{[^{}]*\})")


def _match(template: str, value: str) -> list[tuple[str, str]] | None:
    """The placeholder values that make ``template`` read ``value`` (in order), or None when
    it cannot (or two placeholders touch, which makes the split ambiguous). Linear: each
    placeholder takes the text up to the first character of the literal after it."""
    parts = _PART.split(template)
    names: list[str] = []
    pattern = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pattern.append(re.escape(part))
            continue
        nxt = parts[i + 1] if i + 1 < len(parts) else ""
        if nxt == "" and i + 2 < len(parts):
            return None
        names.append(part[1:-1])
        pattern.append(f"([^{re.escape(nxt[0])}]*)" if nxt else "(.*)")
    m = re.fullmatch("".join(pattern), value, re.DOTALL)
    return None if m is None else list(zip(names, m.groups(), strict=True))


def check_placeholders(
    endpoints: list[ResolvedEndpoint], groups: Mapping[str, ResolvedGroup], diags: Diagnostics
) -> None:
    """XRG235 (see the module docstring), after the messages took their defaults."""
    for ep in endpoints:
        if ep.protocol is None:
            continue
        templates = {
            message: (name, value)
            for message, name in ep.origin.items()
            if isinstance(value := ep.data["protocoloptions"].get(name), str) and "{" in value
        }
        if not templates:
            continue
        for gid in ep.groups:
            for rm in groups[gid].messages:
                if protocols.lookup(rm.data.get("protocol")) is ep.protocol:
                    _check_message(ep, rm, templates, diags)


def _check_message(
    ep: ResolvedEndpoint,
    rm: ResolvedMessage,
    templates: dict[str, tuple[str, str]],
    diags: Diagnostics,
) -> None:
    po = rm.data.get("protocoloptions")
    if not isinstance(po, dict):
        return
    seen: dict[str, tuple[str, str]] = {}
    for message_option, (name, template) in templates.items():
        value = protocols.literal(po.get(message_option))
        if not isinstance(value, str) or value == template:
            continue
        for holder, got in _match(template, value) or ():
            if holder not in seen:
                seen[holder] = (got, f"{message_option} {value!r}")
            elif seen[holder][0] != got:
                first, where = seen[holder]
                diags.error(
                    "XRG235",
                    ep.file,
                    ep.pointer + pointer("protocoloptions", name),
                    f"placeholder {{{holder}}} resolves to {first!r} ({where}) and to {got!r}"
                    f" ({message_option} {value!r}) for message {rm.id!r} within endpoint"
                    f" {ep.id!r}: one placeholder has one value within an endpoint",
                )
                return
