"""NATS endpoint support: rc4 ``NATS`` endpoint options -> nats-py connect options and the
``nats`` adapters (docs/endpoints.md, "NATS").

The adapters are asyncio: ``sender``/``receiver`` return a ``Connecting`` (await it, or use it
with ``async with``). Core NATS delivers at most once; ``durable=`` on the receiver uses a
JetStream durable pull consumer on the subject filter instead (acknowledged after the
handler), ``jetstream=True`` on the sender publishes to JetStream (waits for the stream's ack).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..endpoints._connecting import Connecting
from ..endpoints._credentials import classify
from ..endpoints._errors import EndpointError
from ..endpoints._uris import Scheme, addresses

if TYPE_CHECKING:
    from .._event import Event
    from ..bindings import NatsMessage
    from ..endpoints._credentials import Requirement
    from ..endpoints._model import Authorization
    from ..endpoints._resolve import Settings

OPTIONS = frozenset({"subject", "subjectfilter", "queuegroup"})
#: ``options``: more ``nats.connect`` keyword arguments; ``jetstream`` (sender) and
#: ``durable``/``stream`` (receiver): JetStream instead of core NATS
CLIENT_ARGS = frozenset({"options", "jetstream", "durable", "stream"})
#: placeholders are percent-encoded in every option, as in the message templates they meet
VERBATIM: frozenset[str] = frozenset()
RECEIVER_ROLES = ("consumer", "subscriber")
CLIENT = "nats-py"

_SCHEMES = {
    "nats": Scheme(tls=False, port=4222),
    "tls": Scheme(tls=True, port=4222),
    "ws": Scheme(tls=False, port=80, transport="websocket"),
    "wss": Scheme(tls=True, port=443, transport="websocket"),
}


def requirement(entry: Authorization) -> Requirement:
    """Credentials an authorization entry needs with nats-py (``None``: unsupported)."""
    kind, mechanism = classify(entry)
    if kind == "password" and mechanism == "PLAIN":
        return (("username", "password"),)
    if kind in ("token", "apikey"):
        return (("token",),)
    if kind == "certificate":
        return (("cert_file", "key_file"),)
    return None


def _tls(settings: Settings, wanted: bool) -> ssl.SSLContext | None:
    get = settings.credentials.get
    if not wanted and not get("cert_file"):
        return None
    context = ssl.create_default_context(cafile=get("ca_file"))
    cert = get("cert_file")
    if cert:
        context.load_cert_chain(cert, get("key_file"), get("key_password"))
    return context


def connect_options(settings: Settings) -> dict[str, Any]:
    """``nats.connect`` keyword arguments: servers, credentials, TLS."""
    found = addresses(settings, _SCHEMES)
    get = settings.credentials.get
    options: dict[str, Any] = {"servers": [a.uri for a in found]}
    if get("username") is not None or get("password") is not None:
        options["user"] = get("username")
        options["password"] = get("password")
    if get("token") is not None:
        options["token"] = get("token")
    context = _tls(settings, any(a.info.tls for a in found))
    if context is not None:
        options["tls"] = context
    options.update(settings.client.get("options") or {})
    return options


def subject(settings: Settings, name: str) -> str | None:
    """Option ``name`` (``subject`` or ``subjectfilter``), checked against NATS's subject
    rules: tokens separated by ``.``, none empty, no whitespace (an ``EndpointError`` names
    the placeholder values that broke them)."""
    value = settings.option(name)
    if value is None:
        return None
    text = str(value)
    if not text or any(not token for token in text.split(".")):
        raise settings.refuse(
            name, text, "has an empty token (NATS subjects need none)"
        )
    if any(c.isspace() for c in text):
        raise settings.refuse(name, text, "holds whitespace (NATS subjects cannot)")
    return text


def _filter(settings: Settings) -> str:
    found = subject(settings, "subjectfilter") or subject(settings, "subject")
    if not found:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} declares no subjectfilter: pass subjectfilter=..."
        )
    return found


def config(settings: Settings) -> dict[str, Any]:
    """The adapter's ``connect`` keyword arguments (``nats.connect`` options plus, for a
    receiver, ``subject`` and ``queue`` or ``durable``/``stream``)."""
    options = connect_options(settings)
    if settings.role != "producer":
        options["subject"] = _filter(settings)
        durable = settings.client.get("durable")
        if durable is not None:
            options["durable"] = durable
            if settings.client.get("stream") is not None:
                options["stream"] = settings.client["stream"]
        elif settings.option("queuegroup"):
            options["queue"] = settings.options["queuegroup"]
    return options


def encoder(settings: Settings) -> Callable[[Event[Any]], NatsMessage]:
    """Encode an event as a NATS message: the event's subject, else the endpoint's."""
    from ..bindings import NatsBinding
    from ..bindings import nats as codec

    mode = settings.mode
    default = subject(settings, "subject")

    def encode(event: Event[Any]) -> NatsMessage:
        b = event.binding
        if isinstance(b, NatsBinding) and b.subject:
            return codec.encode(event, mode)
        return codec.encode(event, mode, subject=default)

    return encode


def sender(settings: Settings) -> Connecting[Any]:
    """A ``Connecting`` of ``NatsSender`` (``JetStreamSender`` with ``jetstream=True``)."""
    from ..endpoints._encode import checked_encoder
    from .nats import JetStreamSender, NatsSender

    options = config(settings)
    servers = options.pop("servers")
    encode = checked_encoder(settings, encoder(settings))
    cls = JetStreamSender if settings.client.get("jetstream") else NatsSender

    async def connect() -> Any:
        return await cls.connect(servers, encoder=encode, **options)

    return Connecting(connect)


def receiver(settings: Settings) -> Connecting[Any]:
    """A ``Connecting`` of ``NatsReceiver`` (``JetStreamReceiver`` with ``durable=``)."""
    from .nats import JetStreamReceiver, NatsReceiver

    options = config(settings)
    servers = options.pop("servers")
    subject = options.pop("subject")

    async def connect() -> Any:
        rest = dict(options)
        durable = rest.pop("durable", None)
        if durable is not None:
            return await JetStreamReceiver.connect(servers, subject, durable, **rest)
        return await NatsReceiver.connect(servers, subject, **rest)

    return Connecting(connect)
