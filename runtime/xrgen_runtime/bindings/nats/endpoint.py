"""NATS endpoint support: rc4 ``NATS`` endpoint options -> nats-py connect options and the
``nats`` adapters (docs/endpoints.md, "NATS").

The adapters are asyncio: ``sender``/``receiver`` return a ``Connecting`` (await it, or use it
with ``async with``). Core NATS delivers at most once. The ``jetstream`` option (an object of
the settings in ``JETSTREAM``, or ``true``; ``jetstream=``, ``durable=`` and ``stream=`` as
arguments) makes the sender publish to JetStream (waiting for the stream's ack) and the
receiver pull from a durable consumer on the subject filter (acknowledged after the handler);
a named stream is created when absent with ``create``, else its absence is an error naming it.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ...adapters._connecting import Connecting
from ...endpoints._credentials import classify
from ...endpoints._encode import checked_encoder
from ...endpoints._errors import EndpointConnectFailed, EndpointError
from ...endpoints._uris import Scheme, addresses, reason
from . import codec
from .spec import NatsBinding

if TYPE_CHECKING:
    from ..._event import Event
    from ...endpoints._credentials import Requirement
    from ...endpoints._model import Authorization
    from ...endpoints._resolve import Settings
    from .spec import NatsMessage

OPTIONS = frozenset({"subject", "subjectfilter", "queuegroup", "jetstream"})
#: ``options``: more ``nats.connect`` keyword arguments; ``durable``/``stream``: JetStream
#: settings (as in the ``jetstream`` option); ``connect_timeout`` (seconds)
CLIENT_ARGS = frozenset({"options", "durable", "stream", "connect_timeout"})
#: the settings of the ``jetstream`` option: the stream (``stream``; ``create`` it when
#: absent, storing ``subjects`` with ``storage``, ``retention``, ``maxage`` seconds,
#: ``replicas``), and the receiver's durable pull consumer (``durable``, ``ackwait`` seconds,
#: ``maxdeliver``, ``maxackpending``: its window of unacknowledged messages, ``backoff``
#: seconds between redeliveries, ``deliverpolicy``) -> their types
JETSTREAM: dict[str, tuple[type, ...]] = {
    "stream": (str,),
    "create": (bool,),
    "subjects": (tuple,),
    "storage": (str,),
    "retention": (str,),
    "maxage": (int, float),
    "replicas": (int,),
    "durable": (str,),
    "ackwait": (int, float),
    "maxdeliver": (int,),
    "maxackpending": (int,),
    "backoff": (tuple,),
    "deliverpolicy": (str,),
}
_STREAM = {"storage": "storage", "retention": "retention", "maxage": "max_age",
           "replicas": "num_replicas"}  # fmt: skip
_CONSUMER = {"ackwait": "ack_wait", "maxdeliver": "max_deliver",
             "maxackpending": "max_ack_pending", "backoff": "backoff",
             "deliverpolicy": "deliver_policy"}  # fmt: skip
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


def jetstream(settings: Settings) -> dict[str, Any] | None:
    """The JetStream settings (``None``: core NATS) from the ``jetstream`` option (an object,
    ``true`` or ``false``) and the ``durable``/``stream`` arguments, checked."""
    value = settings.option("jetstream")
    given = {
        k: settings.client[k] for k in ("durable", "stream") if k in settings.client
    }
    if (value is None or value is False) and not given:
        return None
    if value is None or value is True or value is False:
        found: dict[str, Any] = {}
    elif isinstance(value, Mapping):
        found = dict(value)
    else:
        raise settings.refuse("jetstream", value, "must be an object, true or false")
    found.update({k: v for k, v in given.items() if v is not None})
    for key, item in found.items():
        kinds = JETSTREAM.get(key)
        if kinds is None:
            raise EndpointError(
                f"endpoint {settings.endpoint.id!r}: jetstream setting {key!r} is not one "
                f"of {', '.join(JETSTREAM)}"
            )
        if isinstance(item, list):
            item = found[key] = tuple(item)
        if not isinstance(item, kinds) or (
            isinstance(item, bool) and bool not in kinds
        ):
            raise settings.refuse(
                "jetstream", {key: item}, f"has a {type(item).__name__} for {key!r}"
            )
    return found


def config(settings: Settings) -> dict[str, Any]:
    """The adapter's ``connect`` keyword arguments (``nats.connect`` options plus, for a
    receiver, ``subject`` and ``queue``, or the JetStream ``durable``, ``stream`` and
    ``consumer`` settings)."""
    options = connect_options(settings)
    if settings.client.get("connect_timeout") is not None:
        options["connect_timeout"] = settings.client["connect_timeout"]
    js = jetstream(settings)
    if js is not None:
        if js.get("stream") is not None:
            options["stream"] = js["stream"]
            options["create"] = bool(js.get("create", False))
            if js.get("subjects"):
                options["subjects"] = list(js["subjects"])
            stream = {arg: js[k] for k, arg in _STREAM.items() if js.get(k) is not None}
            if stream:
                options["stream_settings"] = stream
    if settings.role == "producer":
        if js is not None:
            options["jetstream"] = True
        return options
    options["subject"] = _filter(settings)
    if js is None:
        if settings.option("queuegroup"):
            options["queue"] = settings.options["queuegroup"]
        return options
    if not js.get("durable"):
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r}: a JetStream receiver pulls from a durable "
            "consumer: declare jetstream 'durable' or pass durable=..."
        )
    options["durable"] = js["durable"]
    consumer = {arg: js[k] for k, arg in _CONSUMER.items() if js.get(k) is not None}
    if consumer:
        options["consumer"] = consumer
    return options


def encoder(settings: Settings) -> Callable[[Event[Any]], NatsMessage]:
    """Encode an event as a NATS message: the event's subject, else the endpoint's."""

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
    from .adapter import JetStreamSender, NatsSender

    options = config(settings)
    servers = options.pop("servers")
    encode = checked_encoder(settings, encoder(settings))
    cls: Any = JetStreamSender if options.pop("jetstream", False) else NatsSender
    if cls is JetStreamSender and "stream" in options and "subjects" not in options:
        options["subjects"] = [subject(settings, "subject") or ">"]

    async def connect() -> Any:
        return await _connected(
            settings, servers, cls.connect(servers, encoder=encode, **options)
        )

    return Connecting(connect)


async def _connected(settings: Settings, servers: list[str], connecting: Any) -> Any:
    """Await ``connecting``; a connect error becomes ``EndpointConnectFailed`` naming the
    endpoint (a missing JetStream stream, too, names it)."""

    try:
        return await connecting
    except (OSError, TimeoutError) as exc:
        where = ", ".join(a.split("://", 1)[-1] for a in servers)
        raise EndpointConnectFailed(
            settings.endpoint.id, [(where, reason(exc))]
        ) from exc


def receiver(settings: Settings) -> Connecting[Any]:
    """A ``Connecting`` of ``NatsReceiver`` (``JetStreamReceiver`` with ``durable=``)."""
    from .adapter import JetStreamReceiver, NatsReceiver

    options = config(settings)
    servers = options.pop("servers")
    subject = options.pop("subject")

    async def connect() -> Any:
        rest = dict(options)
        durable = rest.pop("durable", None)
        if durable is not None:
            connecting: Any = JetStreamReceiver.connect(
                servers, subject, durable, **rest
            )
        else:
            connecting = NatsReceiver.connect(servers, subject, **rest)
        return await _connected(settings, servers, connecting)

    return Connecting(connect)
