"""Validate stage: the MUST rules of the rc4 endpoint model (endpoint-spec.md) on one normalized
endpoint. Every rule is an error with its own code (docs/diagnostics.md):

- ``usage``: XRG176 missing, XRG172 empty or an unknown value, XRG177 ``producer`` with another
  value, XRG178 ``["subscriber", "consumer"]`` outside MQTT, AMQP and NATS, XRG179 an HTTP
  endpoint with more than one usage;
- XRG180 an empty ``channel``; ``envelopeoptions``: XRG173 a ``mode`` other than binary or
  structured, XRG181 ``format`` with mode binary;
- ``protocoloptions.endpoints`` and ``authorization``: see ``addresses``;
- options: XRG189 a value of the wrong type or outside its values (``deployed`` too), then the
  binding's own rules (``protocols/<x>.py``, XRG190-199). An option name the binding does not
  define is warning XRG175; a connection setting rc4 does not define XRG174; an option of the
  other MQTT version XRG171. Message options on an endpoint (defaults of its messages) are
  checked by ``validate`` with the binding's message option model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import protocols
from ..cloudevents import is_cloudevents
from ..diagnostics import Diagnostics, pointer
from ..protocols import ROLES, EndpointOption, EndpointOptions, Protocol
from ..protocols._endpoint import squash
from ..suggest import did_you_mean
from .addresses import check_addresses, check_authorization

#: options every endpoint may carry (endpoint-spec.md ``protocoloptions``), checked here
COMMON = ("endpoints", "authorization", "deployed")


def check_endpoint(data: Mapping[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    """The rc4 rules of one endpoint (its inline messages are validated as messages)."""
    proto = protocols.lookup(data.get("protocol"))
    model = protocols.ENDPOINT_OPTIONS.get(proto.id) if proto is not None else None
    usage = _check_usage(data, proto, model, file, ptr, diags)
    channel = data.get("channel")
    if channel == "":
        diags.error("XRG180", file, ptr + "/channel", "'channel' must not be empty when set")
    env = data.get("envelope")
    opts = data.get("envelopeoptions")
    if isinstance(opts, dict) and (env is None or is_cloudevents(env)):
        _check_envelope_options(opts, file, ptr + "/envelopeoptions", diags)
    po = data.get("protocoloptions")
    if not isinstance(po, dict):
        return
    where = ptr + "/protocoloptions"
    check_addresses(po.get("endpoints"), proto, model, file, where + "/endpoints", diags)
    check_authorization(po.get("authorization"), file, where + "/authorization", diags)
    deployed = po.get("deployed")
    if deployed is not None and not isinstance(deployed, bool):
        diags.error(
            "XRG189", file, where + "/deployed", f"'deployed' must be true or false, not {deployed!r}"
        )
    if proto is not None:
        _check_names(po, proto, model, file, where, diags)
    if model is not None:
        for name, option in model.options.items():
            if name in po:
                _check_value(name, option, po[name], file, where + pointer(name), diags)
        before = len(diags)
        if model.check is not None:
            model.check(po, usage or frozenset(), file, where, diags)
        if usage:
            reported = {d.pointer for d in list(diags)[before:] if d.severity == "error"}
            _check_roles(po, model, usage, file, where, reported, diags)


def _check_roles(
    po: Mapping[str, Any],
    model: EndpointOptions,
    usage: frozenset[str],
    file: str,
    ptr: str,
    reported: set[str],
    diags: Diagnostics,
) -> None:
    """An option only clients of other roles use is not applied (XRG149), alike for every
    binding; one the binding's rules already reject for the role is not warned again."""
    for name, option in model.options.items():
        where = ptr + pointer(name)
        # a message option's value also reaches the messages of its default roles
        roles = option.roles | (option.default_roles if option.message else frozenset())
        if name in po and not roles & usage and where not in reported:
            diags.warning(
                "XRG149",
                file,
                where,
                f"{model.protocol} endpoint option '{name}' is used by"
                f" {_roles(roles)} endpoints only; this endpoint is"
                f" {_roles(usage)}: not applied",
            )


def _roles(roles: frozenset[str]) -> str:
    """``{"consumer", "subscriber"}`` -> ``"consumer or subscriber"``."""
    return " or ".join(r for r in ROLES if r in roles)


def message_options(proto: Protocol, po: Mapping[str, Any]) -> dict[str, Any]:
    """The options of an endpoint that are message options of its binding (defaults of its
    messages), not rc4 endpoint options."""
    model = protocols.ENDPOINT_OPTIONS.get(proto.id)
    return {
        k: v
        for k, v in po.items()
        if (k in proto.scalars or k in proto.maps)
        and (model is None or k not in model.options)
        and k not in COMMON
    }


def message_checked(proto: Protocol, po: Mapping[str, Any]) -> dict[str, Any]:
    """What the binding's message option rules check on an endpoint: its message options,
    and the rc4 options of the same name that have their rc4 type (an HTTP ``method`` or
    ``headers``, an MQTT ``qos``); one of the wrong type is XRG189 already."""
    out = message_options(proto, po)
    model = protocols.ENDPOINT_OPTIONS.get(proto.id)
    for name, option in model.options.items() if model is not None else ():
        if option.message == name and name in po and _valid(option, po[name]):
            out[name] = po[name]
    return out


def _check_usage(
    data: Mapping[str, Any],
    proto: Protocol | None,
    model: EndpointOptions | None,
    file: str,
    ptr: str,
    diags: Diagnostics,
) -> frozenset[str] | None:
    """The usage as a set of roles when it is valid, else None (after its errors)."""
    usage = data.get("usage")
    where = ptr + "/usage"
    if usage is None:
        diags.error(
            "XRG176",
            file,
            ptr,
            "an endpoint must declare 'usage' (an array of producer, consumer, subscriber)",
        )
        return None
    if not isinstance(usage, list) or not all(isinstance(u, str) for u in usage):
        return None  # the structure check reports it (XRG125)
    unknown = [u for u in usage if u not in ROLES]
    if unknown:
        diags.error(
            "XRG172",
            file,
            where,
            f"unknown usage {', '.join(map(repr, unknown))} (subscriber, consumer, producer)",
        )
        return None
    roles = frozenset(usage)
    if not roles:
        diags.error("XRG172", file, where, "usage must name at least one role")
        return None
    name = proto.id if proto is not None else str(data.get("protocol") or "an abstract")
    if len(roles) == 1:
        return roles
    if "producer" in roles:
        diags.error(
            "XRG177",
            file,
            where,
            "'producer' must not be combined with other usages: declare a separate endpoint"
            " (correlated by 'channel')",
        )
    elif model is not None and model.one_usage:
        diags.error(
            "XRG179",
            file,
            where,
            f"an {name} endpoint declares exactly one usage: the subscription manager, the"
            " delivery target and the pull consumer are separate endpoints",
        )
    elif model is None or not model.subscribe_and_consume:
        diags.error(
            "XRG178",
            file,
            where,
            f"usage ['subscriber', 'consumer'] is allowed on MQTT, AMQP/1.0 and NATS endpoints"
            f" only; {name} endpoints declare the two roles as separate endpoints",
        )
    else:
        return roles
    return None  # the role rules of the binding would only repeat the usage error


def _check_envelope_options(opts: Mapping[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    mode = opts.get("mode")
    if mode is not None and mode not in ("binary", "structured"):
        diags.error(
            "XRG173",
            file,
            ptr + "/mode",
            f"mode must be 'binary' or 'structured', not {mode!r}",
        )
    if mode == "binary" and "format" in opts:
        diags.error(
            "XRG181",
            file,
            ptr + "/format",
            "'format' (the structured-mode event format) must not be set in binary mode",
        )


def _check_names(
    po: Mapping[str, Any],
    proto: Protocol,
    model: EndpointOptions | None,
    file: str,
    ptr: str,
    diags: Diagnostics,
) -> None:
    """Every option name is one the endpoint model or the binding's messages define."""
    for key in po:
        where = ptr + pointer(key)
        if key in COMMON or (model is not None and key in model.options):
            continue
        if model is not None and key in model.other_version:
            diags.warning(
                "XRG171",
                file,
                where,
                f"'{key}' is an endpoint option of {model.other_version[key]}, not of"
                f" {proto.id}; not applied",
            )
        elif key in proto.scalars or key in proto.maps or key in proto.unapplied:
            continue  # a message option: a default of the endpoint's messages
        elif model is None and (key in proto.connection or key in protocols.CONNECTION_OPTIONS):
            continue  # a binding without an rc4 endpoint model keeps its connection settings
        elif model is not None and (squash(key) in model.retired or key in proto.connection):
            diags.warning(
                "XRG174",
                file,
                where,
                f"{proto.id} option '{key}' is not an endpoint option of xRegistry 1.0-rc4;"
                " not applied",
            )
        else:
            known = [*COMMON, *proto.scalars, *proto.maps, *(model.options if model else ())]
            diags.warning(
                "XRG175",
                file,
                where,
                f"{proto.id} defines no endpoint option '{key}'; not applied"
                + did_you_mean(key, known),
            )


_KINDS = {
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "uinteger": "a non-negative integer",
    "stringmap": "a map of string to string",
    "anymap": "a map",
    "strings": "an array of strings",
    "headers": "an array of {name, value} objects with string values",
    "xid": "a message reference (xid)",
}


def _valid(option: EndpointOption, value: Any) -> bool:
    """Whether ``value`` has the option's type, is one of its values and within its range."""
    if option.kind == "any" or value is None:
        return True
    ok = _has_kind(option.kind, value)
    if ok and option.values and value not in option.values:
        ok = False
    if ok and isinstance(value, int) and not isinstance(value, bool):
        low = 0 if option.kind == "uinteger" and option.minimum is None else option.minimum
        ok = (low is None or value >= low) and (option.maximum is None or value <= option.maximum)
    return ok


def _check_value(
    name: str, option: EndpointOption, value: Any, file: str, ptr: str, diags: Diagnostics
) -> None:
    """XRG189: ``value`` has the option's type and is one of its values, within its range."""
    if _valid(option, value):
        return
    expected = _KINDS.get(option.kind, option.kind)
    if option.values:
        expected = "one of " + ", ".join(repr(v) for v in option.values)
    elif option.minimum is not None or option.maximum is not None:
        low = option.minimum if option.minimum is not None else 0
        expected += f" in {low}..{option.maximum}" if option.maximum is not None else f" >= {low}"
    diags.error("XRG189", file, ptr, f"endpoint option '{name}' must be {expected}, not {_show(value)}")


def _has_kind(kind: str, value: Any) -> bool:
    if kind in ("string", "xid"):
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind in ("integer", "uinteger"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "stringmap":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if kind == "anymap":
        return isinstance(value, dict)
    if kind == "strings":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "headers":
        return isinstance(value, list) and all(
            isinstance(h, dict) and isinstance(h.get("name"), str) and isinstance(h.get("value"), str)
            for h in value
        )
    return True


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
