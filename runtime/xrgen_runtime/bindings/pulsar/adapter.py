"""Apache Pulsar adapter (pulsar-client): ``PulsarSender`` and ``PulsarReceiver`` move
``PulsarMessage``.

The sender keeps one producer per topic (``block_if_queue_full``) and sends asynchronously:
``send`` returns a future resolved with the ``MessageId`` when the broker persisted the
message. The receiver acknowledges a message after the handler returned and negatively
acknowledges it (redelivery after ``negative_ack_redelivery_delay_ms``) when the handler raised.
An empty partition key and a zero event time mean "not set" in Pulsar and become ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from typing import Any

import pulsar as pulsar_client  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ...adapters._future import SendFuture
from ...adapters._loop import PollingReceiver
from ...adapters._sender import Pending, Receipt, Sender, SendError
from .spec import PulsarMessage

__all__ = ["PulsarSendError", "PulsarReceiver", "PulsarSender", "from_pulsar"]


class PulsarSendError(SendError):
    """The client or broker failed to persist a message."""


def from_pulsar(message: Any) -> PulsarMessage:
    """A ``PulsarMessage`` from a pulsar-client ``Message``."""
    return PulsarMessage(
        topic=message.topic_name(),
        payload=message.data(),
        properties=dict(message.properties()),
        partition_key=message.partition_key() or None,
        event_time=message.event_timestamp() or None,
    )


class PulsarSender(Sender):
    """Send ``PulsarMessage`` values; ``producer_options`` go to ``create_producer``."""

    __slots__ = ("_client", "_producers", "_options", "_pending")

    def __init__(
        self,
        service_url: str,
        *,
        client_options: Mapping[str, Any] | None = None,
        producer_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._client: Any = pulsar_client.Client(service_url, **(client_options or {}))
        self._producers: dict[str, Any] = {}
        self._options = {"block_if_queue_full": True, **(producer_options or {})}
        self._pending = Pending()

    def _producer(self, topic: str) -> Any:
        producer = self._producers.get(topic)
        if producer is None:
            producer = self._producers[topic] = self._client.create_producer(
                topic, **self._options
            )
        return producer

    def send(self, msg: PulsarMessage) -> Future[Receipt]:
        """Send ``msg`` asynchronously; the future resolves with its ``Receipt`` (``native``:
        the ``MessageId``)."""
        future: Future[Receipt] = SendFuture()

        def done(result: Any, message_id: Any) -> None:
            if result == pulsar_client.Result.Ok:
                future.set_result(Receipt(msg.topic, native=message_id))
            else:
                future.set_exception(PulsarSendError(f"{msg.topic}: {result}"))

        self._producer(msg.topic).send_async(
            msg.payload,
            done,
            properties=dict(msg.properties) if msg.properties else None,
            partition_key=msg.partition_key,
            event_timestamp=msg.event_time,
        )
        self._pending.add(future)
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every message sent so far is persisted; raise the first failure."""
        for producer in self._producers.values():
            producer.flush()
        self._pending.wait(timeout)

    def _release(self) -> None:
        """Close the producers and the client."""
        self._client.close()


class PulsarReceiver(PollingReceiver[Any, PulsarMessage]):
    """Subscribe to ``topics`` with the durable ``subscription`` (shared by default)."""

    __slots__ = ("_client", "_consumer")

    def __init__(
        self,
        service_url: str,
        topics: str | Iterable[str],
        subscription: str,
        *,
        client_options: Mapping[str, Any] | None = None,
        **consumer_options: Any,
    ) -> None:
        consumer_options.setdefault("consumer_type", pulsar_client.ConsumerType.Shared)
        consumer_options.setdefault(
            "initial_position", pulsar_client.InitialPosition.Earliest
        )
        self._client: Any = pulsar_client.Client(service_url, **(client_options or {}))
        self._consumer: Any = self._client.subscribe(
            topics if isinstance(topics, str) else list(topics),
            subscription,
            **consumer_options,
        )

    def _poll(self, timeout: float) -> Any:
        try:
            return self._consumer.receive(max(1, int(timeout * 1000)))
        except pulsar_client.Timeout:
            return None

    def _convert(self, raw: Any) -> PulsarMessage:
        return from_pulsar(raw)

    def _ack(self, raw: Any) -> None:
        self._consumer.acknowledge(raw)

    def _nack(self, raw: Any) -> None:
        self._consumer.negative_acknowledge(raw)

    def close(self) -> None:
        """Close the consumer and the client (unacknowledged messages are redelivered)."""
        self._client.close()
