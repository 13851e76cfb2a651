"""``xrgen inspect``: the catalog as xrgen reads it after resolution, as a JSON document in the
catalog's own attribute names (``document``) or as text, one line per entity (``lines``).

The document has the shape of an xRegistry document: ``messagegroups`` (group id ->
``location`` and ``messages``: message id -> the resolved message) and ``endpoints`` (endpoint
id -> its usage, protocol, addresses, options under their rc4 names, the message groups it
carries and their messages, the message options it passes to them, and its location).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model.resolved import Resolved, ResolvedEndpoint, ResolvedGroup

#: message attributes shown as resolved, in this order
_MESSAGE_KEYS = ("envelope", "envelopemetadata", "protocol", "protocoloptions", "dataschemaformat")


def document(resolved: Resolved | None) -> dict[str, Any]:
    """The resolved message groups and endpoints (module docstring)."""
    if resolved is None:
        return {"messagegroups": {}, "endpoints": {}}
    groups = {g.id: _group(g) for g in resolved.groups}
    by_id = {g.id: g for g in resolved.groups}
    endpoints = {ep.id: _endpoint(ep, by_id) for ep in resolved.endpoints}
    return {"messagegroups": groups, "endpoints": endpoints}


def _group(group: ResolvedGroup) -> dict[str, Any]:
    messages: dict[str, Any] = {}
    for m in group.messages:
        d = m.data
        entry: dict[str, Any] = {"messageid": m.id}
        entry.update({key: d[key] for key in _MESSAGE_KEYS if key in d})
        if m.schema is not None:
            entry.setdefault("dataschemaformat", m.schema.format or m.schema.family)
            entry["dataschema"] = m.schema.schema
        if "datacontenttype" in d:
            entry["datacontenttype"] = d["datacontenttype"]
        if m.alias_of:
            entry["xref"] = m.alias_of
        entry["location"] = m.location
        messages[m.id] = entry
    return {"location": f"{group.file}#{group.pointer}", "messages": messages}


def _endpoint(ep: ResolvedEndpoint, groups: dict[str, ResolvedGroup]) -> dict[str, Any]:
    data = ep.data
    entry: dict[str, Any] = {"endpointid": ep.id, "usage": list(ep.usage)}
    entry["protocol"] = ep.protocol.id if ep.protocol is not None else data.get("protocol")
    for key in ("channel", "envelope", "envelopeoptions", "description"):
        if key in data:
            entry[key] = data[key]
    entry["uris"] = list(ep.uris)
    entry["options"] = dict(ep.options)
    if ep.authorization:
        entry["authorization"] = [dict(a) for a in ep.authorization]
    entry["deployed"] = ep.deployed
    carried = [gid for gid in ep.groups if gid in groups]
    entry["messagegroups"] = carried
    # an endpoint that names no group and has no messages of its own carries every message
    unrestricted = not data.get("messagegroups") and not ep.groups
    entry["messages"] = [
        m.id for gid in (groups if unrestricted else carried) for m in groups[gid].messages
    ]
    if ep.defaults:
        entry["messagedefaults"] = dict(ep.defaults)
    entry["location"] = ep.location
    return entry


def lines(doc: dict[str, Any]) -> Iterator[str]:
    """``doc`` as text: a line per group and message, then a block per endpoint."""
    for gid, g in doc["messagegroups"].items():
        yield f"{gid}  ({g['location']})"
        for mid, m in g["messages"].items():
            proto = m.get("protocol") or "-"
            env = m.get("envelope") or "-"
            yield f"  {mid}  envelope={env} protocol={proto}  ({m['location']})"
    for eid, ep in doc["endpoints"].items():
        usage = ",".join(ep["usage"]) or "-"
        yield f"endpoint {eid}  usage={usage} protocol={ep['protocol'] or '-'}  ({ep['location']})"
        if ep["uris"]:
            yield "  uris: " + " ".join(ep["uris"])
        for name, value in ep["options"].items():
            yield f"  {name}: {_text(value)}"
        messages = ep["messages"]
        yield "  messages: " + (", ".join(messages) if messages else "-")


def _text(value: Any) -> str:
    """An option value on one line: strings as written, other values as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
