"""``xrgen export asyncapi``: an AsyncAPI 3.0 document of a catalog (docs/asyncapi.md).

The document describes an application that uses the catalog's endpoints as the catalog
describes them (the client's view, as the rc4 ``usage`` names roles): it *sends* to a
``producer`` endpoint and *receives* from a ``consumer`` or ``subscriber`` endpoint. Messages
that no endpoint carries are messages a producer of the catalog sends: one ``send``
operation per channel. ``--endpoint`` restricts the document to the endpoints named and
their messages.

- servers: one per endpoint URI (``{placeholders}`` become server variables);
- channels: one per (protocol family, address): the endpoint's topic, subject, node or
  subscription filter, a message's own address, or the URI's path (HTTP: joined with the
  message's ``path``); ``{placeholders}`` become channel parameters; an address the catalog
  does not give is ``null``;
- operations: one per endpoint and channel (``send`` or ``receive``), one per channel for the
  messages no endpoint carries;
- messages: one per catalog message and wire form (``asyncapi_messages``), payload schemas
  in ``components.schemas`` (``asyncapi_payloads``).

Everything the catalog declares that AsyncAPI has no field for stays in ``x-xregistry-*``
extensions, so nothing is dropped. Pure: ``document`` returns plain data in a fixed order (the
same catalog gives the same bytes).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from .. import protocols
from .._version import __version__
from ..diagnostics import Diagnostics
from ..model import ir
from ..naming import Scope
from ..protocols import placeholders_of
from . import asyncapi_messages as messages
from . import asyncapi_protocols as aprotocols
from .asyncapi_payloads import Payloads, component_name

if TYPE_CHECKING:
    from ..api import Analysis
    from ..limits import Limits
    from ..model.resolved import Resolved, ResolvedMessage

ASYNCAPI = "3.0.0"
#: xRegistry catalogs carry no version of their own
INFO_VERSION = "0.0.0"


class UnknownEndpoint(Exception):
    """``--endpoint`` names no endpoint of the catalog (a usage error)."""


@dataclass(slots=True)
class Export:
    document: dict[str, Any] | None
    diagnostics: Diagnostics
    error: BaseException | None = None
    #: the document as text (``export``'s ``fmt``)
    text: str = ""


def export(
    sources: Sequence[str],
    *,
    strict: bool = False,
    limits: Limits | None = None,
    endpoints: Sequence[str] = (),
    fmt: str = "yaml",
) -> Export:
    """Load, validate, resolve and build ``sources`` (``api.analyze`` and the payload checks
    ``validate`` makes), then the AsyncAPI document and its text in ``fmt``; no document when
    there are errors. Raises ``UnknownEndpoint`` for an ``endpoints`` id the catalog does not
    have; any other failure is an XRG90x diagnostic."""
    from .. import api
    from ..formats import check_payloads

    analysis = api.analyze(sources, False, limits)
    diags = _relevant(analysis.diagnostics)
    if diags.has_errors or analysis.catalog is None or analysis.resolved is None:
        return Export(None, diags.strict() if strict else diags, analysis.error)
    check_endpoints(analysis.catalog, endpoints)
    try:
        checked = Diagnostics()
        check_payloads(analysis.catalog.payloads, checked)
        diags.extend(_relevant(checked))
        if strict:
            diags = diags.strict()
        if diags.has_errors:
            return Export(None, diags)
        doc = document(analysis.catalog, analysis.resolved, endpoints)
        return Export(doc, diags, text=dump(doc, fmt))
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Export(None, api.internal_error(exc, "export", sources, diags), exc)


def check_endpoints(catalog: ir.Catalog, endpoint_ids: Sequence[str]) -> None:
    """``UnknownEndpoint`` for the first id the catalog has no endpoint of."""
    known = [e.id for e in catalog.endpoints]
    for name in endpoint_ids:
        if name not in known:
            raise UnknownEndpoint(unknown_endpoint_message(name, known))


#: diagnostics about the generated Python package only: Python names taken (XRG301), patterns
#: pydantic's regex engine cannot run (XRG340); an AsyncAPI document has neither
PYTHON_ONLY = frozenset({"XRG301", "XRG340"})


def _relevant(diags: Diagnostics) -> Diagnostics:
    return Diagnostics(d for d in diags if d.code not in PYTHON_ONLY)


def from_analysis(analysis: Analysis, endpoints: Sequence[str] = ()) -> dict[str, Any]:
    """The document of an analysis without errors (tests, other tools)."""
    assert analysis.catalog is not None and analysis.resolved is not None
    return document(analysis.catalog, analysis.resolved, endpoints)


def unknown_endpoint_message(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    if not known:
        return f"--endpoint {name!r}: the catalog declares no endpoints"
    hint = f"; closest: {', '.join(close)}" if close else f"; endpoints: {', '.join(known[:10])}"
    return f"--endpoint {name!r} names no endpoint of the catalog{hint}"


# --------------------------------------------------------------------------- the document


@dataclass(slots=True)
class _Channel:
    family: str | None
    address: str | None
    owner: str
    servers: list[str] = field(default_factory=list)
    key: str = ""


@dataclass(slots=True)
class _Operation:
    action: str
    channel: _Channel
    protocol: str | None
    endpoint: ir.Endpoint | None
    forms: list[tuple[str, str, str | None, str]] = field(default_factory=list)
    messages: list[ir.Message] = field(default_factory=list)
    #: one of several operations of its endpoint (one per channel): named after both
    shared: bool = False


class _Builder:
    def __init__(self, catalog: ir.Catalog, resolved: Resolved) -> None:
        self.catalog = catalog
        self.messages = {(m.group_id, m.id): m for m in catalog.messages()}
        self.groups = {g.id: g.messages for g in catalog.groups}
        self.resolved: dict[tuple[str, str], ResolvedMessage] = {
            (g.id, m.id): m for g in resolved.groups for m in g.messages
        }
        self.channels: dict[tuple[str | None, str | None, str], _Channel] = {}
        self.operations: list[_Operation] = []
        self.servers: dict[str, Any] = {}
        self.security: dict[str, Any] = {}
        self._server_names = Scope()
        self._security_names = Scope()
        self.structured_format: dict[tuple[str, str, str | None, str], str] = {}

    # -- endpoints -----------------------------------------------------------------------
    def endpoint(self, ep: ir.Endpoint) -> None:
        pmap = aprotocols.lookup(ep.protocol)
        options = dict(ep.options)
        servers = self.endpoint_servers(ep, options)
        carried = self.carried(ep)
        if ep.protocol == "HTTP" and set(ep.usage) == {"subscriber"}:
            return  # a subscription manager transfers no messages (docs/asyncapi.md)
        action = "send" if "producer" in ep.usage else "receive"
        mode = dict(ep.envelope_options).get("mode")
        fmt = dict(ep.envelope_options).get("format")
        uri_path = self.uri_path(ep, pmap)
        listen = options.get(pmap.listen) if pmap.listen else None
        if not isinstance(listen, str):
            listen = options.get(pmap.publish) if pmap.publish else None
        by_address: dict[tuple[str | None, str | None], list[ir.Message]] = {}
        for m in carried:
            protocol = ep.protocol or m.protocol  # an abstract endpoint: the message's own
            if action == "receive" and isinstance(listen, str):
                address: str | None = listen
            else:
                address = self.message_address(m, protocol, options, pmap, uri_path)
            by_address.setdefault((protocol, address), []).append(m)
        if not carried:
            by_address[(ep.protocol, listen if isinstance(listen, str) else uri_path)] = []
        many = len(by_address) > 1
        for (protocol, address), msgs in by_address.items():
            channel = self.channel(protocol, address, ep.id)
            for s in servers:
                if s not in channel.servers:
                    channel.servers.append(s)
            op = _Operation(action, channel, protocol, ep, messages=msgs)
            op.shared = many
            for m in msgs:
                form = (m.group_id, m.id, protocol, self.mode(m, protocol, mode))
                if form[3] == "structured" and isinstance(fmt, str):
                    self.structured_format[form] = fmt
                op.forms.append(form)
            self.operations.append(op)

    def carried(self, ep: ir.Endpoint) -> list[ir.Message]:
        """The messages of its groups that its protocol can carry: an endpoint naming no
        group is given every group, and a message bound to another protocol never reaches
        it (with named groups, that is an error of the catalog, XRG234)."""
        wanted = set(ep.message_ids)
        return [
            m
            for gid in ep.group_ids
            for m in self.groups.get(gid, ())
            if m.id in wanted and (m.protocol is None or ep.protocol in (None, m.protocol))
        ]

    def endpoint_servers(self, ep: ir.Endpoint, options: dict[str, Any]) -> list[str]:
        pmap = aprotocols.lookup(ep.protocol)
        keys: list[str] = []
        bindings = aprotocols.server_bindings(ep.protocol, options)
        security = self.endpoint_security(ep, options)
        for i, uri in enumerate(ep.uris):
            address = aprotocols.parse_uri(uri, pmap)
            stem = ep.id if i == 0 else f"{ep.id}.{i + 1}"
            key, _ = self._server_names.claim(component_name(stem))
            server: dict[str, Any] = {
                "host": address.host,
                "protocol": address.protocol,
            }
            if pmap.version:
                server["protocolVersion"] = pmap.version
            if ep.description:
                server["description"] = ep.description
            variables = placeholders_of(address.host)
            if variables:
                server["variables"] = {
                    v: {"description": f"placeholder {{{v}}} of endpoint {ep.id}"}
                    for v in variables
                }
            if security:
                server["security"] = [
                    {"$ref": f"#/components/securitySchemes/{s}"} for s in security
                ]
            if bindings:
                server["bindings"] = bindings
            server["x-xregistry-endpoint"] = ep.id
            self.servers[key] = server
            keys.append(key)
        return keys

    def endpoint_security(self, ep: ir.Endpoint, options: dict[str, Any]) -> list[str]:
        keys: list[str] = []
        for auth in ep.authorization:
            scheme = aprotocols.security_scheme(auth, ep.protocol, options)
            if scheme is None:
                continue
            stem = ".".join(p for p in (ep.id, auth.type or "auth", auth.mechanism) if p)
            key, _ = self._security_names.claim(component_name(stem))
            self.security[key] = scheme
            keys.append(key)
        return keys

    def uri_path(self, ep: ir.Endpoint, pmap: aprotocols.ProtocolMap) -> str | None:
        if not ep.uris:
            return None
        address = aprotocols.parse_uri(ep.uris[0], pmap)
        if pmap.joins_path:
            return address.path or None
        if address.scheme in pmap.path_schemes and address.path.strip("/"):
            return address.path.lstrip("/")
        return None

    def message_address(
        self,
        m: ir.Message,
        protocol: str | None,
        options: dict[str, Any],
        pmap: aprotocols.ProtocolMap,
        uri_path: str | None,
    ) -> str | None:
        own = self.own_address(m, protocol)
        if pmap.joins_path:
            if own is None:
                return uri_path
            return (uri_path or "").rstrip("/") + "/" + own.lstrip("/") if uri_path else own
        if own is not None:
            return own
        publish = options.get(pmap.publish) if pmap.publish else None
        return publish if isinstance(publish, str) else uri_path

    @staticmethod
    def own_address(m: ir.Message, protocol: str | None) -> str | None:
        proto = protocols.PROTOCOLS.get(protocol or "")
        if proto is None or m.protocol != protocol:
            return None
        for o in m.options:
            if o.path == (proto.runtime.destination,) and isinstance(o.value, str):
                return o.value
        return None

    @staticmethod
    def mode(m: ir.Message, protocol: str | None, declared: Any) -> str:
        if m.envelope is None or not m.envelope.lower().startswith("cloudevents"):
            return "plain"
        if declared == "structured" or aprotocols.lookup(protocol).header is None:
            return "structured"
        return "binary"

    # -- messages no endpoint carries -----------------------------------------------------
    def orphans(self, carried: set[tuple[str, str]]) -> None:
        sends: dict[int, _Operation] = {}
        for g in self.catalog.groups:
            for m in g.messages:
                if (m.group_id, m.id) in carried:
                    continue
                address = self.own_address(m, m.protocol)
                channel = self.channel(m.protocol, address, g.id)
                op = sends.get(id(channel))
                if op is None:
                    op = sends[id(channel)] = _Operation("send", channel, m.protocol, None)
                    self.operations.append(op)
                op.messages.append(m)
                op.forms.append((m.group_id, m.id, m.protocol, self.mode(m, m.protocol, None)))

    def channel(self, protocol: str | None, address: str | None, owner: str) -> _Channel:
        proto = protocols.PROTOCOLS.get(protocol or "")
        family = proto.family if proto is not None else protocol
        key = (family, address, owner if address is None else "")
        found = self.channels.get(key)
        if found is None:
            found = self.channels[key] = _Channel(family, address, owner)
        return found


def document(
    catalog: ir.Catalog, resolved: Resolved, endpoint_ids: Sequence[str] = ()
) -> dict[str, Any]:
    """The AsyncAPI 3.0 document of ``catalog`` (see the module docstring)."""
    check_endpoints(catalog, endpoint_ids)
    b = _Builder(catalog, resolved)
    selected = [e for e in catalog.endpoints if not endpoint_ids or e.id in endpoint_ids]
    for ep in selected:
        b.endpoint(ep)
    if not endpoint_ids:
        carried = {(g, mid) for op in b.operations for g, mid, _, _ in op.forms}
        b.orphans(carried)
    return _assemble(b, catalog, selected)


def _assemble(b: _Builder, catalog: ir.Catalog, selected: list[ir.Endpoint]) -> dict[str, Any]:
    payloads = Payloads({p.key: p.model_name for p in catalog.payloads})
    # message component keys: the message id, and a wire-form suffix for a message that has
    # several wire forms
    forms_of: dict[tuple[str, str], list[tuple[str, str, str | None, str]]] = {}
    for op in b.operations:
        for form in op.forms:
            seen = forms_of.setdefault(form[:2], [])
            if form not in seen:
                seen.append(form)
    names = Scope()
    form_keys: dict[tuple[str, str, str | None, str], str] = {}
    for ident, forms in forms_of.items():
        base, _ = names.claim(component_name(ident[1]))
        for form in forms:
            if len(forms) == 1:
                form_keys[form] = base
            else:
                proto = protocols.PROTOCOLS.get(form[2] or "")
                family = proto.family if proto is not None else form[2] or "any"
                suffix = component_name(f"{family.lower()}-{form[3]}")
                form_keys[form], _ = names.claim(f"{base}.{suffix}")
    components_messages: dict[str, Any] = {}
    for form, key in form_keys.items():
        m = b.messages[form[:2]]
        rm = b.resolved.get(form[:2])
        components_messages[key] = messages.message_object(
            m, rm, form[2], form[3], payloads, b.structured_format.get(form)
        )
    channels = _channels(b, form_keys)
    operations = _operations(b, form_keys)
    doc: dict[str, Any] = {
        "asyncapi": ASYNCAPI,
        "info": _info(catalog, selected),
    }
    if b.servers:
        doc["servers"] = b.servers
    if channels:
        doc["channels"] = channels
    if operations:
        doc["operations"] = operations
    components: dict[str, Any] = {}
    if payloads.schemas:
        components["schemas"] = payloads.schemas
    if components_messages:
        components["messages"] = components_messages
    if b.security:
        components["securitySchemes"] = b.security
    if components:
        doc["components"] = components
    return doc


def _info(catalog: ir.Catalog, selected: list[ir.Endpoint]) -> dict[str, Any]:
    sources = ", ".join(catalog.sources) or "catalog"
    lines = [f"Exported by xrgen {__version__} from the xRegistry catalog {sources}."]
    for g in catalog.groups:
        if g.description:
            lines.append(f"- {g.id}: {g.description}")
    info: dict[str, Any] = {
        "title": sources,
        "version": INFO_VERSION,
        "description": "\n".join(lines),
    }
    if selected and len(selected) < len(catalog.endpoints):
        info["x-xregistry-endpoints"] = [e.id for e in selected]
    return info


def _channels(
    b: _Builder, form_keys: dict[tuple[str, str, str | None, str], str]
) -> dict[str, Any]:
    scope = Scope()
    out: dict[str, Any] = {}
    keys_of: dict[int, list[str]] = {}
    for op in b.operations:
        keys_of.setdefault(id(op.channel), []).extend(form_keys[f] for f in op.forms)
    for ch in _used_channels(b):
        stem = ch.address.replace("{", "").replace("}", "") if ch.address else ch.owner
        ch.key, _ = scope.claim(component_name(stem))
        body: dict[str, Any] = {"address": ch.address}
        keys = keys_of[id(ch)]
        msgs = {k: {"$ref": f"#/components/messages/{k}"} for k in dict.fromkeys(keys)}
        if msgs:
            body["messages"] = msgs
        holders = placeholders_of(ch.address) if ch.address else ()
        if holders:
            body["parameters"] = {h: {"description": f"placeholder {{{h}}}"} for h in holders}
        if ch.servers:
            body["servers"] = [{"$ref": f"#/servers/{s}"} for s in ch.servers]
        if ch.family:
            body["x-xregistry-protocol"] = ch.family
        out[ch.key] = body
    return out


def _used_channels(b: _Builder) -> list[_Channel]:
    seen: dict[int, _Channel] = {}
    for op in b.operations:
        seen.setdefault(id(op.channel), op.channel)
    return list(seen.values())


def _operations(
    b: _Builder, form_keys: dict[tuple[str, str, str | None, str], str]
) -> dict[str, Any]:
    scope = Scope()
    out: dict[str, Any] = {}
    for op in b.operations:
        if op.endpoint is None:
            stem = f"{op.channel.key}.send"
        else:
            stem = f"{op.endpoint.id}.{op.channel.key}" if op.shared else op.endpoint.id
        key, _ = scope.claim(component_name(stem))
        body: dict[str, Any] = {
            "action": op.action,
            "channel": {"$ref": f"#/channels/{op.channel.key}"},
            "messages": [
                {"$ref": f"#/channels/{op.channel.key}/messages/{form_keys[f]}"}
                for f in dict.fromkeys(op.forms)
            ],
        }
        ep = op.endpoint
        if ep is not None and ep.description:
            body["description"] = ep.description
        elif ep is None:
            body["description"] = "Messages of the catalog that no endpoint carries."
        options = dict(ep.options) if ep is not None else {}
        bindings = aprotocols.operation_bindings(op.protocol, op.action, options, op.messages)
        if bindings:
            body["bindings"] = bindings
        if ep is not None:
            body["x-xregistry-endpoint"] = _endpoint_record(ep)
        out[key] = body
    return out


def _endpoint_record(ep: ir.Endpoint) -> dict[str, Any]:
    """The endpoint as the catalog declares it (rc4 names), for what AsyncAPI cannot say."""
    rec: dict[str, Any] = {"endpointid": ep.id, "usage": list(ep.usage)}
    if ep.protocol is not None:
        rec["protocol"] = ep.protocol
    if ep.channel is not None:
        rec["channel"] = ep.channel
    if ep.envelope is not None:
        rec["envelope"] = ep.envelope
    if ep.envelope_options:
        rec["envelopeoptions"] = dict(ep.envelope_options)
    if ep.uris:
        rec["uris"] = list(ep.uris)
    if ep.options:
        rec["protocoloptions"] = dict(ep.options)
    if ep.authorization:
        rec["authorization"] = [
            {k: v for k, v in asdict(a).items() if v is not None} for a in ep.authorization
        ]
    if not ep.deployed:
        rec["deployed"] = False
    rec["messages"] = list(ep.message_ids)
    return rec


# --------------------------------------------------------------------------- output


def dump(doc: dict[str, Any], fmt: str) -> str:
    """The document as YAML or JSON text (UTF-8, a final newline, no YAML anchors)."""
    if fmt == "json":
        import json

        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    from .yaml_emit import dump as yaml_dump

    return yaml_dump(doc)
