"""AMQP 1.0 endpoint support: rc4 ``AMQP/1.0`` endpoint options -> the keyword arguments of
the ``amqp`` adapters (python-qpid-proton) (docs/endpoints.md, "AMQP").

``config`` is what ``sender``/``receiver`` pass to ``AmqpSender``/``AmqpReceiver``: every URI
(proton fails over in preference order), the node (``node``, else the path of the preferred
URI), SASL and TLS settings, connection properties and capabilities, and the link settings
(``link``: terminus durability, expiry policy and timeout, capabilities, distribution mode,
filters, link properties, settle modes) that the adapter applies when it attaches the link.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...endpoints._credentials import classify
from ...endpoints._encode import checked_encoder
from ...endpoints._errors import EndpointError
from ...endpoints._uris import Scheme, addresses, connected
from . import codec

if TYPE_CHECKING:
    from ..._event import Event
    from ...endpoints._credentials import Requirement
    from ...endpoints._model import Authorization
    from ...endpoints._resolve import Settings
    from .spec import AmqpMessage

OPTIONS = frozenset(
    {
        "node",
        "durable",
        "link-properties",
        "connection-properties",
        "distribution-mode",
        "connection-capabilities",
        "node-capabilities",
        "source-filters",
        "dynamic",
        "terminus-durability",
        "expiry-policy",
        "timeout",
        "sender-settle-mode",
        "receiver-settle-mode",
    }
)
#: ``connect_timeout`` (seconds), ``prefetch`` (receiver credit), ``max_in_flight`` (sender)
CLIENT_ARGS = frozenset({"connect_timeout", "prefetch", "max_in_flight"})
#: placeholders are percent-encoded in every option, as in the message templates they meet
VERBATIM: frozenset[str] = frozenset()
RECEIVER_ROLES = ("consumer", "subscriber")
CLIENT = "python-qpid-proton"

_SCHEMES = {"amqp": Scheme(tls=False, port=5672), "amqps": Scheme(tls=True, port=5671)}
#: rc4 option -> key of the adapter's ``link`` settings
_LINK = {
    "link-properties": "properties",
    "node-capabilities": "capabilities",
    "terminus-durability": "durability",
    "expiry-policy": "expiry_policy",
    "timeout": "timeout",
    "sender-settle-mode": "sender_settle_mode",
    "receiver-settle-mode": "receiver_settle_mode",
}
#: options of the source terminus only (receiving roles)
_SOURCE_ONLY = {"distribution-mode": "distribution_mode", "source-filters": "filters"}


def requirement(entry: Authorization) -> Requirement:
    """Credentials an authorization entry needs with proton (``None``: unsupported)."""
    kind, mechanism = classify(entry)
    if kind == "password":
        return (("username", "password"),)
    if kind == "anonymous":
        return ((),)
    if kind == "certificate":
        return (("cert_file", "key_file"),)
    if kind == "apikey" or (kind == "token" and mechanism is None):
        return (
            ("token",),
        )  # the password of SASL PLAIN (OAuth2: RabbitMQ's JWT login)
    return None


def _sasl(settings: Settings) -> dict[str, Any]:
    credentials = settings.credentials
    get = credentials.get
    entry = credentials.authorization
    out: dict[str, Any] = {}
    password = get("password") or get("token")
    if password is not None or get("username") is not None:
        out["user"] = get("username") or ""
        out["password"] = password
    if entry is not None and (entry.type or "").lower() == "sasl" and entry.mechanism:
        out["allowed_mechs"] = entry.mechanism.upper()
    elif entry is not None and (entry.type or "").lower() == "x509cert":
        out["allowed_mechs"] = "EXTERNAL"
    return out


def _tls(settings: Settings, tls: bool) -> dict[str, Any] | None:
    get = settings.credentials.get
    if not tls and not get("cert_file"):
        return None
    return {
        name: get(name)
        for name in ("ca_file", "cert_file", "key_file", "key_password")
        if get(name)
    }


def _link(settings: Settings) -> dict[str, Any]:
    link: dict[str, Any] = {}
    names = dict(_LINK)
    if settings.role != "producer":
        names.update(_SOURCE_ONLY)
    for option, key in names.items():
        value = settings.option(option)
        if value is not None:
            link[key] = value
    return link


def config(settings: Settings) -> dict[str, Any]:
    """The ``AmqpSender``/``AmqpReceiver`` keyword arguments."""
    found = addresses(settings, _SCHEMES)
    tls = {a.info.tls for a in found}
    if len(tls) > 1:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} mixes amqp and amqps URIs"
        )
    dynamic = bool(settings.option("dynamic"))
    node = settings.option("node") or found[0].path or None
    if node is None and not dynamic:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} declares no node (and no URI path): "
            "pass node=..."
        )
    kwargs: dict[str, Any] = {
        "url": [f"{a.scheme}://{a.host}:{a.port}" for a in found],
        "address": None if dynamic and settings.role != "producer" else node,
    }
    tls_settings = _tls(settings, tls.pop())
    if tls_settings is not None:
        kwargs["tls"] = tls_settings
    kwargs.update(_sasl(settings))
    if settings.option("connection-properties"):
        kwargs["connection_properties"] = dict(
            settings.options["connection-properties"]
        )
    if settings.option("connection-capabilities"):
        kwargs["connection_capabilities"] = list(
            settings.options["connection-capabilities"]
        )
    link = _link(settings)
    if link:
        kwargs["link"] = link
    if dynamic and settings.role != "producer":
        kwargs["dynamic"] = True
    client = settings.client
    if client.get("connect_timeout") is not None:
        kwargs["timeout"] = client["connect_timeout"]
    if settings.role == "producer" and client.get("max_in_flight") is not None:
        kwargs["max_in_flight"] = client["max_in_flight"]
    if settings.role != "producer" and client.get("prefetch") is not None:
        kwargs["prefetch"] = client["prefetch"]
    return kwargs


def encoder(settings: Settings) -> Callable[[Event[Any]], AmqpMessage]:
    """Encode an event as an AMQP message; one without an address goes to the sender's node."""

    mode = settings.mode

    def encode(event: Event[Any]) -> AmqpMessage:
        return codec.encode(event, mode)

    return encode


def sender(settings: Settings) -> Any:
    """An ``AmqpSender`` to the endpoint's node; events go to their binding's address when
    they have one, else to the node."""
    from .adapter import AmqpSender

    encode = checked_encoder(settings, encoder(settings))
    kwargs = config(settings)
    return connected(
        settings, _servers(kwargs), lambda: AmqpSender(**kwargs, encoder=encode)
    )


def receiver(settings: Settings) -> Any:
    """An ``AmqpReceiver`` attached to the endpoint's node as source."""
    from .adapter import AmqpReceiver

    kwargs = config(settings)
    return connected(settings, _servers(kwargs), lambda: AmqpReceiver(**kwargs))


def _servers(kwargs: dict[str, Any]) -> str:
    return ", ".join(url.split("://", 1)[-1] for url in kwargs["url"])
