"""From an endpoint and the keyword arguments of ``config``/``sender``/``receiver`` to the
``Settings`` a binding's endpoint support builds a client from.

Keyword arguments are, in this order of precedence: the endpoint's placeholder names (their
values fill every ``{name}`` in URIs and options: RFC 6570 level 1, percent-encoded as the
producers encode them, so a consumer's filter names what a producer publishes to; the server
part of a URI and the options a binding lists in ``VERBATIM`` take them as given); ``uris``, ``mode`` and
``authorization``; credential fields (``_credentials``); the binding's option names (rc4
spelling; ``_`` may stand for ``-``), which replace the catalog's value (``None`` removes it);
and the binding's client arguments. Anything else is a ``TypeError`` naming what is accepted.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._uritemplate import pct_encode_unreserved
from ._credentials import CREDENTIAL_FIELDS, Credentials, select
from ._errors import EndpointError, MissingPlaceholder
from ._support import EndpointSupport, support
from ._values import VAR as _VAR
from ._values import freeze, placeholders_of

if TYPE_CHECKING:
    from ._model import Endpoint

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

    def refuse(self, name: str, value: Any, rule: str) -> EndpointError:
        """The error for option ``name`` whose resolved ``value`` breaks the protocol's
        ``rule``; it names the placeholder values that went into it."""
        given = sorted(placeholders_of(self.endpoint.options.get(name), set()))
        values = ", ".join(
            f"{{{n}}}={self.placeholders[n]!r}" for n in given if n in self.placeholders
        )
        inserted = f" (from {values}, percent-encoded)" if values else ""
        return EndpointError(
            f"endpoint {self.endpoint.id!r}: {name} {value!r}{inserted} {rule}"
        )

    def __repr__(self) -> str:
        return (
            f"Settings({self.endpoint.id!r}, role={self.role!r}, uris={self.uris!r}, "
            f"options={dict(self.options)!r}, credentials={self.credentials!r})"
        )


def expand(value: Any, values: Mapping[str, str]) -> Any:
    """``value`` with every ``{name}`` replaced by ``values[name]`` (strings, array items,
    map keys and values), the value inserted as it is."""
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


def expand_uri(
    template: str, values: Mapping[str, str], inserted: Mapping[str, str]
) -> str:
    """An endpoint URI: placeholders naming the server (in ``scheme://`` and the authority
    up to the path, or in a bootstrap server ``{host}:{port}`` without a scheme) take the
    value as given, so ``{broker}`` may hold ``host:port``; placeholders in the path and the
    query are percent-encoded (``inserted``), as a message template's are."""
    scheme = template.find("://")
    if scheme < 0:
        return str(expand(template, values))
    start = scheme + 3
    ends = [i for i in (template.find(c, start) for c in "/?#") if i >= 0]
    end = min(ends) if ends else len(template)
    return str(expand(template[:end], values)) + str(expand(template[end:], inserted))


def encoded(values: Mapping[str, str]) -> dict[str, str]:
    """Placeholder values as an RFC 6570 level-1 expansion inserts them: every character
    other than letters, digits and ``-._~`` percent-encoded (UTF-8), as the producers of
    the generated package expand the same placeholders in message templates."""
    return {name: pct_encode_unreserved(value) for name, value in values.items()}


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
    inserted = encoded(values)
    if catalog_uris:
        uris = tuple(expand_uri(u, values, inserted) for u in catalog_uris)
    verbatim = binding.VERBATIM
    resolved = {
        k: expand(v, values if k in verbatim else inserted) for k, v in options.items()
    }
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
