"""Apache RocketMQ adapter (rocketmq-python-client v5, gRPC proxy protocol).

``to_rocketmq_message`` / ``from_rocketmq_message`` convert between ``RocketMqMessage`` and the
client's ``rocketmq.Message``; ``RocketMqSender`` wraps ``rocketmq.Producer`` (``send`` returns
a future resolved with the ``SendReceipt``); ``RocketMqReceiver`` wraps ``SimpleConsumer``
(received messages stay invisible for ``invisible_duration`` seconds and are acknowledged
after the handler returned; one whose handler raised becomes visible again and is redelivered).

RocketMQ itself refuses an empty body and blank property values, and keeps message keys as a
set: ``to_rocketmq_message`` raises ``ValueError`` for the former, and received keys come back
sorted.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any

import rocketmq as rocketmq_client  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ...adapters._loop import PollingReceiver
from ...adapters._sender import Pending, Sender
from .spec import RocketMqMessage

__all__ = [
    "RocketMqReceiver",
    "RocketMqSender",
    "from_rocketmq_message",
    "to_rocketmq_message",
]


def to_rocketmq_message(msg: RocketMqMessage) -> Any:
    """A ``rocketmq.Message`` with the topic, body, tag, keys and user properties of ``msg``."""
    if not msg.body:
        raise ValueError("RocketMQ refuses messages with an empty body")
    out = rocketmq_client.Message()
    out.topic = msg.topic
    out.body = msg.body
    if msg.tag is not None:
        out.tag = msg.tag
    for key in msg.keys:
        out.keys = key  # the client's setter adds one key per assignment
    for name, value in msg.properties.items():
        if not value.strip():
            raise ValueError(f"RocketMQ refuses the blank property value of {name!r}")
        out.add_property(name, value)
    return out


def from_rocketmq_message(message: Any) -> RocketMqMessage:
    """A ``RocketMqMessage`` from a received ``rocketmq.Message``."""
    return RocketMqMessage(
        topic=message.topic,
        body=bytes(message.body),
        properties=dict(message.properties),
        tag=message.tag or None,
        keys=tuple(sorted(message.keys)),
    )


def _configuration(endpoints: str, access_key: str, secret_key: str) -> Any:
    return rocketmq_client.ClientConfiguration(
        endpoints, rocketmq_client.Credentials(access_key, secret_key)
    )


class RocketMqSender(Sender):
    """Send ``RocketMqMessage`` values through a started ``rocketmq.Producer``."""

    __slots__ = ("_producer", "_pending")

    def __init__(
        self,
        endpoints: str,
        topics: Iterable[str] = (),
        *,
        access_key: str = "",
        secret_key: str = "",
    ) -> None:
        config = _configuration(endpoints, access_key, secret_key)
        self._producer: Any = rocketmq_client.Producer(config, tuple(topics))
        self._producer.startup()
        self._pending = Pending()

    def send(self, msg: RocketMqMessage) -> Future[Any]:
        """Send ``msg`` asynchronously; the future resolves with the ``SendReceipt``."""
        future: Future[Any] = self._producer.send_async(to_rocketmq_message(msg))
        self._pending.add(future)
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait for every message sent so far; raise the first failure."""
        self._pending.wait(timeout)

    def _release(self) -> None:
        """Shut the producer down."""
        self._producer.shutdown()


class RocketMqReceiver(PollingReceiver[Any, RocketMqMessage]):
    """Receive ``topics`` as consumer ``group`` with a ``rocketmq.SimpleConsumer``."""

    __slots__ = ("_consumer", "_batch", "_invisible", "_buffer")

    def __init__(
        self,
        endpoints: str,
        group: str,
        topics: Iterable[str],
        *,
        access_key: str = "",
        secret_key: str = "",
        batch: int = 32,
        invisible_duration: int = 30,
        await_duration: int = 5,
    ) -> None:
        config = _configuration(endpoints, access_key, secret_key)
        subscription = {t: rocketmq_client.FilterExpression() for t in topics}
        self._consumer: Any = rocketmq_client.SimpleConsumer(
            config, group, subscription, await_duration=await_duration
        )
        self._consumer.startup()
        self._batch = batch
        self._invisible = invisible_duration
        self._buffer: deque[Any] = deque()

    def _poll(self, timeout: float) -> Any:
        if not self._buffer:
            self._buffer.extend(self._consumer.receive(self._batch, self._invisible))
        return self._buffer.popleft() if self._buffer else None

    def _convert(self, raw: Any) -> RocketMqMessage:
        return from_rocketmq_message(raw)

    def _ack(self, raw: Any) -> None:
        self._consumer.ack(raw)

    def close(self) -> None:
        """Shut the consumer down (unacknowledged messages become visible again)."""
        self._consumer.shutdown()
