"""Load stage: an endpoint's ``protocoloptions`` in rc4 spelling (endpoint-spec.md).

Older catalogs (CNCF discovery, earlier xRegistry drafts, the samples of xregistry/codegen)
write endpoint options other ways; each is read under its rc4 name with a warning:
- a nested ``options`` object (legacy ``config.options``): its options at top level (XRG110);
- addresses: ``url``, a string or a list of strings, entries ``{"url": ...}``, and for Kafka
  ``{"uri": ...}`` entries and a top-level ``bootstrap.servers`` become the rc4 entries
  (``[{"uri": ...}]``; Kafka ``[{"bootstrap.servers": [...]}]``) (XRG110);
- option names in case and separator variants (``linkproperties``, ``consumer-group``,
  ``auto.offset.reset``, ``will-topic``) and the binding's aliases (Kafka ``group.id``, NATS
  ``queue``, MQTT ``topic_name``, AMQP ``address``) (XRG117);
- an attribute definition ``{"value": ...}`` as its value (XRG117);
- on an endpoint that does not produce, an MQTT ``topic`` or NATS ``subject`` holding a
  subscription filter (wildcards, a comma list) as ``topicfilter``/``subjectfilter`` (XRG117).
"""

from __future__ import annotations

import re
from typing import Any

from .. import protocols
from ..diagnostics import Diagnostics, pointer
from ..protocols import EndpointOptions
from ..protocols._endpoint import squash

_KAFKA_SCHEME = re.compile(r"^kafka://", re.IGNORECASE)


def normalize_endpoint_options(data: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    """``data`` (a copy of an endpoint, with ``usage`` a list) gets its ``protocoloptions``
    in rc4 spelling; every rewrite is a warning naming what was read as what."""
    raw = data.get("protocoloptions")
    if not isinstance(raw, dict):
        return
    where = ptr + "/protocoloptions"
    po = dict(raw)
    nested = po.get("options")
    if isinstance(nested, dict):
        del po["options"]
        for key, value in nested.items():
            po.setdefault(key, value)
        diags.warning(
            "XRG110", file, where + "/options", "legacy nested 'options' read as protocol options"
        )
    proto = protocols.lookup(data.get("protocol"))
    model = protocols.ENDPOINT_OPTIONS.get(proto.id) if proto is not None else None
    kafka = model is not None and model.address == "bootstrap.servers"
    _addresses(po, kafka, file, where, diags)
    if model is not None:
        po = _names(po, model, file, where, diags)
        usage = data.get("usage")
        if isinstance(usage, list) and "producer" not in usage:
            _legacy_filters(po, model, file, where, diags)
    data["protocoloptions"] = po


def _addresses(po: dict[str, Any], kafka: bool, file: str, where: str, diags: Diagnostics) -> None:
    """``protocoloptions.endpoints`` as rc4 entries (see the module docstring)."""

    def legacy(at: str, what: str) -> None:
        diags.warning("XRG110", file, where + at, what)

    if "url" in po and "endpoints" not in po:
        po["endpoints"] = [po.pop("url")]
        legacy("/url", "legacy attribute 'url' read as 'endpoints'")
    if kafka and "bootstrap.servers" in po and "endpoints" not in po:
        po["endpoints"] = [{"bootstrap.servers": po.pop("bootstrap.servers")}]
        legacy("/bootstrap.servers", "'bootstrap.servers' read as an 'endpoints' entry")
    eps = po.get("endpoints")
    if isinstance(eps, str):
        eps = [eps]
        legacy("/endpoints", "'endpoints' is a string; read as a list")
    if not isinstance(eps, list):
        return
    out: list[Any] = []
    for i, entry in enumerate(eps):
        at = pointer("endpoints", i)
        if isinstance(entry, str):
            entry = {"uri": entry}
            legacy(at, "an address string read as an entry {'uri': ...}")
        if isinstance(entry, dict) and "url" in entry and "uri" not in entry:
            entry = {("uri" if k == "url" else k): v for k, v in entry.items()}
            legacy(at + "/url", "legacy attribute 'url' read as 'uri'")
        if kafka and isinstance(entry, dict) and "bootstrap.servers" not in entry and "uri" in entry:
            rest = {k: v for k, v in entry.items() if k != "uri"}
            uri = entry["uri"]
            server = _KAFKA_SCHEME.sub("", uri) if isinstance(uri, str) else uri
            entry = {"bootstrap.servers": [server], **rest}
            legacy(at + "/uri", "a Kafka 'uri' read as 'bootstrap.servers'")
        servers = entry.get("bootstrap.servers") if kafka and isinstance(entry, dict) else None
        if isinstance(servers, str):
            entry = {**entry, "bootstrap.servers": [s.strip() for s in servers.split(",") if s.strip()]}
            legacy(at + "/bootstrap.servers", "'bootstrap.servers' is a string; read as a list")
        out.append(entry)
    po["endpoints"] = out


def _names(
    po: dict[str, Any], model: EndpointOptions, file: str, where: str, diags: Diagnostics
) -> dict[str, Any]:
    """Option names in rc4 spelling and attribute definitions as their values."""
    spelled = {squash(name): name for name in model.options}
    spelled.update({squash(k): v for k, v in model.aliases.items()})
    out: dict[str, Any] = {}
    renamed: list[tuple[str, str, Any]] = []
    for key, value in po.items():
        name = key if key in model.options else spelled.get(squash(key), key)
        if name != key:
            renamed.append((key, name, value))
        else:
            out[key] = value
    for key, name, value in renamed:
        what = (
            f"{model.protocol} '{key}', the name of the message option (an endpoint's is"
            f" '{name}'),"
            if key in model.message_names
            else f"legacy attribute '{key}'"
        )
        if name in out:
            diags.warning("XRG117", file, where + pointer(key), f"{what} is ignored: '{name}' is set")
            continue
        out[name] = value
        diags.warning("XRG117", file, where + pointer(key), f"{what} read as '{name}'")
    for name, option in model.options.items():
        value = out.get(name)
        shaped = _shape(option.kind, value)
        if shaped is not value and shaped != value:
            out[name] = shaped
            diags.warning(
                "XRG117",
                file,
                where + pointer(name),
                f"'{name}' read as {_SHAPES.get(option.kind, 'its value')}",
            )
    return out


_SHAPES = {
    "stringmap": "a map of names to values",
    "headers": "an array of {name, value} entries",
}


def _shape(kind: str, value: Any) -> Any:
    """``value`` in the rc4 shape of ``kind``: attribute definitions ``{"value": ...}`` as
    their values; map options written as ``[{name, value}]`` as maps and HTTP ``headers``
    written as a map as ``[{name, value}]`` (the spellings message options take). What has
    no value stays as written, for the type check (XRG189)."""
    if kind == "stringmap" and isinstance(value, (dict, list)):
        out: dict[str, Any] = {}
        for name, item, _ in protocols.entries(value):
            if name is not None:
                out.setdefault(name, _value(item))
        return out
    if kind == "headers" and isinstance(value, list):
        return [
            {**item, "value": _value(item["value"])}
            if isinstance(item, dict) and "value" in item
            else item
            for item in value
        ]
    if kind == "headers" and isinstance(value, dict):
        return [{"name": name, "value": _value(item)} for name, item in value.items()]
    if kind not in ("anymap", "any"):
        return _value(value)
    return value


def _value(item: Any) -> Any:
    return item["value"] if isinstance(item, dict) and "value" in item else item


def _legacy_filters(
    po: dict[str, Any], model: EndpointOptions, file: str, where: str, diags: Diagnostics
) -> None:
    for option, target in model.filters.items():
        value = po.get(option)
        if isinstance(value, str) and target not in po and model.is_filter(value):
            po[target] = po.pop(option)
            diags.warning(
                "XRG117",
                file,
                where + pointer(option),
                f"{model.protocol} '{option}' {value!r} is a subscription filter (the endpoint"
                f" does not produce); read as '{target}'",
            )
