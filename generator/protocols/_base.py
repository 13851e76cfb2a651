"""What a protocol module declares (``Protocol``) and the rules every binding shares: reading
option values in each spelling real catalogs use, mapping options to the IR, and merging group
and endpoint defaults into a message's options.

Option value spellings (all bindings):
- a plain value: ``"topic": "orders"``;
- an attribute definition: ``{"value": ...}`` or ``{"type": "string", "value": ...}``
  (other keys such as ``description`` or ``required`` are ignored);
- for map-valued options (headers, properties, application-properties, annotations,
  user_properties): a map ``{"x-kind": <value>}`` whose values take either form above, or an
  array of ``{"name": ..., "value": ...}`` entries (``type`` etc. allowed) or one-key objects.

A declared option the generator cannot apply (no value, a structured value, an option that
configures a connection rather than a message, or one the runtime has no field for) gets
warning XRG174 naming it; an option name a binding does not define gets XRG175.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from xrgen_runtime.bindings import BindingSpec

from ..diagnostics import Diagnostics, pointer
from ..model import ir
from ..suggest import did_you_mean

#: ``check(options, file, pointer, diagnostics)``: value rules of one protocol
Check = Callable[[dict[str, Any], str, str, Diagnostics], None]
OptionValue = str | int | bool

#: options of endpoints (and of their legacy ``config``) that configure the connection, not
#: the messages; read without a warning on an endpoint, and not applied to messages
CONNECTION_OPTIONS = frozenset({"endpoints", "deployed", "options"})


@dataclass(frozen=True, slots=True)
class SparkLanding:
    """The Spark landing shape of a binding: ``LANDING_SCHEMAS[binding]`` and its decoder."""

    binding: str
    function: str
    doc: str

    @classmethod
    def of(cls, runtime: BindingSpec) -> SparkLanding:
        """The landing shape the runtime declares for a binding."""
        return cls(runtime.name, runtime.decoder, runtime.decoder_doc)


@dataclass(frozen=True, slots=True)
class Protocol:
    """Everything the generator knows about one binding (one canonical protocol id)."""

    #: canonical xRegistry id: what ``MessageDef.protocol`` holds and the runtime keys by
    id: str
    #: lower-case protocol names before the ``/`` that spell this binding
    names: tuple[str, ...]
    #: whether a version (text after the ``/``, lower case, maybe empty) spells this binding
    accepts: Callable[[str], bool]
    #: structure of the options (our pydantic model, checked by ``validate``)
    model: type[BaseModel]
    #: catalog option name -> path into the runtime ``*Binding`` dataclass
    scalars: Mapping[str, tuple[str, ...]]
    #: catalog option name -> ``*Binding`` field holding name/value entries
    maps: Mapping[str, str]
    #: options an endpoint or group passes to the messages it selects as defaults
    routing: frozenset[str]
    #: the runtime's declaration of the binding (``xrgen_runtime.bindings.BINDINGS``): its
    #: family, fields, transit and case-insensitive fields, Spark landing shape
    runtime: BindingSpec
    #: endpoint-level options (connections, subscriptions): known, never applied to messages
    connection: frozenset[str] = frozenset()
    #: options the binding defines that the generator does not apply -> why (warning XRG174;
    #: an empty reason: the binding's ``check`` already warns about the option)
    unapplied: Mapping[str, str] = field(default_factory=dict)
    #: legacy option spellings read under their current name (warning XRG117)
    renames: tuple[tuple[str, str], ...] = ()
    #: the names of ``renames`` that are the binding's rc4 endpoint option names (MQTT
    #: ``topic``): read the same way, the warning says what they are
    endpoint_names: frozenset[str] = frozenset()
    #: map options whose entries are fixed fields (AMQP ``properties`` and ``header``):
    #: option -> field name as spelled (lower case, ``_`` for ``-``) -> its wire name
    fields: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: for ``fields`` options: where custom names go instead (for the warning)
    custom: Mapping[str, str] = field(default_factory=dict)
    #: options rewritten before the mapping (Kafka: a ``key_base64`` of UTF-8 text is the key)
    rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: a legacy object wrapping the options (MQTT ``properties``), read as top-level options
    wrapper: str | None = None
    #: value rules on options as declared, and rules that need the complete message
    check: Check | None = None
    check_complete: Check | None = None
    #: whether a routing value on an endpoint is a subscription filter rather than an address
    #: (MQTT ``#``/``+``, NATS ``*``/``>``, comma lists): not a default for messages
    is_filter: Callable[[str, str], bool] = lambda option, value: "," in value
    #: an endpoint must not be both ``subscriber`` and ``consumer`` (XRG172): the binding
    #: delivers to subscribers (push) and consumers (pull) over different endpoints
    separate_roles: bool = False

    @property
    def family(self) -> str:
        """``"MQTT/5.0"`` -> ``"MQTT"``: what the runtime compares wire messages by."""
        return self.runtime.family

    @property
    def transit(self) -> frozenset[str]:
        """Binding fields brokers may change in transit: dispatchers never match them."""
        return self.runtime.transit

    @property
    def caseless(self) -> frozenset[str]:
        """Map fields whose keys are case-insensitive header names."""
        return self.runtime.caseless

    def suggest(self, option: str) -> str:
        """``" (did you mean 'x'?)"`` for the message option closest to ``option``."""
        return did_you_mean(option, [*self.scalars, *self.maps, *self.unapplied])

    def known(self, option: str) -> bool:
        return (
            option in self.scalars
            or option in self.maps
            or option in self.unapplied
            or option in self.connection
            or option in CONNECTION_OPTIONS
        )


def any_version(version: str) -> bool:
    return True


# ------------------------------------------------------------------------- option values

_NO_VALUE = object()


def option_value(value: Any) -> Any:
    """The literal behind an option value in any spelling: a plain value, or the ``value`` of
    ``{"value": ...}`` / ``{"type": ..., "value": ...}``. ``_NO_VALUE`` when there is none."""
    if isinstance(value, dict):
        if "value" not in value:
            return _NO_VALUE
        value = value["value"]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def literal(value: Any) -> Any:
    """Like ``option_value`` but ``None`` when there is no value (for checks)."""
    v = option_value(value)
    return None if v is _NO_VALUE else v


def entries(value: Any) -> Iterator[tuple[str | None, Any, str]]:
    """``(name, value, pointer suffix)`` of a map-valued option in either spelling; ``name``
    is ``None`` for an array item that names nothing."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k), v, pointer(str(k))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                rest = {k: v for k, v in item.items() if k != "name"}
                yield item["name"], rest if "value" in rest else {}, pointer(i)
            elif isinstance(item, dict) and len(item) == 1:
                ((k, v),) = item.items()
                yield str(k), v, pointer(i)
            else:
                yield None, item, pointer(i)


def _field_name(name: str) -> str:
    """``message_id``, ``messageId`` and ``Message-ID`` all spell ``message-id``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower().replace("_", "-")


def _describe(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------- to the IR


def to_ir(
    proto: Protocol,
    options: Mapping[str, Any],
    file: str,
    ptr: str,
    diags: Diagnostics | None,
) -> tuple[ir.ProtocolOption, ...]:
    """The IR options of a message bound to ``proto``; every declared option that is not
    applied gets a warning (XRG174/XRG175) when ``diags`` is given."""

    def skip(code: str, where: str, what: str) -> None:
        if diags is not None:
            diags.warning(code, file, ptr + where, what)

    if proto.rewrite is not None:
        options = proto.rewrite(dict(options))
    out: dict[tuple[str, ...], ir.ProtocolOption] = {}
    for key, raw in options.items():
        where = pointer(key)
        if raw is None:
            continue
        if key in proto.scalars:
            value = option_value(raw)
            if isinstance(value, (str, int, bool)):
                out.setdefault(proto.scalars[key], make_option(proto.scalars[key], value))
            elif value is None:
                continue
            else:
                skip(
                    "XRG174",
                    where,
                    f"{proto.id} option '{key}' "
                    + (
                        "has no value"
                        if value is _NO_VALUE
                        else f"value {_describe(value)} is not a string, integer or boolean"
                    )
                    + "; not applied",
                )
        elif key in proto.maps:
            fld = proto.maps[key]
            if not isinstance(raw, (dict, list)):
                continue  # the option model reports it (error XRG126)
            for name, item, sub in entries(raw):
                value = option_value(item)
                if name is None:
                    skip(
                        "XRG174",
                        where + sub,
                        f"{proto.id} option '{key}' entry {_describe(item)} names nothing; not applied",
                    )
                elif key in proto.fields and _field_name(name) not in proto.fields[key]:
                    skip(
                        "XRG174",
                        where + sub,
                        f"{proto.id} {key} has no field '{name}' (custom names belong in"
                        f" {proto.custom.get(key, 'another section')}); not applied"
                        + did_you_mean(name, proto.fields[key].values()),
                    )
                elif isinstance(value, (str, int, bool)):
                    if key in proto.fields:
                        name = proto.fields[key][_field_name(name)]
                    out.setdefault((fld, name), make_option((fld, name), value))
                elif value is _NO_VALUE or value is None:
                    skip(
                        "XRG174",
                        where + sub,
                        f"{proto.id} {key} entry '{name}' declares no value; producers do not set it and dispatchers do not match it",
                    )
                else:
                    skip(
                        "XRG174",
                        where + sub,
                        f"{proto.id} {key} entry '{name}' value {_describe(value)} is not a string, integer or boolean; not applied",
                    )
        elif key in proto.unapplied:
            if proto.unapplied[key]:
                skip(
                    "XRG174",
                    where,
                    f"{proto.id} option '{key}' is not applied: {proto.unapplied[key]}",
                )
        elif key in proto.connection or key in CONNECTION_OPTIONS:
            skip(
                "XRG174",
                where,
                f"{proto.id} option '{key}' configures a connection, not a message; not applied",
            )
        else:
            skip(
                "XRG175",
                where,
                f"{proto.id} defines no option '{key}'; not applied" + proto.suggest(key),
            )
    return tuple(out.values())


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def placeholders_of(text: str) -> tuple[str, ...]:
    """The ``{placeholder}`` names of a template, in order of first appearance."""
    seen: list[str] = []
    for name in _PLACEHOLDER.findall(text):
        if name not in seen:
            seen.append(name)
    return tuple(seen)


def make_option(path: tuple[str, ...], value: OptionValue) -> ir.ProtocolOption:
    holders = placeholders_of(value) if isinstance(value, str) else ()
    return ir.ProtocolOption(path, value, bool(holders), holders)


# ------------------------------------------------------------------------- defaults


def as_map(value: Any) -> dict[str, Any]:
    """A map-valued option in map form (array entries keyed by name; first wins)."""
    out: dict[str, Any] = {}
    for name, item, _ in entries(value):
        if name is not None:
            out.setdefault(name, item)
    return out


def defaults(proto: Protocol, options: Mapping[str, Any]) -> dict[str, Any]:
    """What a group or endpoint passes to its messages: its message options (map options in
    map form), except routing values that are subscription filters."""
    out: dict[str, Any] = {}
    for key, raw in options.items():
        if key in proto.scalars:
            value = option_value(raw)
            if isinstance(value, str) and key in proto.routing and proto.is_filter(key, value):
                continue
            if value is not _NO_VALUE and value is not None:
                out[key] = raw
        elif key in proto.maps and isinstance(raw, (dict, list)):
            out[key] = as_map(raw)
    return out


def check_shared(
    proto: Protocol, options: Mapping[str, Any], file: str, ptr: str, diags: Diagnostics
) -> None:
    """Warnings for the options of a group or endpoint that reach no message: names the
    binding does not define (XRG175) and options it does not apply (XRG174)."""
    for key in options:
        where = ptr + pointer(key)
        if key in proto.unapplied:
            if proto.unapplied[key]:
                diags.warning(
                    "XRG174",
                    file,
                    where,
                    f"{proto.id} option '{key}' is not applied: {proto.unapplied[key]}",
                )
        elif not proto.known(key):
            diags.warning(
                "XRG175",
                file,
                where,
                f"{proto.id} defines no option '{key}'; not applied" + proto.suggest(key),
            )


def with_defaults(
    proto: Protocol, message: Mapping[str, Any], default: Mapping[str, Any]
) -> dict[str, Any]:
    """``message``'s options over ``default``: scalars of the message win, map options merge
    entry by entry (the message's entries win)."""
    out = dict(default)
    for key, raw in message.items():
        if key in proto.maps and key in out and isinstance(raw, (dict, list)):
            merged = dict(out[key])
            merged.update(as_map(raw))
            out[key] = merged
        else:
            out[key] = raw
    return out
