"""One in-memory broker per protocol binding, with that protocol's routing rules."""

from __future__ import annotations

import dataclasses
import re
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from ..adapters._sender import AsyncSender, Sender
from ..bindings import (
    BINDINGS,
    AmqpMessage,
    HttpMessage,
    KafkaMessage,
    MqttMessage,
    NatsMessage,
    PulsarMessage,
    RocketMqMessage,
)
from . import _routing
from ._broker import Delivery, Handler, InMemoryBroker, Subscription, _settle

__all__ = [
    "AmqpBroker",
    "Brokers",
    "HttpBroker",
    "KafkaBroker",
    "MqttBroker",
    "NatsBroker",
    "PulsarBroker",
    "RocketMqBroker",
]


class KafkaBroker(InMemoryBroker[KafkaMessage]):
    """Kafka: topics by exact name, or a regex subscription starting with ``^``.

    Topic names are checked as Kafka does. Each topic has ``partitions`` partitions (default
    1; a mapping gives them per topic); a record without a partition is assigned one as
    confluent-kafka's default partitioner does (CRC32 of the key; keyless records in turn)
    and subscribers see that partition; a partition out of range is refused. Subscriptions
    with the same ``group`` form a consumer group: each partition is consumed by one member
    (partition number modulo the number of members).
    """

    codec = "kafka"

    def __init__(self, partitions: int | Mapping[str, int] = 1) -> None:
        super().__init__()
        self._partitions = partitions
        self._keyless = 0

    def partitions(self, topic: str) -> int:
        """The number of partitions of ``topic``."""
        if isinstance(self._partitions, int):
            return self._partitions
        return self._partitions.get(topic, 1)

    def _destination(self, message: KafkaMessage) -> str:
        topic = _routing.kafka_topic(message.topic)
        count = self.partitions(topic)
        if message.partition is not None and not 0 <= message.partition < count:
            raise ValueError(
                f"partition {message.partition} of topic {topic!r} does not exist "
                f"(it has {count})"
            )
        return topic

    def _placed(self, destination: str, message: KafkaMessage) -> KafkaMessage:
        if message.partition is not None:
            return message
        count = self.partitions(destination)
        if message.key is not None:
            partition = zlib.crc32(message.key) % count
        else:
            partition = self._keyless % count
            self._keyless += 1
        return dataclasses.replace(message, partition=partition)

    def _member(
        self,
        members: list[Subscription[KafkaMessage]],
        group: str,
        message: KafkaMessage,
    ) -> Subscription[KafkaMessage]:
        return members[(message.partition or 0) % len(members)]

    def subscribe(
        self,
        pattern: str,
        handler: Handler[KafkaMessage],
        *,
        group: str | None = None,
    ) -> Subscription[KafkaMessage]:
        """``pattern``: a topic, or a regular expression over topic names starting with ``^``;
        ``group``: the consumer group."""
        match = self._by_name(_routing.kafka_matcher(pattern))
        return self._add(pattern, handler, match, group)


class AmqpBroker(InMemoryBroker[AmqpMessage]):
    """AMQP 1.0: link target addresses by exact name (``AmqpMessage.address``, else its
    ``to`` property; a message with neither is refused). Every subscription of an address
    gets a copy; subscriptions with the same ``group`` are competing consumers of one queue
    (round robin)."""

    codec = "amqp"

    def _destination(self, message: AmqpMessage) -> str:
        address = message.address or message.properties.get("to")
        if not isinstance(address, str) or not address:
            raise ValueError(
                "AMQP message without an address: set AmqpMessage.address or its 'to' "
                "property (encode(..., address=...))"
            )
        return address

    def subscribe(
        self,
        pattern: str,
        handler: Handler[AmqpMessage],
        *,
        group: str | None = None,
    ) -> Subscription[AmqpMessage]:
        """``pattern``: the address (exact)."""
        if not pattern:
            raise ValueError("AMQP subscription without an address")
        return self._add(pattern, handler, self._by_name(pattern.__eq__), group)


_MQTT5_ONLY = {
    "content_type": None,
    "user_properties": (),
    "response_topic": None,
    "correlation_data": None,
    "message_expiry_interval": None,
    "payload_format_indicator": None,
}


class MqttBroker(InMemoryBroker[MqttMessage]):
    """MQTT 5.0 and 3.1.1: topic filters with ``+`` (one level) and ``#`` (the rest, and the
    parent level); topics starting with ``$`` are not matched by leading wildcards; shared
    subscriptions ``$share/<name>/<filter>`` (or ``group=``) deliver to one member.

    A subscriber gets QoS ``min(published, subscribed)``; with ``version="3.1.1"`` it gets
    the message without the MQTT 5 properties (user properties, content type, ...), as a
    3.1.1 client would. Retained messages are kept per topic (an empty retained payload
    deletes) and delivered, with ``retain`` set, to each new non-shared subscription that
    matches; live deliveries carry ``retain=False``.
    """

    codec = "mqtt"

    def __init__(self) -> None:
        super().__init__()
        #: the retained message of each topic
        self.retained: dict[str, MqttMessage] = {}

    def _destination(self, message: MqttMessage) -> str:
        if message.version not in ("5.0", "3.1.1"):
            raise ValueError(f"MQTT version {message.version!r}: '5.0' or '3.1.1'")
        if message.qos not in (0, 1, 2):
            raise ValueError(f"MQTT QoS {message.qos!r}: 0, 1 or 2")
        return _routing.mqtt_topic(message.topic)

    def _placed(self, destination: str, message: MqttMessage) -> MqttMessage:
        if message.retain:
            if message.payload:
                self.retained[destination] = message
            else:
                self.retained.pop(destination, None)
        return message

    def _copy_for(
        self, subscription: Subscription[MqttMessage], message: MqttMessage
    ) -> MqttMessage:
        return self._shaped(subscription, message, retain=False)

    @staticmethod
    def _shaped(
        subscription: Subscription[MqttMessage], message: MqttMessage, retain: bool
    ) -> MqttMessage:
        changes: dict[str, Any] = {
            "retain": retain,
            "qos": min(message.qos, subscription.options["qos"]),
        }
        version = subscription.options["version"]
        if version is not None and version != message.version:
            changes["version"] = version
            if version == "3.1.1":
                changes.update(_MQTT5_ONLY)
        return dataclasses.replace(message, **changes)

    def subscribe(
        self,
        pattern: str,
        handler: Handler[MqttMessage],
        *,
        group: str | None = None,
        qos: int = 2,
        version: str | None = None,
    ) -> Subscription[MqttMessage]:
        """``pattern``: a topic filter or ``$share/<name>/<filter>``; ``qos``: the
        subscription's maximum QoS; ``version``: the subscriber's protocol version
        (``None``: the publisher's)."""
        topic_filter, share = _routing.mqtt_filter(pattern)
        if share is not None and group is not None and share != group:
            raise ValueError(f"{pattern!r} is shared as {share!r}, not {group!r}")
        if version not in (None, "5.0", "3.1.1"):
            raise ValueError(f"MQTT version {version!r}: '5.0' or '3.1.1'")

        def match(topic: str, _message: MqttMessage) -> bool:
            return _routing.mqtt_matches(topic_filter, topic)

        sub = self._add(
            pattern, handler, match, share or group, qos=qos, version=version
        )
        if sub.group is None:
            for topic, message in list(self.retained.items()):
                if _routing.mqtt_matches(topic_filter, topic):
                    copy = self._shaped(sub, message, retain=True)
                    sub.received.append(copy)
                    _settle(handler(copy))
        return sub


class NatsBroker(InMemoryBroker[NatsMessage]):
    """NATS: subjects of ``.``-separated tokens; subscriptions with ``*`` (one token) and
    ``>`` (one or more, last); subscriptions with the same ``group`` form a queue group
    (one member gets each message, round robin). Publishing to a wildcard is refused."""

    codec = "nats"

    def _destination(self, message: NatsMessage) -> str:
        return _routing.nats_subject(message.subject)

    def subscribe(
        self,
        pattern: str,
        handler: Handler[NatsMessage],
        *,
        group: str | None = None,
    ) -> Subscription[NatsMessage]:
        """``pattern``: a subject, with wildcards; ``group``: the queue group."""
        match = self._by_name(_routing.nats_matcher(pattern))
        return self._add(pattern, handler, match, group)


class HttpBroker(InMemoryBroker[HttpMessage]):
    """HTTP: each request goes to ONE route, the first (in subscription order) whose path
    matches (a ``{name}`` in a route is one path segment; the query is ignored) and whose
    ``method`` matches (``None``: any). A request without a route is recorded in
    ``unrouted``; :meth:`request` answers it 404 (405 when only the method differs).
    """

    codec = "http"

    def _destination(self, message: HttpMessage) -> str:
        if not message.method or not message.method.isalpha():
            raise ValueError(f"illegal HTTP method {message.method!r}")
        return _routing.http_path(message.path)

    def _selected(
        self, destination: str, message: HttpMessage
    ) -> list[Subscription[HttpMessage]]:
        for sub in self._subscriptions:
            if sub.matches(destination, message):
                return [sub]
        return []

    def subscribe(
        self,
        pattern: str,
        handler: Handler[HttpMessage],
        *,
        group: str | None = None,
        method: str | None = None,
    ) -> Subscription[HttpMessage]:
        """``pattern``: the route path (``/orders/{id}``); ``method``: ``POST``, ... or
        ``None`` for any. ``group`` is not an HTTP notion and must stay ``None``."""
        if group is not None:
            raise ValueError("HTTP routes have no groups")
        path = _routing.http_matcher(pattern)
        wanted = method.upper() if method is not None else None

        def match(destination: str, message: HttpMessage) -> bool:
            return path(destination) and (
                wanted is None or message.method.upper() == wanted
            )

        return self._add(pattern, handler, match, None, method=wanted, path=path)

    def _response(self, delivery: Delivery[HttpMessage]) -> HttpMessage:
        """The answer of an ``AsgiReceiver`` for what the route's handler returned."""
        request = delivery.message
        status, body = 202, b""
        headers: tuple[tuple[str, str], ...] = ()
        if not delivery.routed:
            status = 404
            for sub in self._subscriptions:
                if sub.options["path"](delivery.destination):
                    status = 405
        else:
            result = delivery.results[0]
            if isinstance(result, HttpMessage):
                status = result.status if result.status is not None else 200
                headers, body = result.headers, result.body
            elif isinstance(result, int) and not isinstance(result, bool):
                status = result
        return HttpMessage(request.method, request.path, headers, body, status)

    def request(self, message: HttpMessage) -> HttpMessage:
        """Publish the request and return the response as ``HttpSender.send`` would: the
        ``HttpMessage`` the handler returned (status 200 unless set), the status it returned
        (an ``int``), else 202; 404/405 without a route."""
        return self._response(self.publish(message))

    async def request_async(self, message: HttpMessage) -> HttpMessage:
        """:meth:`request` through :meth:`publish_async`."""
        return self._response(await self.publish_async(message))

    def sender(self) -> HttpBrokerSender:  # type: ignore[override]
        """A sender shaped like ``HttpSender``: ``send(request)`` returns the response."""
        return HttpBrokerSender(self)

    def async_sender(self) -> AsyncHttpBrokerSender:  # type: ignore[override]
        """A sender shaped like ``AsyncHttpSender``."""
        return AsyncHttpBrokerSender(self)


class HttpBrokerSender(Sender):
    """``send(request) -> response``, like ``HttpSender``."""

    __slots__ = ("broker",)

    def __init__(self, broker: HttpBroker) -> None:
        self.broker = broker

    def send(self, msg: HttpMessage) -> HttpMessage:
        return self.broker.request(msg)


class AsyncHttpBrokerSender(AsyncSender):
    """``await send(request) -> response``, like ``AsyncHttpSender``."""

    __slots__ = ("broker",)

    def __init__(self, broker: HttpBroker) -> None:
        self.broker = broker

    async def send(self, msg: HttpMessage) -> HttpMessage:
        return await self.broker.request_async(msg)


class PulsarBroker(InMemoryBroker[PulsarMessage]):
    """Pulsar: topics by full name (``t`` is ``persistent://public/default/t``, as the
    client resolves it), or a compiled regex over full names; subscriptions with the same
    ``group`` (subscription name) share the messages (Shared, round robin)."""

    codec = "pulsar"

    def _destination(self, message: PulsarMessage) -> str:
        return _routing.pulsar_topic(message.topic)

    def _normalize(self, destination: str) -> str:
        return _routing.pulsar_topic(destination)

    def subscribe(
        self,
        pattern: str | re.Pattern[str],
        handler: Handler[PulsarMessage],
        *,
        group: str | None = None,
    ) -> Subscription[PulsarMessage]:
        """``pattern``: a topic name or a compiled ``re`` pattern; ``group``: the
        subscription name of a Shared subscription."""
        match = self._by_name(_routing.pulsar_matcher(pattern))
        return self._add(pattern, handler, match, group)


class RocketMqBroker(InMemoryBroker[RocketMqMessage]):
    """RocketMQ: topics by exact name, filtered by a tag expression (``*`` or
    ``TagA || TagB``; a message without a tag only passes ``*``); subscriptions with the
    same ``group`` are one consumer group in clustering mode (one member per message).
    """

    codec = "rocketmq"

    def _destination(self, message: RocketMqMessage) -> str:
        return _routing.rocketmq_topic(message.topic)

    def subscribe(
        self,
        pattern: str,
        handler: Handler[RocketMqMessage],
        *,
        group: str | None = None,
        tags: str = "*",
    ) -> Subscription[RocketMqMessage]:
        """``pattern``: the topic; ``tags``: the tag filter expression."""
        topic = _routing.rocketmq_topic(pattern)
        wanted = _routing.rocketmq_tags(tags)

        def match(destination: str, message: RocketMqMessage) -> bool:
            return destination == topic and (wanted is None or message.tag in wanted)

        return self._add(pattern, handler, match, group, tags=tags)


#: a definition's ``protocol`` -> the attribute of :class:`Brokers` that carries it (the name
#: of the protocol's binding)
PROTOCOLS = {p: b.name for b in BINDINGS.values() for p in b.protocols}


class Brokers:
    """One in-memory broker per binding, the attribute named like the binding
    (``brokers.kafka``; also ``brokers["kafka"]``); ``Brokers(kafka=broker)`` uses that
    broker, and a fresh one of each binding not given."""

    kafka: KafkaBroker
    amqp: AmqpBroker
    mqtt: MqttBroker
    nats: NatsBroker
    http: HttpBroker
    pulsar: PulsarBroker
    rocketmq: RocketMqBroker

    def __init__(self, **given: InMemoryBroker[Any]) -> None:
        unknown = sorted(set(given) - set(BINDINGS))
        if unknown:
            raise TypeError(f"no binding named {', '.join(unknown)}")
        for name, spec in BINDINGS.items():
            broker = given.get(name)
            setattr(self, name, spec.part(spec.broker)() if broker is None else broker)

    def __getitem__(self, name: str) -> InMemoryBroker[Any]:
        """The broker of the binding ``name``."""
        if name not in BINDINGS:
            raise KeyError(name)
        broker: InMemoryBroker[Any] = getattr(self, name)
        return broker

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={self[name]!r}" for name in BINDINGS)
        return f"Brokers({inner})"

    def for_protocol(self, protocol: str | None) -> InMemoryBroker[Any]:
        """The broker of a message definition's ``protocol`` (``MessageDef.protocol``:
        ``"KAFKA"``, ``"MQTT/5.0"``, ...); ``KeyError`` for ``None`` (no protocol: any).
        """
        if protocol is None:
            raise KeyError("a definition without a protocol travels over any binding")
        return self[PROTOCOLS[protocol]]

    def __iter__(self) -> Iterator[InMemoryBroker[Any]]:
        for name in BINDINGS:
            yield self[name]
