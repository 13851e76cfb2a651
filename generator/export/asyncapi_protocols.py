"""What each protocol binding becomes in AsyncAPI 3.0: server protocols by URI scheme, the
endpoint options that name a channel's address, the header names of a binary-mode CloudEvent,
and the bindings objects AsyncAPI defines (Kafka 0.5.0, MQTT 0.2.0, NATS 0.1.0, HTTP 0.3.0).

AMQP 1.0 has no AsyncAPI bindings (AsyncAPI's ``amqp`` bindings describe AMQP 0-9-1
exchanges and queues; ``amqp1`` is reserved and empty), nor do Pulsar topics in the short form
or RocketMQ: their options stay in the ``x-xregistry-*`` extensions (docs/asyncapi.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote, urlsplit

from ..model import ir

KAFKA_BINDING = "0.5.0"
MQTT_BINDING = "0.2.0"
NATS_BINDING = "0.1.0"
HTTP_BINDING = "0.3.0"

_MQTT_SCHEMES = {
    "mqtt": "mqtt",
    "tcp": "mqtt",
    "mqtts": "secure-mqtt",
    "ssl": "secure-mqtt",
    "ws": "ws",
    "wss": "wss",
}


@dataclass(frozen=True, slots=True)
class ProtocolMap:
    """How one catalog protocol (canonical id) reads in AsyncAPI."""

    #: URI scheme (lower case) -> AsyncAPI server ``protocol``
    schemes: Mapping[str, str]
    #: the server ``protocol`` of a URI without a scheme (Kafka's ``host:port``)
    default: str
    #: the server ``protocolVersion``
    version: str | None = None
    #: rc4 endpoint option holding the address a producer sends to / a receiver listens on
    publish: str | None = None
    listen: str | None = None
    #: schemes whose URI path is the address when no option names one (runtime rule)
    path_schemes: frozenset[str] = frozenset()
    #: HTTP: the address is the URI's path joined with the message's ``path``
    joins_path: bool = False
    #: the header a binary-mode CloudEvent carries attribute NAME in; None: structured only
    header: Callable[[str], str] | None = None
    #: the header holding ``datacontenttype`` in binary mode (None: the protocol's own
    #: content type field, AsyncAPI's message ``contentType``)
    content_type_header: str | None = None
    #: ``*Binding`` fields of name/value entries that travel as message headers
    header_fields: tuple[str, ...] = ()
    #: the AsyncAPI bindings key (None: AsyncAPI defines none for the protocol)
    binding: str | None = None


def _prefix(prefix: str) -> Callable[[str], str]:
    return lambda name: prefix + name


TABLE: dict[str, ProtocolMap] = {
    "KAFKA": ProtocolMap(
        schemes={
            "plaintext": "kafka",
            "sasl_plaintext": "kafka",
            "ssl": "kafka-secure",
            "sasl_ssl": "kafka-secure",
        },
        default="kafka",
        publish="topic",
        listen="topic",
        header=_prefix("ce_"),
        content_type_header="content-type",
        header_fields=("headers",),
        binding="kafka",
    ),
    "MQTT/5.0": ProtocolMap(
        schemes=_MQTT_SCHEMES,
        default="mqtt",
        version="5.0",
        publish="topic",
        listen="topicfilter",
        path_schemes=frozenset({"mqtt", "mqtts"}),
        header=lambda name: name,
        header_fields=("user_properties",),
        binding="mqtt",
    ),
    "AMQP/1.0": ProtocolMap(
        schemes={"amqp": "amqp", "amqps": "amqps"},
        default="amqp",
        version="1.0",
        publish="node",
        listen="node",
        path_schemes=frozenset({"amqp", "amqps"}),
        header=_prefix("cloudEvents_"),
        header_fields=("application_properties",),
    ),
    "NATS": ProtocolMap(
        schemes={"nats": "nats", "tls": "nats", "ws": "ws", "wss": "wss"},
        default="nats",
        publish="subject",
        listen="subjectfilter",
        header=_prefix("ce-"),
        content_type_header="content-type",
        header_fields=("headers",),
        binding="nats",
    ),
    "HTTP": ProtocolMap(
        schemes={"http": "http", "https": "https"},
        default="http",
        joins_path=True,
        header=_prefix("ce-"),
        content_type_header="Content-Type",
        header_fields=("headers",),
        binding="http",
    ),
    "PULSAR": ProtocolMap(
        schemes={"pulsar": "pulsar", "pulsar+ssl": "pulsar+ssl"},
        default="pulsar",
        publish="topic",
        listen="topic",
        header=_prefix("CE-"),
        content_type_header="CE-datacontenttype",
        header_fields=("properties",),
    ),
    "ROCKETMQ": ProtocolMap(
        schemes={},
        default="rocketmq",
        publish="topic",
        listen="topic",
        header=_prefix("CE_"),
        content_type_header="CE_contenttype",
        header_fields=("properties",),
    ),
}


#: MQTT 3.1.1 has no properties: no binary-mode CloudEvents, no user properties
TABLE["MQTT/3.1.1"] = replace(TABLE["MQTT/5.0"], version="3.1.1", header=None, header_fields=())


def lookup(protocol: str | None) -> ProtocolMap:
    """The map of a canonical protocol id; an unknown or absent protocol gets one with no
    addresses, headers or bindings (structured CloudEvents only)."""
    if protocol is not None and protocol in TABLE:
        return TABLE[protocol]
    name = (protocol or "").split("/", 1)[0].strip().lower()
    return ProtocolMap(schemes={}, default=name or "unknown")


# --------------------------------------------------------------------------- servers


@dataclass(frozen=True, slots=True)
class Address:
    """One endpoint URI as AsyncAPI reads it: server protocol, host, and the URI's path."""

    protocol: str
    host: str
    path: str
    scheme: str


def parse_uri(uri: str, pmap: ProtocolMap) -> Address:
    """``SASL_SSL://{host}:{port}`` -> kafka-secure, ``{host}:{port}``; ``host:9092`` (no
    scheme) -> the protocol's default. Placeholders stay in the host (server variables).
    """
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return Address(pmap.default, uri, "", "")
    low = scheme.lower()
    protocol = pmap.schemes.get(low, low or pmap.default)
    # urlsplit would read "{host}:{port}" as a host with a bad port: split by hand
    host, slash, path = rest.partition("/")
    host = host.rpartition("@")[2]  # user information never travels (the runtime refuses it)
    path = (slash + path).split("?", 1)[0].split("#", 1)[0]
    return Address(protocol, host, unquote(path), low)


def query_of(uri: str) -> str:
    return urlsplit(uri).query if "://" in uri else ""


def server_bindings(protocol: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """MQTT: clean session/start, session expiry, the will's topic."""
    pmap = lookup(protocol)
    if pmap.binding != "mqtt":
        return {}
    mqtt: dict[str, Any] = {}
    clean = options.get("cleansession", options.get("cleanstart"))
    if isinstance(clean, bool):
        mqtt["cleanSession"] = clean
    expiry = options.get("sessionexpiryinterval")
    if isinstance(expiry, int) and not isinstance(expiry, bool) and expiry >= 0:
        mqtt["sessionExpiryInterval"] = expiry
    will = options.get("willtopic")
    if isinstance(will, str):
        mqtt["lastWill"] = {"topic": will}
    if not mqtt:
        return {}
    mqtt["bindingVersion"] = MQTT_BINDING
    return {"mqtt": mqtt}


# --------------------------------------------------------------------------- operations


def _const(value: Any) -> dict[str, Any]:
    """A schema for a declared value: a constant, or a string shaped by its template."""
    if isinstance(value, str) and "{" in value:
        return {"type": "string", "description": f"URI template: {value}"}
    if isinstance(value, bool):
        return {"type": "boolean", "const": value}
    if isinstance(value, int):
        return {"type": "integer", "const": value}
    return {"type": "string", "const": str(value)}


def _common(values: Sequence[Any]) -> Any:
    """The one value every message declares, else None."""
    first = values[0] if values else None
    return first if first is not None and all(v == first for v in values) else None


def _option(message: ir.Message, path: tuple[str, ...]) -> Any:
    for o in message.options:
        if o.path == path:
            return o.value
    return None


def operation_bindings(
    protocol: str | None,
    action: str,
    options: Mapping[str, Any],
    messages: Sequence[ir.Message],
) -> dict[str, Any]:
    """Kafka: the consumer group; MQTT: QoS and retain; NATS: the queue group; HTTP: the
    method and the query. Endpoint options first; without an endpoint, the value every
    message of the operation declares."""
    pmap = lookup(protocol)

    def pick(option: str, path: tuple[str, ...]) -> Any:
        if option in options:
            return options[option]
        return _common([_option(m, path) for m in messages])

    if pmap.binding == "kafka":
        group = options.get("consumergroup") if action == "receive" else None
        if isinstance(group, str):
            return {"kafka": {"groupId": _const(group), "bindingVersion": KAFKA_BINDING}}
    elif pmap.binding == "mqtt":
        mqtt: dict[str, Any] = {}
        qos = pick("qos", ("qos",))
        if qos in (0, 1, 2) and not isinstance(qos, bool):
            mqtt["qos"] = qos
        retain = pick("retain", ("retain",)) if action == "send" else None
        if isinstance(retain, bool):
            mqtt["retain"] = retain
        expiry = _common([_option(m, ("message_expiry_interval",)) for m in messages])
        if isinstance(expiry, int) and not isinstance(expiry, bool) and 0 <= expiry < 2**32:
            mqtt["messageExpiryInterval"] = expiry
        if mqtt:
            mqtt["bindingVersion"] = MQTT_BINDING
            return {"mqtt": mqtt}
    elif pmap.binding == "nats":
        queue = options.get("queuegroup") if action == "receive" else None
        if isinstance(queue, str) and len(queue) <= 255:
            return {"nats": {"queue": queue, "bindingVersion": NATS_BINDING}}
    elif pmap.binding == "http":
        return _http_operation(options, messages)
    return {}


_HTTP_METHODS = (
    "GET",
    "PUT",
    "POST",
    "PATCH",
    "DELETE",
    "HEAD",
    "OPTIONS",
    "CONNECT",
    "TRACE",
)


def _http_operation(options: Mapping[str, Any], messages: Sequence[ir.Message]) -> dict[str, Any]:
    http: dict[str, Any] = {}
    method = options.get("method")
    if method is None:
        method = _common([_option(m, ("method",)) for m in messages])
    if isinstance(method, str) and method.upper() in _HTTP_METHODS:
        http["method"] = method.upper()
    query: dict[str, Any] = {}
    declared = options.get("query")
    if isinstance(declared, Mapping):
        query.update({str(k): v for k, v in declared.items()})
    shared = _shared_entries(messages, "query")
    for name, value in shared.items():
        query.setdefault(name, value)
    if query:
        http["query"] = {
            "type": "object",
            "properties": {name: _const(value) for name, value in query.items()},
            "required": list(query),
        }
    if not http:
        return {}
    http["bindingVersion"] = HTTP_BINDING
    return {"http": http}


def _shared_entries(messages: Sequence[ir.Message], head: str) -> dict[str, Any]:
    """The ``head`` entries (name -> value) every message declares alike."""
    per = [
        {o.path[1]: o.value for o in m.options if len(o.path) == 2 and o.path[0] == head}
        for m in messages
    ]
    if not per:
        return {}
    return {k: v for k, v in per[0].items() if all(p.get(k) == v for p in per[1:])}


# --------------------------------------------------------------------------- messages


def header_entries(protocol: str | None, message: ir.Message) -> dict[str, Any]:
    """The message's own protocol headers (Kafka and NATS headers, MQTT 5 user properties,
    AMQP application properties, Pulsar and RocketMQ properties): name -> value or template.
    """
    fields = lookup(protocol).header_fields
    return {o.path[1]: o.value for o in message.options if len(o.path) == 2 and o.path[0] in fields}


def message_bindings(
    protocol: str | None, message: ir.Message, content_type: str | None
) -> dict[str, Any]:
    """Kafka: the record key; MQTT 5: content type, response topic, payload format indicator;
    HTTP: the response status."""
    pmap = lookup(protocol)
    if pmap.binding == "kafka":
        key = _option(message, ("key",))
        if key is not None:
            return {"kafka": {"key": _const(key), "bindingVersion": KAFKA_BINDING}}
    elif pmap.binding == "mqtt" and protocol == "MQTT/5.0":
        mqtt: dict[str, Any] = {}
        if content_type:
            mqtt["contentType"] = content_type
        response = _option(message, ("response_topic",))
        if isinstance(response, str) and response:
            mqtt["responseTopic"] = response
        indicator = _option(message, ("payload_format_indicator",))
        if indicator in (0, 1) and not isinstance(indicator, bool):
            mqtt["payloadFormatIndicator"] = indicator
        if mqtt:
            mqtt["bindingVersion"] = MQTT_BINDING
            return {"mqtt": mqtt}
    elif pmap.binding == "http":
        status = _option(message, ("status",))
        if isinstance(status, str) and status.isdigit():
            status = int(status)
        if isinstance(status, int) and not isinstance(status, bool):
            return {"http": {"statusCode": status, "bindingVersion": HTTP_BINDING}}
    return {}


# --------------------------------------------------------------------------- security

_SASL = {
    "PLAIN": "plain",
    "SCRAM-SHA-256": "scramSha256",
    "SCRAM-SHA-512": "scramSha512",
    "GSSAPI": "gssapi",
    "EXTERNAL": "X509",
}


def security_scheme(
    auth: ir.Authorization, protocol: str | None, options: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The AsyncAPI security scheme of an ``authorization`` entry, or None (SASL
    ``ANONYMOUS``, an unknown type: the entry stays in ``x-xregistry-endpoint``)."""
    kind = (auth.type or "").lower()
    mech = (auth.mechanism or "").upper()
    http = protocol == "HTTP"
    scheme: dict[str, Any] | None = None
    if kind == "plain":
        plain = str(options.get("plainscheme") or "basic").lower()
        scheme = (
            {"type": "http", "scheme": "basic"}
            if http and plain == "basic"
            else {"type": "userPassword"}
        )
    elif kind == "apikey":
        if http:
            where = str(options.get("apikeyin") or "header").lower()
            scheme = {
                "type": "httpApiKey",
                "name": str(options.get("apikeyname") or "X-API-Key"),
                "in": "query" if where == "query" else "header",
            }
        else:
            scheme = {"type": "apiKey", "in": "password"}
    elif kind == "x509cert":
        scheme = {"type": "X509"}
    elif kind == "oauth2" or (kind == "sasl" and mech == "OAUTHBEARER"):
        if auth.authorityuri:
            flow = {"tokenUrl": auth.authorityuri, "availableScopes": {}}
            scheme = {"type": "oauth2", "flows": {"clientCredentials": flow}}
        else:
            scheme = {"type": "http", "scheme": "bearer"}
    elif kind == "sasl" and mech in _SASL:
        scheme = {"type": _SASL[mech]}
    if scheme is None:
        return None
    described = [
        f"xRegistry authorization {auth.type}" + (f" {auth.mechanism}" if auth.mechanism else "")
    ]
    if auth.resourceuri:
        described.append(f"resource: {auth.resourceuri}")
    if auth.authorityuri:
        described.append(f"authority: {auth.authorityuri}")
    scheme["description"] = "; ".join(described)
    return scheme
