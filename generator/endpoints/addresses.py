"""Validate stage: ``protocoloptions.endpoints`` and ``protocoloptions.authorization`` of an
endpoint (endpoint-spec.md).

Addresses: XRG182 an entry without its address (``uri`` holding an absolute URI; Kafka a
non-empty ``bootstrap.servers``), XRG183 a scheme the protocol does not use (HTTP ``http``,
``https``; AMQP ``amqp``, ``amqps``; MQTT ``mqtt``, ``mqtts``, ``tcp``, ``ssl``, ``wss``; NATS
``nats``, ``tls``, ``ws``; Kafka servers ``host:port`` or ``PLAINTEXT``, ``SSL``,
``SASL_PLAINTEXT``, ``SASL_SSL``), XRG184 a NATS URI without a port, XRG185 an MQTT URI whose
path is not allowed (any path with ``tcp``/``ssl``/``wss``; a topic with wildcards).
Placeholders (``mqtt://{host}:{port}``) stand for any text: a part that holds one is not judged.

Authorization: XRG186 not an array of objects, or ``type``/``mechanism``/``resourceuri``/
``authorityuri`` not a non-empty string (the two URIs absolute), XRG187 ``mechanism`` without
type ``SASL``, XRG188 an entry carrying a credential (password, secret, token, API key ...):
authorization is metadata, credentials are supplied at run time.
"""

from __future__ import annotations

import re
from typing import Any

from ..diagnostics import Diagnostics, pointer
from ..protocols import EndpointOptions, Protocol
from ..protocols._endpoint import literal_text, mqtt_wildcard, squash

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", re.DOTALL)
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S")
_PORT = re.compile(r":(\d+|\{[^{}]*\})$")


def check_addresses(
    eps: Any,
    proto: Protocol | None,
    model: EndpointOptions | None,
    file: str,
    ptr: str,
    diags: Diagnostics,
) -> None:
    if eps is None:
        return
    if not isinstance(eps, list):
        diags.error("XRG182", file, ptr, "'endpoints' must be an array of address objects")
        return
    name = proto.id if proto is not None else "this"
    for i, entry in enumerate(eps):
        at = ptr + pointer(i)
        if not isinstance(entry, dict):
            diags.error("XRG182", file, at, "an 'endpoints' entry must be an object")
        elif model is None:
            continue  # a protocol without an rc4 endpoint model: its addresses are its own
        elif model.address == "bootstrap.servers":
            _check_servers(entry.get("bootstrap.servers"), model, file, at, diags)
        else:
            uri = entry.get("uri")
            if not isinstance(uri, str) or not uri:
                diags.error(
                    "XRG182",
                    file,
                    at,
                    f"an {name} 'endpoints' entry must carry its address in 'uri'",
                )
            else:
                _check_uri(uri, name, model, file, at + "/uri", diags)


def _check_servers(servers: Any, model: EndpointOptions, file: str, at: str, diags: Diagnostics) -> None:
    where = at + "/bootstrap.servers"
    if (
        not isinstance(servers, list)
        or not servers
        or not all(isinstance(s, str) and s for s in servers)
    ):
        diags.error(
            "XRG182",
            file,
            where if servers is not None else at,
            "a KAFKA 'endpoints' entry must carry a non-empty 'bootstrap.servers' array of"
            " server addresses",
        )
        return
    for i, server in enumerate(servers):
        m = _SCHEME.match(server)
        if m and "{" not in m.group(1) and m.group(1).lower() not in model.schemes:
            diags.error(
                "XRG183",
                file,
                where + pointer(i),
                f"Kafka bootstrap server {server!r}: scheme {m.group(1)!r} is not a Kafka"
                " security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
            )


def _check_uri(uri: str, name: str, model: EndpointOptions, file: str, at: str, diags: Diagnostics) -> None:
    if uri.startswith("{"):
        return  # the whole address is a placeholder
    m = _SCHEME.match(uri)
    if m is None or not _ABSOLUTE.match(uri) or any(c.isspace() for c in literal_text(uri)):
        diags.error("XRG182", file, at, f"{name} endpoint URI {uri!r} is not an absolute URI")
        return
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme not in model.schemes:
        diags.error(
            "XRG183",
            file,
            at,
            f"{name} endpoint URI {uri!r}: the scheme must be one of"
            f" {', '.join(sorted(model.schemes))}",
        )
        return
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    path = rest[len(authority) :].split("?", 1)[0].split("#", 1)[0]
    host = authority.rsplit("@", 1)[-1]
    if model.port_required and not (_PORT.search(host) or host.endswith("}")):
        diags.error(
            "XRG184",
            file,
            at,
            f"{name} endpoint URI {uri!r} must include a port (e.g. nats://host:4222)",
        )
    if scheme in model.pathless and path not in ("", "/"):
        diags.error(
            "XRG185",
            file,
            at,
            f"{name} endpoint URI {uri!r}: a '{scheme}' URI must not have a path",
        )
    elif model.path_is_topic and mqtt_wildcard(path):
        diags.error(
            "XRG185",
            file,
            at,
            f"{name} endpoint URI {uri!r}: the path must be a topic name, without wildcards",
        )


#: attribute names (compared without case and separators) that carry credentials
#: names of credentials, which authorization entries must not carry (error XRG188)
CREDENTIALS = frozenset(
    {
        "password", "passwd", "pwd", "secret", "clientsecret", "token", "accesstoken",
        "refreshtoken", "bearertoken", "apikey", "apikeyvalue", "privatekey", "credential",
        "credentials", "sharedaccesskey", "connectionstring",
    }
)  # fmt: skip
_AUTH_TEXT = ("type", "mechanism")
_AUTH_URI = ("resourceuri", "authorityuri")


def check_authorization(auth: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    if auth is None:
        return
    if not isinstance(auth, list):
        diags.error("XRG186", file, ptr, "'authorization' must be an array of objects")
        return
    for i, entry in enumerate(auth):
        at = ptr + pointer(i)
        if not isinstance(entry, dict):
            diags.error("XRG186", file, at, "an 'authorization' entry must be an object")
            continue
        for key in (*_AUTH_TEXT, *_AUTH_URI):
            value = entry.get(key)
            if key not in entry:
                continue
            if not isinstance(value, str) or not value:
                diags.error(
                    "XRG186", file, at + "/" + key, f"authorization '{key}' must be a non-empty string"
                )
            elif key in _AUTH_URI and not _ABSOLUTE.match(value):
                diags.error(
                    "XRG186",
                    file,
                    at + "/" + key,
                    f"authorization '{key}' {value!r} must be an absolute URI",
                )
        if "mechanism" in entry and entry.get("type") != "SASL":
            diags.error(
                "XRG187",
                file,
                at + "/mechanism",
                "authorization 'mechanism' (a SASL mechanism) is used only with type 'SASL',"
                f" not {entry.get('type')!r}",
            )
        for key in entry:
            if squash(str(key)) in CREDENTIALS:
                diags.error(
                    "XRG188",
                    file,
                    at + pointer(str(key)),
                    f"authorization must not carry credentials ('{key}'): it describes how a"
                    " client authorizes; credentials are supplied at run time",
                )
