"""From an endpoint and the keyword arguments of ``config``/``sender``/``receiver`` to the
``Settings`` a binding's endpoint support builds a client from.

Keyword arguments are, in this order of precedence: the endpoint's placeholder names (their
values fill every ``{name}`` in URIs and options, as given); ``uris``, ``mode`` and
``authorization``; credential fields (``_credentials``); the binding's option names (rc4
spelling; ``_`` may stand for ``-``), which replace the catalog's value (``None`` removes it);
and the binding's client arguments. Anything else is a ``TypeError`` naming what is accepted.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._credentials import CREDENTIAL_FIELDS, Credentials, select
from ._errors import EndpointError, MissingPlaceholder
from ._model import VAR as _VAR
from ._model import Endpoint, freeze, placeholders_of
from ._support import EndpointSupport, support

__all__ = ["Settings", "expand", "resolve"]

_MODES = ("binary", "structured")
_GENERAL = frozenset({"uris", "mode", "authorization"})
#: the JSON event format: what structured mode writes
_STRUCTURED_FORMATS = frozenset({"application/cloudevents+json"})


@dataclass(frozen=True, slots=True)
class Settings:
    """One client's configuration, resolved: the input of a binding's endpoint support."""

    endpoint: Endpoint[Any]
    #: the role the client plays: ``producer``, ``consumer`` or ``subscriber``
    role: str
    support: EndpointSupport
    #: the endpoint URIs (preference order), placeholders filled
    uris: tuple[str, ...]
    #: protocol options under rc4 names, placeholders filled, overrides applied
    options: Mapping[str, Any]
    credentials: Credentials
    #: CloudEvents content mode: ``binary`` or ``structured``
    mode: str
    #: the binding's client arguments given by the caller
    client: Mapping[str, Any]
    #: every placeholder value given (for the producers of messages the binding builds)
    placeholders: Mapping[str, str]

    @property
    def package_messages(self) -> Mapping[str, Any]:
        """``MESSAGES`` of the endpoint's generated package (every message, by id)."""
        messages: Mapping[str, Any] = importlib.import_module(
            self.endpoint.package
        ).MESSAGES
        return messages

    def option(self, name: str, default: Any = None) -> Any:
        value = self.options.get(name)
        return default if value is None else value

    def require(self, name: str, what: str) -> Any:
        """An option the client cannot do without (an error names the override)."""
        value = self.options.get(name)
        if value is None or value == "":
            raise EndpointError(
                f"endpoint {self.endpoint.id!r} declares no {name!r} ({what}): "
                f"pass {name.replace('-', '_')}=..."
            )
        return value

    def __repr__(self) -> str:
        return (
            f"Settings({self.endpoint.id!r}, role={self.role!r}, uris={self.uris!r}, "
            f"options={dict(self.options)!r}, credentials={self.credentials!r})"
        )


def expand(value: Any, values: Mapping[str, str]) -> Any:
    """``value`` with every ``{name}`` replaced by ``values[name]`` (strings, array items,
    map keys and values)."""
    if isinstance(value, str):
        if "{" not in value:
            return value
        return _VAR.sub(lambda m: values[m.group(1)], value)
    if isinstance(value, Mapping):
        return MappingProxyType(
            {expand(k, values): expand(v, values) for k, v in value.items()}
        )
    if isinstance(value, tuple):
        return tuple(expand(v, values) for v in value)
    return value


def _option_name(
    name: str, known: frozenset[str], present: Mapping[str, Any]
) -> str | None:
    for candidate in (name, name.replace("_", "-")):
        if candidate in known or candidate in present:
            return candidate
    return None


def _where(uris: tuple[str, ...], options: Mapping[str, Any]) -> dict[str, list[str]]:
    """Placeholder name -> where it occurs (``URI``, option names)."""
    where: dict[str, list[str]] = {}
    for uri in uris:
        for name in _VAR.findall(uri):
            where.setdefault(name, []).append("URI")
    for key, value in options.items():
        for name in sorted(placeholders_of(value, placeholders_of(key, set()))):
            where.setdefault(name, []).append(repr(key))
    return where


def resolve(
    endpoint: Endpoint[Any], role: str, arguments: Mapping[str, Any]
) -> Settings:
    """The ``Settings`` of a client of ``endpoint`` in ``role`` (see the module doc)."""
    binding = support(endpoint)
    values: dict[str, str] = {}
    general: dict[str, Any] = {}
    credentials: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    client: dict[str, Any] = {}
    for name, value in arguments.items():
        if name in endpoint.placeholders:
            if value is None:
                continue
            values[name] = value if isinstance(value, str) else str(value)
        elif name in _GENERAL:
            general[name] = value
        elif name in CREDENTIAL_FIELDS:
            credentials[name] = value
        elif (
            option := _option_name(name, binding.OPTIONS, endpoint.options)
        ) is not None:
            overrides[option] = freeze(value)
        elif name in binding.CLIENT_ARGS:
            client[name] = value
        else:
            raise TypeError(_unexpected(endpoint, binding, name))

    uris = endpoint.uris
    if general.get("uris") is not None:
        given = general["uris"]
        uris = (given,) if isinstance(given, str) else tuple(given)
        catalog_uris: tuple[str, ...] = ()
    else:
        catalog_uris = uris
    options = {k: v for k, v in endpoint.options.items() if k not in overrides}
    where = _where(catalog_uris, options)
    missing = [name for name in sorted(where) if name not in values]
    if missing:
        listed = ", ".join(f"{n} (in {', '.join(where[n])})" for n in missing)
        raise MissingPlaceholder(
            f"endpoint {endpoint.id!r} needs placeholder value(s) {listed}: pass "
            + ", ".join(f"{n}=..." for n in missing)
        )
    if catalog_uris:
        uris = tuple(expand(u, values) for u in catalog_uris)
    resolved = {k: expand(v, values) for k, v in options.items()}
    for k, v in overrides.items():
        if v is not None:
            resolved[k] = v

    return Settings(
        endpoint=endpoint,
        role=role,
        support=binding,
        uris=uris,
        options=MappingProxyType(resolved),
        credentials=select(
            endpoint.id,
            endpoint.authorization,
            credentials,
            binding.requirement,
            binding.CLIENT,
            wanted=general.get("authorization"),
        ),
        mode=_mode(endpoint, general.get("mode")),
        client=MappingProxyType(client),
        placeholders=MappingProxyType(values),
    )


def _mode(endpoint: Endpoint[Any], given: str | None) -> str:
    options = endpoint.envelope_options
    mode = given if given is not None else options.get("mode") or "binary"
    if mode not in _MODES:
        raise EndpointError(
            f"endpoint {endpoint.id!r}: content mode must be 'binary' or 'structured', "
            f"not {mode!r}"
        )
    fmt = options.get("format")
    if mode == "structured" and fmt is not None:
        media = str(fmt).split(";", 1)[0].strip().lower()
        if media not in _STRUCTURED_FORMATS:
            raise EndpointError(
                f"endpoint {endpoint.id!r}: structured mode in format {fmt!r} is not "
                "supported (the JSON event format application/cloudevents+json is)"
            )
    return mode


def _unexpected(endpoint: Endpoint[Any], binding: EndpointSupport, name: str) -> str:
    parts = []
    if endpoint.placeholders:
        parts.append("placeholders " + ", ".join(endpoint.placeholders))
    parts.append(
        "options " + ", ".join(sorted(binding.OPTIONS | set(endpoint.options)))
    )
    parts.append("credentials " + ", ".join(CREDENTIAL_FIELDS))
    parts.append("general " + ", ".join(sorted(_GENERAL)))
    if binding.CLIENT_ARGS:
        parts.append("client " + ", ".join(sorted(binding.CLIENT_ARGS)))
    return (
        f"endpoint {endpoint.id!r} ({endpoint.protocol}) got an unexpected keyword "
        f"argument {name!r}; it accepts {'; '.join(parts)}"
    )
