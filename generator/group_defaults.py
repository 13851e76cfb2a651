"""Resolve stage: what a message group and the endpoints that carry it give its messages.

- A group's ``envelope`` (``group_envelope``): a message that declares none takes it, or, with a
  ``protocol`` and no ``envelopemetadata``, is a plain protocol message (note XRG147 either
  way: xRegistry requires every message of a group to repeat the group's envelope).
- Protocol defaults (``apply_endpoints``, ``group_defaults``): a group's ``protocol`` (note
  XRG147 where a message omits it) and the routing and map options of its
  ``protocoloptions``, then those of the endpoints that carry it.

Checks of the resolved groups, run as passes after resolve (``api.PASSES["resolve"]``):
``check_group_options`` (a group's options that reach no message) and
``check_unbound_options`` (a message's options that no protocol applies).
"""

from __future__ import annotations

from typing import Any

from . import protocols
from .cloudevents import takes_group_envelope
from .diagnostics import Diagnostics, pointer
from .endpoints.references import read_endpoints
from .model.registry import Entity, Registry
from .model.resolved import ResolvedEndpoint, ResolvedGroup


def group_envelope(
    reg: Registry, diags: Diagnostics, gid: str, data: dict[str, Any], ent: Entity
) -> None:
    """A message without ``envelope`` takes its group's (``takes_group_envelope``), or is
    a plain protocol message: either way note XRG147, as xRegistry requires every message
    of a group to repeat the group's envelope."""
    group = reg.messagegroups.get(gid)
    envelope = group.entity.data.get("envelope") if group is not None else None
    if data.get("envelope") is not None or not isinstance(envelope, str):
        return
    owner = _owner(reg, gid)
    if takes_group_envelope(data):
        data["envelope"] = envelope
        read = f"it takes its {owner}'s {envelope!r}"
    else:
        read = (
            f"with a 'protocol' and no 'envelopemetadata' it is read as a plain"
            f" {data.get('protocol')} message, not with its {owner}'s {envelope!r}"
        )
    diags.note(
        "XRG147",
        ent.file,
        ent.pointer,
        f"the message declares no 'envelope'; {read} (xRegistry requires every message"
        f" to repeat its {owner}'s envelope)",
    )


def _owner(reg: Registry, gid: str) -> str:
    """What a message group is to its messages: an endpoint's own messages form one."""
    return "endpoint" if gid in reg.endpoint_groups else "group"


def apply_endpoints(
    reg: Registry, diags: Diagnostics, groups: list[ResolvedGroup]
) -> list[ResolvedEndpoint]:
    """Protocol defaults reach the messages: a group's ``protocol`` and the routing and
    map options of its ``protocoloptions``, then those of the endpoints that carry it
    (``endpoints.references``: rc4 options under their message names, and message
    options written on the endpoint). The message's own options win over its group's,
    the group's over the endpoints'; among endpoints the first in catalog order wins
    (XRG207 names the others). A group carried by endpoints of several protocols keeps
    protocol-neutral messages (XRG208): they work on every binding, and the caller gives
    the destination when encoding."""
    by_id = {g.id: g for g in groups}
    endpoints = read_endpoints(reg, by_id, diags)
    selected: dict[str, list[ResolvedEndpoint]] = {}
    for ep in endpoints:
        # a subscriber-only endpoint manages subscriptions; it transfers no messages
        if ep.protocol is not None and set(ep.usage) != {"subscriber"}:
            for gid in ep.groups:
                selected.setdefault(gid, []).append(ep)
    for g in groups:
        group_defaults(reg, diags, g, selected.get(g.id, []))
    return endpoints


def group_defaults(
    reg: Registry, diags: Diagnostics, g: ResolvedGroup, endpoints: list[ResolvedEndpoint]
) -> None:
    """A group's protocol and options, then its endpoints', as defaults of its messages
    (``apply_endpoints``)."""
    gproto = protocols.lookup(g.data.get("protocol"))
    graw = g.data.get("protocoloptions")
    gdefaults: dict[str, Any] = {}
    if gproto is not None and isinstance(graw, dict):
        gdefaults = protocols.defaults(gproto, graw)
    bindings = {ep.protocol.id: ep.protocol for ep in endpoints if ep.protocol is not None}
    implied: protocols.Protocol | None = gproto
    if implied is None and len(bindings) == 1:
        implied = next(iter(bindings.values()))
    elif (
        implied is None
        and len(bindings) > 1
        and any("protocol" not in rm.data for rm in g.messages)
    ):
        first = endpoints[0]
        diags.warning(
            "XRG208",
            g.file,
            g.pointer,
            f"message group {g.id!r} is selected by endpoints of several protocols"
            f" ({', '.join(sorted(bindings))}); its messages stay protocol-neutral and get"
            f" no destination from them (first: {first.location})",
        )
    # endpoint defaults per binding, first endpoint first
    merged: dict[str, dict[str, Any]] = {}
    origin: dict[tuple[str, str], str] = {}
    for ep in endpoints:
        ep_proto = ep.protocol
        assert ep_proto is not None
        into = merged.setdefault(ep_proto.id, {})
        for key, value in ep.defaults.items():
            if key not in into:
                into[key] = value
                origin[(ep_proto.id, key)] = ep.id
            elif key in ep_proto.maps and isinstance(value, dict):
                into[key] = {**value, **into[key]}
            elif protocols.literal(value) != protocols.literal(into[key]):
                diags.warning(
                    "XRG207",
                    ep.file,
                    ep.pointer + pointer("protocoloptions", ep.origin.get(key, key)),
                    f"endpoint {ep.id!r} gives group {g.id!r} {key}"
                    f" {protocols.literal(value)!r}, but endpoint"
                    f" {origin[(ep_proto.id, key)]!r} gives"
                    f" {protocols.literal(into[key])!r} first, which is used",
                )
    for rm in g.messages:
        proto = protocols.lookup(rm.data.get("protocol"))
        if "protocol" not in rm.data and implied is not None:
            rm.data["protocol"] = g.data["protocol"] if implied is gproto else implied.id
            rm.protocol_from_endpoints = implied is not gproto
            proto = implied
            if implied is gproto:
                diags.note(
                    "XRG147",
                    rm.file,
                    rm.pointer,
                    f"the message declares no 'protocol'; it takes its {_owner(reg, g.id)}'s"
                    f" {g.data['protocol']!r} (xRegistry requires every message to repeat"
                    f" its {_owner(reg, g.id)}'s protocol)",
                )
        if proto is None:
            continue
        defaults = merged.get(proto.id, {})
        if gproto is proto:
            defaults = protocols.with_defaults(proto, gdefaults, defaults)
        if not defaults:
            continue
        own = rm.data.get("protocoloptions")
        rm.data["protocoloptions"] = protocols.with_defaults(
            proto, own if isinstance(own, dict) else {}, defaults
        )


def check_group_options(groups: list[ResolvedGroup], diags: Diagnostics) -> None:
    """XRG174/XRG175 (``protocols.check_shared``): the options of a group bound to a protocol
    that reach no message (an ``xref`` group: its target's options, at the group)."""
    for g in groups:
        gproto = protocols.lookup(g.data.get("protocol"))
        graw = g.data.get("protocoloptions")
        if gproto is not None and isinstance(graw, dict):
            protocols.check_shared(gproto, graw, g.file, g.pointer + "/protocoloptions", diags)


def check_unbound_options(groups: list[ResolvedGroup], diags: Diagnostics) -> None:
    """XRG174: a message with ``protocoloptions`` and no ``protocol`` after the defaults (none
    on the message, its group or an endpoint selecting it): its options are not applied. An
    ``xref`` alias is its target's definition: warned once, at the target."""
    for g in groups:
        for rm in g.messages:
            if (
                rm.alias_of is None
                and rm.data.get("protocoloptions")
                and not isinstance(rm.data.get("protocol"), str)
            ):
                file, _, ptr = rm.location.partition("#")
                diags.warning(
                    "XRG174",
                    file,
                    ptr + "/protocoloptions",
                    "protocol options without a 'protocol' (on the message, its group or an"
                    " endpoint selecting it); not applied",
                )
