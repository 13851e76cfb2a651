"""MQTT endpoint support: rc4 ``MQTT/3.1.1`` and ``MQTT/5.0`` endpoint options -> the keyword
arguments of the ``mqtt`` adapters (paho-mqtt) (docs/endpoints.md, "MQTT").

``config`` is what ``sender``/``receiver`` pass to ``MqttSender``/``MqttReceiver`` for the
preferred URI; they try the URIs in preference order until one connects. The will message is
built with the typed producer of the referenced message (``MESSAGES[id].create`` of the
generated package) from the ``will`` argument (payload, ``Event`` or ``MqttMessage``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._event import Event
from ...endpoints._credentials import classify
from ...endpoints._encode import checked_encoder
from ...endpoints._errors import EndpointError
from ...endpoints._uris import Address, Scheme, addresses, first_connected
from . import codec
from .spec import MqttBinding, MqttMessage

if TYPE_CHECKING:
    from ...endpoints._credentials import Requirement
    from ...endpoints._model import Authorization
    from ...endpoints._resolve import Settings

OPTIONS = frozenset(
    {
        "topic",
        "qos",
        "retain",
        "cleansession",
        "topicfilter",
        "willtopic",
        "willmessage",
        "cleanstart",
        "sessionexpiryinterval",
        "sharedsubscriptiongroup",
        "nolocal",
        "retainaspublished",
        "retainhandling",
    }
)
#: ``client_id`` (required for a persistent session), ``will`` (payload, event or message of
#: the will) and ``will_arguments`` (more keyword arguments of the will message's producer),
#: ``keepalive`` and ``connect_timeout`` (seconds), ``receive_maximum`` (receiver: its
#: window of unacknowledged messages)
CLIENT_ARGS = frozenset(
    {
        "client_id",
        "will",
        "will_arguments",
        "keepalive",
        "connect_timeout",
        "receive_maximum",
    }
)
#: placeholders are percent-encoded in every option, as in the message templates they meet
VERBATIM: frozenset[str] = frozenset()
RECEIVER_ROLES = ("consumer", "subscriber")
CLIENT = "paho-mqtt"

_SCHEMES = {
    "mqtt": Scheme(tls=False, port=1883),
    "tcp": Scheme(tls=False, port=1883),
    "mqtts": Scheme(tls=True, port=8883),
    "ssl": Scheme(tls=True, port=8883),
    "ws": Scheme(tls=False, port=80, transport="websockets"),
    "wss": Scheme(tls=True, port=443, transport="websockets"),
}
_TOPIC_IN_PATH = frozenset({"mqtt", "mqtts"})


def requirement(entry: Authorization) -> Requirement:
    """Credentials an authorization entry needs with paho-mqtt (``None``: unsupported)."""
    kind, mechanism = classify(entry)
    if kind == "password" and mechanism == "PLAIN":
        return (("username", "password"),)
    if kind in ("token", "apikey"):
        return (("token",),)  # sent as the CONNECT password
    if kind == "certificate":
        return (("cert_file", "key_file"),)
    return None


def version(settings: Settings) -> str:
    """``"3.1.1"`` for ``MQTT/3.1.1``, else ``"5.0"`` (``MQTT`` means 5.0)."""
    protocol = (settings.endpoint.protocol or "").upper()
    return "3.1.1" if protocol.endswith("/3.1.1") else "5.0"


def _tls(settings: Settings, address: Address) -> dict[str, Any] | None:
    get = settings.credentials.get
    if not address.info.tls and not get("cert_file"):
        return None
    tls: dict[str, Any] = {}
    for arg, name in (
        ("ca_certs", "ca_file"),
        ("certfile", "cert_file"),
        ("keyfile", "key_file"),
        ("keyfile_password", "key_password"),
    ):
        if get(name):
            tls[arg] = get(name)
    return tls


def _login(settings: Settings) -> dict[str, Any]:
    get = settings.credentials.get
    password = get("password") or get("token")
    username = get("username")
    if password is None and username is None:
        return {}
    return {"username": username or "", "password": password}


def _session(settings: Settings, v5: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    clean = settings.option("cleanstart" if v5 else "cleansession")
    if clean is not None:
        out["clean_start"] = bool(clean)
    expiry = settings.option("sessionexpiryinterval")
    if v5 and expiry is not None:
        out["session_expiry"] = int(expiry)
    client_id = settings.client.get("client_id")
    if client_id is not None:
        out["client_id"] = client_id
    elif out.get("clean_start") is False:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} keeps its session (clean "
            f"{'start' if v5 else 'session'} false): pass client_id=... (the session's name)"
        )
    return out


def _message_id(settings: Settings, reference: str) -> str:
    messages = settings.package_messages
    if reference in messages:
        return reference
    tail = reference.rsplit("/messages/", 1)[-1]
    if tail in messages:
        return tail
    raise EndpointError(
        f"endpoint {settings.endpoint.id!r}: willmessage {reference!r} is no message of "
        f"package {settings.endpoint.package!r}"
    )


def _will_event(settings: Settings, given: Any) -> Event[Any]:
    if isinstance(given, Event):
        return given
    reference = settings.option("willmessage")
    if reference is None:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} declares no willmessage: pass will= as an "
            "Event or MqttMessage"
        )
    message_id = _message_id(settings, str(reference))
    info = settings.package_messages[message_id]
    accepted = inspect.signature(info.create).parameters
    values = {k: v for k, v in settings.placeholders.items() if k in accepted}
    values.update(settings.client.get("will_arguments") or {})
    if given is None and info.model is not None:
        given = {}  # a payload whose fields are all optional
    try:
        return info.create(given, **values)  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r}: the will message {message_id!r} cannot be "
            f"built ({type(exc).__name__}: {str(exc).splitlines()[0]}): pass will=<its "
            "payload> and its placeholders"
        ) from None


def _will(settings: Settings) -> MqttMessage | None:
    given = settings.client.get("will")
    if given is None and settings.option("willmessage") is None:
        return None
    if isinstance(given, MqttMessage):
        return given
    event = _will_event(settings, given)
    topic = settings.option("willtopic")
    try:
        return codec.encode(
            event, settings.mode, topic=topic, version=version(settings)
        )
    except ValueError:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r}: the will message has no topic: "
            "declare willtopic or pass willtopic=..."
        ) from None


def _topic_filter(settings: Settings, address: Address) -> str:
    found = settings.option("topicfilter") or settings.option("topic")
    if found is None and address.scheme in _TOPIC_IN_PATH and address.path:
        found = address.path
    if not found:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} declares no topicfilter: pass topicfilter=..."
        )
    group = settings.option("sharedsubscriptiongroup")
    return f"$share/{group}/{found}" if group else str(found)


def _kwargs(settings: Settings, address: Address) -> dict[str, Any]:
    v = version(settings)
    kwargs: dict[str, Any] = {
        "host": address.host,
        "port": address.port,
        "version": v,
        "transport": address.info.transport,
    }
    if address.info.transport == "websockets":
        kwargs["ws_path"] = "/" + address.path
    tls = _tls(settings, address)
    if tls is not None:
        kwargs["tls"] = tls
    kwargs.update(_session(settings, v == "5.0"))
    kwargs.update(_login(settings))
    for name in ("keepalive", "connect_timeout"):
        if settings.client.get(name) is not None:
            kwargs[name] = settings.client[name]
    will = _will(settings)
    if will is not None:
        kwargs["will"] = will
    if settings.role != "producer":
        kwargs["topics"] = [_topic_filter(settings, address)]
        kwargs["qos"] = int(settings.option("qos", 0))
        if settings.client.get("receive_maximum") is not None:
            kwargs["receive_maximum"] = int(settings.client["receive_maximum"])
        if v == "5.0":
            for option, arg in (
                ("nolocal", "no_local"),
                ("retainaspublished", "retain_as_published"),
                ("retainhandling", "retain_handling"),
            ):
                if settings.option(option) is not None:
                    kwargs[arg] = settings.options[option]
    return kwargs


def config(settings: Settings) -> dict[str, Any]:
    """The ``MqttSender``/``MqttReceiver`` keyword arguments for the preferred URI."""
    return _kwargs(settings, addresses(settings, _SCHEMES)[0])


def encoder(
    settings: Settings, address: Address | None = None
) -> Callable[[Event[Any]], MqttMessage]:
    """Encode an event as a PUBLISH: the event's binding first; the endpoint's topic (or the
    URI path), QoS and retain flag where the binding has none; the endpoint's MQTT version.
    """

    mode = settings.mode
    v = version(settings)
    if address is None:
        address = addresses(settings, _SCHEMES)[0]
    topic = settings.option("topic")
    if topic is None and address.scheme in _TOPIC_IN_PATH and address.path:
        topic = address.path
    qos = settings.option("qos")
    retain = settings.option("retain")

    def encode(event: Event[Any]) -> MqttMessage:
        b = event.binding
        if b.__class__ is MqttBinding:
            assert isinstance(b, MqttBinding)
            return codec.encode(
                event,
                mode,
                topic=None if b.topic else topic,
                qos=qos if not b.qos else None,
                retain=retain if not b.retain else None,
                version=v,
            )
        return codec.encode(event, mode, topic=topic, qos=qos, retain=retain, version=v)

    return encode


def sender(settings: Settings) -> Any:
    """An ``MqttSender`` connected to the first reachable URI, encoding for the endpoint."""
    from .adapter import MqttSender

    def build(address: Address) -> Any:
        encode = checked_encoder(settings, encoder(settings, address))
        return MqttSender(**_kwargs(settings, address), encoder=encode)

    return first_connected(settings, addresses(settings, _SCHEMES), build)


def receiver(settings: Settings) -> Any:
    """An ``MqttReceiver`` on the first reachable URI, subscribed to the endpoint's filter."""
    from .adapter import MqttReceiver

    def build(address: Address) -> Any:
        return MqttReceiver(**_kwargs(settings, address))

    return first_connected(settings, addresses(settings, _SCHEMES), build)
