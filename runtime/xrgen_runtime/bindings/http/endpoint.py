"""HTTP endpoint support: rc4 ``HTTP`` endpoint options -> httpx client settings and the
``http`` adapters (docs/endpoints.md, "HTTP").

A ``producer`` endpoint (a delivery target) gets an ``HttpSender`` (``AsyncHttpSender`` with
``asynchronous=True``) that sends to the endpoint URI, and, on the accepting side, an
``AsgiReceiver`` that serves the endpoint's method and path and checks its authorization. A
``consumer`` endpoint (pull) gets an ``HttpPullReceiver`` that requests the URI for messages.
A ``subscriber`` endpoint (a subscription manager) transfers no messages: no client.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from ...endpoints._credentials import Secret, classify
from ...endpoints._encode import checked_encoder
from ...endpoints._errors import EndpointError
from ...endpoints._uris import Address, Scheme, addresses
from . import codec
from ._receipts import AsyncHttpEndpointSender, HttpEndpointSender
from .spec import HttpBinding

if TYPE_CHECKING:
    from ..._event import Event
    from ...endpoints._credentials import Requirement
    from ...endpoints._model import Authorization
    from ...endpoints._resolve import Settings
    from .spec import HttpMessage

OPTIONS = frozenset(
    {
        "method",
        "headers",
        "query",
        "apikeyname",
        "apikeyin",
        "plainscheme",
        "plainusernamefield",
        "plainpasswordfield",
    }
)
#: ``timeout`` and ``connect_timeout`` (seconds), ``asynchronous`` (sender:
#: ``AsyncHttpSender``), ``on_message`` (the ASGI receiver's handler, e.g.
#: ``dispatcher.dispatch_async``), ``client_options`` (more ``httpx.Client`` keyword arguments)
CLIENT_ARGS = frozenset(
    {"timeout", "connect_timeout", "asynchronous", "on_message", "client_options"}
)
#: HTTP header and query values are fields the client encodes itself (and may carry credentials)
VERBATIM = frozenset({"headers", "query"})
RECEIVER_ROLES = ("consumer", "producer")
CLIENT = "httpx"

_SCHEMES = {"http": Scheme(tls=False, port=80), "https": Scheme(tls=True, port=443)}
#: the API key header when the catalog names none
DEFAULT_APIKEY_NAME = "X-API-Key"


def requirement(entry: Authorization) -> Requirement:
    """Credentials an authorization entry needs with httpx (``None``: unsupported; SASL
    has no HTTP carrier)."""
    kind, mechanism = classify(entry)
    if (entry.type or "").lower() == "sasl":
        return None
    if kind == "password":
        return (("username", "password"),)
    if kind == "apikey":
        return (("api_key",),)
    if kind == "token":
        return (("token",),)
    if kind == "certificate":
        return (("cert_file", "key_file"),)
    return None


def _address(settings: Settings) -> Address:
    return addresses(settings, _SCHEMES)[0]


def _query_of(uri: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(uri).query, keep_blank_values=True)


def credential_fields(
    settings: Settings,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The headers and query parameters that carry the chosen credentials."""
    credentials = settings.credentials
    get = credentials.get
    entry = credentials.authorization
    kind = (entry.type or "").lower() if entry is not None else ""
    headers: list[tuple[str, str]] = []
    query: list[tuple[str, str]] = []
    if kind == "apikey" or (not kind and get("api_key")):
        name = str(settings.option("apikeyname", DEFAULT_APIKEY_NAME))
        where = query if settings.option("apikeyin", "header") == "query" else headers
        where.append((name, get("api_key") or ""))
    elif kind in ("oauth2", "bearer") or (not kind and get("token")):
        headers.append(("Authorization", _secret("Bearer " + (get("token") or ""))))
    elif kind == "plain" or (not kind and get("username") and get("password")):
        scheme = settings.option("plainscheme", "basic")
        user, password = get("username") or "", get("password") or ""
        if scheme == "basic":
            raw = base64.b64encode(f"{user}:{password}".encode()).decode()
            headers.append(("Authorization", _secret("Basic " + raw)))
        elif scheme == "query":
            query.append((str(settings.option("plainusernamefield", "username")), user))
            query.append(
                (str(settings.option("plainpasswordfield", "password")), password)
            )
        else:
            raise EndpointError(
                f"endpoint {settings.endpoint.id!r}: plainscheme {scheme!r} cannot carry "
                "credentials beside an event body (basic and query can)"
            )
    return headers, query


def _secret(text: str) -> str:
    return Secret(text)


def config(settings: Settings) -> dict[str, Any]:
    """The ``httpx.Client`` keyword arguments (plus ``method`` for the requests)."""
    address = _address(settings)
    get = settings.credentials.get
    auth_headers, auth_query = credential_fields(settings)
    headers = [
        (str(h["name"]), str(h["value"])) for h in settings.option("headers", ())
    ] + auth_headers
    query = (
        _query_of(address.uri)
        + [(str(k), str(v)) for k, v in settings.option("query", {}).items()]
        + auth_query
    )
    base = f"{address.scheme}://{address.host}:{address.port}/{address.path}"
    kwargs: dict[str, Any] = {
        "base_url": base if base.endswith("/") else base + "/",
        "method": str(settings.option("method", "POST")).upper(),
    }
    if headers:
        kwargs["headers"] = headers
    if query:
        kwargs["params"] = query
    if get("cert_file"):
        kwargs["cert"] = (get("cert_file"), get("key_file"), get("key_password"))
    if get("ca_file"):
        kwargs["verify"] = get("ca_file")
    for name in ("timeout", "connect_timeout"):
        if settings.client.get(name) is not None:
            kwargs[name] = settings.client[name]
    kwargs.update(settings.client.get("client_options") or {})
    return kwargs


def encoder(settings: Settings) -> Callable[[Event[Any]], HttpMessage]:
    """Encode an event as a request to the endpoint: the event's method, else the endpoint's;
    the event's path and query when its binding has them (the sender resolves the path
    against the endpoint URI, which is its base URL)."""

    mode = settings.mode
    method = str(settings.option("method", "POST")).upper()

    def encode(event: Event[Any]) -> HttpMessage:
        b = event.binding
        if b.__class__ is HttpBinding and b.method:
            return codec.encode(event, mode)
        return codec.encode(event, mode, method=method)

    return encode


def sender(settings: Settings) -> Any:
    """An ``HttpSender`` (or ``AsyncHttpSender``) bound to the endpoint URI, in the receipt
    shape of every endpoint sender (``_receipts``)."""
    from .adapter import AsyncHttpSender, HttpSender

    kwargs = config(settings)
    del kwargs["method"]
    encode = checked_encoder(settings, encoder(settings))
    base = kwargs.pop("base_url")
    if settings.client.get("asynchronous"):
        return AsyncHttpEndpointSender(AsyncHttpSender(base, encoder=encode, **kwargs))
    return HttpEndpointSender(HttpSender(base, encoder=encode, **kwargs))


def receiver(settings: Settings) -> Any:
    """For a ``producer`` endpoint the ``AsgiReceiver`` serving it (method, path,
    authorization checked); for a ``consumer`` endpoint an ``HttpPullReceiver``."""
    from .adapter import AsgiReceiver, HttpPullReceiver

    kwargs = config(settings)
    method = kwargs.pop("method")
    if settings.role == "consumer":
        base = kwargs.pop("base_url")
        return HttpPullReceiver(base, method=method, **kwargs)
    on_message = settings.client.get("on_message")
    if on_message is None:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r}: the ASGI receiver of a producer endpoint "
            "needs on_message=... (e.g. dispatcher.dispatch_async)"
        )
    auth_headers, auth_query = credential_fields(settings)
    return AsgiReceiver(
        on_message,
        method=method,
        path="/" + _address(settings).path,
        required_headers=tuple(auth_headers),
        required_query=tuple(auth_query),
    )
