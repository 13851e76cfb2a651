"""Kafka endpoint support: rc4 ``KAFKA`` endpoint options -> confluent-kafka configuration and
the ``kafka`` adapters (docs/endpoints.md, "Kafka").

No client library is imported here: ``config`` builds the confluent-kafka dictionary;
``sender``/``receiver`` import ``adapters.kafka`` when called.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...endpoints._credentials import classify
from ...endpoints._errors import EndpointError

if TYPE_CHECKING:
    from ..._event import Event
    from ...endpoints._credentials import Requirement
    from ...endpoints._model import Authorization
    from ...endpoints._resolve import Settings
    from .spec import KafkaMessage

OPTIONS = frozenset(
    {
        "topic",
        "acks",
        "key",
        "partition",
        "consumergroup",
        "headers",
        "keyserializer",
        "valueserializer",
        "autooffsetreset",
        "enableautocommit",
    }
)
#: ``config``: more confluent-kafka settings (win over the catalog's); ``on_delivery`` of the
#: sender, ``on_error`` of the receiver (``adapters.kafka``); ``connect_timeout`` (seconds)
CLIENT_ARGS = frozenset({"config", "on_delivery", "on_error", "connect_timeout"})
#: placeholders are percent-encoded in every option, as in the message templates they meet
VERBATIM: frozenset[str] = frozenset()
RECEIVER_ROLES = ("consumer", "subscriber")
CLIENT = "confluent-kafka"

_SASL_PASSWORD = frozenset({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})
_OAUTH: tuple[tuple[str, ...], ...] = (
    ("token",),
    ("oauth_client_id", "oauth_client_secret"),
)
_USER_PASSWORD: tuple[tuple[str, ...], ...] = (("username", "password"),)
_SCHEMES = {
    "": False,
    "PLAINTEXT": False,
    "SASL_PLAINTEXT": False,
    "SSL": True,
    "SASL_SSL": True,
}
#: what Kafka allows in a topic name (kafka.common.internals.Topic)
_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
#: lifetime reported to librdkafka for a static OAUTHBEARER token (it asks again before)
_TOKEN_LIFETIME = 3600.0


def _mechanism(entry: Authorization) -> str | None:
    """The SASL mechanism an entry means for Kafka (``None``: not a SASL entry)."""
    kind, mechanism = classify(entry)
    if kind == "password":
        return mechanism
    return "OAUTHBEARER" if kind == "token" else None


def requirement(entry: Authorization) -> Requirement:
    """Credentials an authorization entry needs with confluent-kafka (``None``: unsupported)."""
    kind, mechanism = classify(entry)
    if kind == "password" and mechanism in _SASL_PASSWORD:
        return _USER_PASSWORD
    if kind == "token":
        return _OAUTH
    if kind == "certificate":
        return (("cert_file", "key_file"),)
    return None


def _bootstrap(settings: Settings) -> tuple[str, bool]:
    """``bootstrap.servers`` and whether the scheme asks for TLS (``SSL://host:port``)."""
    servers: list[str] = []
    tls: set[bool] = set()
    for uri in settings.uris:
        scheme, sep, rest = uri.partition("://")
        if not sep:
            scheme, rest = "", uri
        upper = scheme.upper()
        if upper not in _SCHEMES:
            raise EndpointError(
                f"endpoint {settings.endpoint.id!r}: Kafka bootstrap server {uri!r} has "
                f"scheme {scheme!r} (PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)"
            )
        tls.add(_SCHEMES[upper])
        servers.append(rest.rstrip("/"))
    if not servers:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} has no bootstrap servers "
            "(protocoloptions.endpoints): pass uris=[...]"
        )
    if len(tls) > 1:
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r} mixes TLS and plaintext bootstrap servers"
        )
    return ",".join(servers), tls.pop()


def _static_token(token: str) -> Callable[[str], tuple[str, float]]:
    def oauth_cb(config: str) -> tuple[str, float]:
        return token, time.time() + _TOKEN_LIFETIME

    return oauth_cb


def _security(settings: Settings, conf: dict[str, Any], tls: bool) -> None:
    """Apply the chosen authorization (credentials from arguments or environment)."""
    credentials = settings.credentials
    get = credentials.get
    entry = credentials.authorization
    if entry is None:  # nothing declared: username and password given -> SASL PLAIN
        mechanism = "PLAIN" if get("username") and get("password") else None
        x509 = False
    else:
        x509 = classify(entry)[0] == "certificate"
        mechanism = _mechanism(entry)
    if mechanism is not None:
        conf["security.protocol"] = "SASL_SSL" if tls else "SASL_PLAINTEXT"
        conf["sasl.mechanism"] = mechanism
        if mechanism == "OAUTHBEARER":
            _oauth(settings, conf, entry)
        else:
            conf["sasl.username"] = get("username")
            conf["sasl.password"] = get("password")
    elif x509 or tls:
        conf["security.protocol"] = "SSL"
    if x509 or get("cert_file"):
        conf["ssl.certificate.location"] = get("cert_file")
        conf["ssl.key.location"] = get("key_file")
        if get("key_password"):
            conf["ssl.key.password"] = get("key_password")
    if get("ca_file"):
        conf["ssl.ca.location"] = get("ca_file")


def _oauth(
    settings: Settings, conf: dict[str, Any], entry: Authorization | None
) -> None:
    get = settings.credentials.get
    token = get("token")
    if token:
        conf["oauth_cb"] = _static_token(token)
        return
    conf["sasl.oauthbearer.method"] = "oidc"
    conf["sasl.oauthbearer.client.id"] = get("oauth_client_id")
    conf["sasl.oauthbearer.client.secret"] = get("oauth_client_secret")
    endpoint_url = entry.authorityuri if entry is not None else None
    if endpoint_url:
        conf["sasl.oauthbearer.token.endpoint.url"] = endpoint_url
    elif "sasl.oauthbearer.token.endpoint.url" not in (
        settings.client.get("config") or {}
    ):
        raise EndpointError(
            f"endpoint {settings.endpoint.id!r}: OAUTHBEARER with client credentials needs "
            "the token endpoint: authorityuri in the catalog, or pass "
            "config={'sasl.oauthbearer.token.endpoint.url': ...}"
        )


def topic(settings: Settings) -> str | None:
    """The endpoint's topic, checked against Kafka's topic-name rule (an ``EndpointError``
    names the placeholder values that broke it)."""
    value = settings.option("topic")
    if value is None:
        return None
    if not _TOPIC.fullmatch(str(value)):
        raise settings.refuse(
            "topic",
            value,
            "is not a Kafka topic name (1 to 249 letters, digits, '.', '_', '-')",
        )
    return str(value)


def config(settings: Settings) -> dict[str, Any]:
    """The confluent-kafka configuration of the endpoint's producer or consumer."""
    servers, tls = _bootstrap(settings)
    conf: dict[str, Any] = {"bootstrap.servers": servers}
    _security(settings, conf, tls)
    if settings.role == "producer":
        acks = settings.option("acks")
        if acks is not None:
            conf["acks"] = acks
    else:
        group = settings.option("consumergroup")
        if group is None:
            raise EndpointError(
                f"endpoint {settings.endpoint.id!r} ({settings.role}) declares no "
                "consumergroup; the consumer group is the caller's: pass consumergroup=..."
            )
        conf["group.id"] = group
        reset = settings.option("autooffsetreset")
        if reset is not None:
            conf["auto.offset.reset"] = reset
        commit = settings.option("enableautocommit")
        if commit is not None:
            conf["enable.auto.commit"] = bool(commit)
    conf.update(settings.client.get("config") or {})
    return conf


def encoder(settings: Settings) -> Callable[[Event[Any]], KafkaMessage]:
    """Encode an event as a Kafka record: the event's binding first, the endpoint's topic,
    key, partition and headers where the binding has none (headers are added)."""
    from . import codec
    from .spec import KafkaBinding

    mode = settings.mode
    default_topic = topic(settings)
    key_text = settings.option("key")
    key = key_text.encode() if isinstance(key_text, str) else None
    partition = settings.option("partition")
    headers = settings.option("headers") or {}
    extra = tuple((str(k), str(v).encode()) for k, v in headers.items())

    def encode(event: Event[Any]) -> KafkaMessage:
        b = event.binding
        if b.__class__ is KafkaBinding:
            assert isinstance(b, KafkaBinding)
            return codec.encode(
                event,
                mode,
                topic=None if b.topic else default_topic,
                key=key if b.key is None else None,
                partition=partition if b.partition is None else None,
                headers=b.headers + extra if extra else None,
            )
        return codec.encode(
            event,
            mode,
            topic=default_topic,
            key=key,
            partition=partition,
            headers=extra or None,
        )

    return encode


def sender(settings: Settings) -> Any:
    """A ``KafkaSender`` with the endpoint's producer configuration and encoder."""
    from ...endpoints._encode import checked_encoder
    from ...endpoints._uris import connected
    from .adapter import KafkaSender

    conf = config(settings)
    encode = checked_encoder(settings, encoder(settings))
    return connected(
        settings,
        conf["bootstrap.servers"],
        lambda: KafkaSender(
            conf,
            on_delivery=settings.client.get("on_delivery"),
            encoder=encode,
            **_timeout(settings),
        ),
    )


def _timeout(settings: Settings) -> dict[str, Any]:
    given = settings.client.get("connect_timeout")
    return {} if given is None else {"connect_timeout": float(given)}


def receiver(settings: Settings) -> Any:
    """A ``KafkaReceiver`` in the endpoint's consumer group, on its topic (and partition)."""
    from ...endpoints._uris import connected
    from .adapter import KafkaReceiver

    settings.require("topic", "the topic to consume")
    partition = settings.option("partition")
    conf = config(settings)
    return connected(
        settings,
        conf["bootstrap.servers"],
        lambda: KafkaReceiver(
            conf,
            [topic(settings) or ""],
            partitions=None if partition is None else [int(partition)],
            on_error=settings.client.get("on_error"),
            **_timeout(settings),
        ),
    )
