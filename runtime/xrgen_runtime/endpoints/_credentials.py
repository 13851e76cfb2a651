"""Credentials for an endpoint's authorization: from arguments or environment variables,
never from the catalog and never shown.

An endpoint's ``protocoloptions.authorization`` entries say which kinds of authorization it
accepts (``type``, ``mechanism``); the values come from keyword arguments or from the
environment variables ``XRGEN_<ENDPOINT>_<FIELD>`` (``<ENDPOINT>``: the endpoint id in upper case,
every run of other characters than letters and digits an underscore) and, as a fallback,
``XRGEN_<FIELD>``. The binding's endpoint support says which fields an entry needs with its
client library; the first entry whose fields are all supplied is used. Values are ``Secret``
strings: the client libraries read them as ``str``, ``repr`` shows ``'***'``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ._errors import EndpointError, MissingCredential
from ._values import Authorization

__all__ = [
    "CREDENTIAL_FIELDS",
    "classify",
    "SECRET_FIELDS",
    "Credentials",
    "Requirement",
    "Secret",
    "env_names",
    "select",
]

#: credential keyword arguments (and ``<FIELD>`` of the environment variables, upper case)
CREDENTIAL_FIELDS = (
    "username",
    "password",
    "token",
    "api_key",
    "oauth_client_id",
    "oauth_client_secret",
    "cert_file",
    "key_file",
    "key_password",
    "ca_file",
)
#: the fields whose values are secrets (the others are names and paths)
SECRET_FIELDS = frozenset(
    {"password", "token", "api_key", "oauth_client_secret", "key_password"}
)

#: what an authorization entry needs with a client library: alternatives, each a tuple of
#: fields that must all be supplied; ``None``: the client library cannot apply the entry
Requirement = tuple[tuple[str, ...], ...] | None

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")
#: SASL mechanism -> what it authenticates with
_SASL_KINDS = {
    "OAUTHBEARER": "token",
    "EXTERNAL": "certificate",
    "ANONYMOUS": "anonymous",
}


def classify(entry: Authorization) -> tuple[str, str | None]:
    """What an authorization entry authenticates with, and its SASL mechanism:
    ``("password", "PLAIN")`` for ``Plain``; for ``SASL`` by mechanism (``PLAIN`` and
    ``SCRAM-*``: ``"password"``, ``OAUTHBEARER``: ``"token"``, ``EXTERNAL``:
    ``"certificate"``, ``ANONYMOUS``: ``"anonymous"``); ``("token", None)`` for ``OAuth2``
    (and ``Bearer``), ``("apikey", None)``, ``("certificate", None)`` for ``X509Cert``;
    ``("unknown", ...)`` otherwise. The bindings' endpoint supports decide from it what their
    client library can apply."""
    kind = (entry.type or "").lower()
    if kind == "plain":
        return "password", "PLAIN"
    if kind == "sasl":
        mechanism = (entry.mechanism or "PLAIN").upper()
        if mechanism == "PLAIN" or mechanism.startswith("SCRAM-"):
            return "password", mechanism
        return _SASL_KINDS.get(mechanism, "unknown"), mechanism
    if kind in ("oauth2", "bearer"):
        return "token", None
    if kind == "apikey":
        return "apikey", None
    if kind == "x509cert":
        return "certificate", None
    return "unknown", entry.mechanism


class Secret(str):
    """A credential value: a ``str`` for the client libraries, ``'***'`` in ``repr``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'***'"


def env_names(endpoint_id: str, name: str) -> tuple[str, str]:
    """The environment variables read for credential ``name`` of ``endpoint_id``:
    ``("XRGEN_COM_ACME_ORDERSIN_PASSWORD", "XRGEN_PASSWORD")``."""
    stem = _NON_ALNUM.sub("_", endpoint_id).strip("_").upper()
    upper = name.upper()
    return (f"XRGEN_{stem}_{upper}" if stem else f"XRGEN_{upper}", f"XRGEN_{upper}")


@dataclass(frozen=True, slots=True)
class Credentials:
    """The authorization entry chosen (``None``: the endpoint declares none) and the values
    supplied for it. ``repr`` names the fields only."""

    authorization: Authorization | None = None
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def __repr__(self) -> str:
        entry = self.authorization.describe() if self.authorization else None
        return f"Credentials({entry!r}, fields={sorted(self.values)!r})"


def _supplied(
    endpoint_id: str,
    name: str,
    arguments: Mapping[str, Any],
    environ: Mapping[str, str],
) -> str | None:
    value = arguments.get(name)
    if value is None:
        for variable in env_names(endpoint_id, name):
            value = environ.get(variable)
            if value:
                break
        else:
            return None
    text = os.fspath(value) if not isinstance(value, str) else value
    return Secret(text) if name in SECRET_FIELDS else str(text)


#: fields kept beside the chosen entry's own: the TLS trust store, and a key's password
_EXTRAS = {"ca_file": (), "key_password": ("key_file",)}


def _only(values: dict[str, str], fields: tuple[str, ...]) -> dict[str, str]:
    """The values of the chosen entry's ``fields`` (and their TLS extras), nothing else: a
    credential supplied for another entry (or a generic variable) is not applied."""
    out = {f: values[f] for f in fields}
    for extra, needs in _EXTRAS.items():
        if extra in values and all(n in fields for n in needs):
            out[extra] = values[extra]
    return out


def _matches(entry: Authorization, wanted: str) -> bool:
    described = entry.describe().lower()
    return wanted.lower() in (described, (entry.type or "").lower())


def select(
    endpoint_id: str,
    entries: tuple[Authorization, ...],
    arguments: Mapping[str, Any],
    requirement: Callable[[Authorization], Requirement],
    client: str,
    *,
    wanted: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Credentials:
    """Choose the authorization entry and collect its credentials.

    ``arguments``: the credential keyword arguments given; ``requirement``: what the binding's
    client needs per entry; ``client``: the client library's name, for messages; ``wanted``:
    an entry chosen by ``type`` or ``"type mechanism"`` (argument ``authorization=``).
    Raises ``MissingCredential`` naming the argument and the environment variables of every
    missing field of the preferred entry, ``EndpointError`` when the client library can apply
    none of the entries.
    """
    env = os.environ if environ is None else environ
    values = {
        name: value
        for name in CREDENTIAL_FIELDS
        if (value := _supplied(endpoint_id, name, arguments, env)) is not None
    }
    candidates = entries
    if wanted is not None:
        candidates = tuple(e for e in entries if _matches(e, wanted))
        if not candidates:
            offered = ", ".join(e.describe() for e in entries) or "none"
            raise EndpointError(
                f"endpoint {endpoint_id!r} declares no authorization {wanted!r} "
                f"(it declares: {offered})"
            )
    if not candidates:
        return Credentials(None, MappingProxyType(values))
    first_missing: tuple[Authorization, tuple[str, ...]] | None = None
    for entry in candidates:
        alternatives = requirement(entry)
        if alternatives is None:
            continue
        for fields in alternatives:
            missing = tuple(f for f in fields if f not in values)
            if not missing:
                return Credentials(entry, MappingProxyType(_only(values, fields)))
            if first_missing is None:
                first_missing = (entry, missing)
    if first_missing is None:
        offered = ", ".join(e.describe() for e in candidates)
        raise EndpointError(
            f"endpoint {endpoint_id!r}: {client} cannot apply any of its authorization "
            f"entries ({offered}); docs/endpoints.md lists what each client supports"
        )
    entry, missing = first_missing
    needs = "; ".join(
        f"{name}: pass {name}=... or set {' or '.join(env_names(endpoint_id, name))}"
        for name in missing
    )
    raise MissingCredential(
        f"endpoint {endpoint_id!r} (authorization {entry.describe()}) needs "
        f"{', '.join(missing)}: {needs}"
    )
