"""Kafka adapter (confluent-kafka): ``KafkaSender`` and ``KafkaReceiver`` move ``KafkaMessage``.

The sender never flushes per message: ``send`` enqueues and returns a future resolved by the
delivery report; ``send`` serves the reports due (``poll(0)``) and a background thread serves
them while nothing is sent, so futures resolve without the caller polling, and ``flush``
waits for everything in flight. The receiver disables
automatic offset storing and stores a message's offset only after the handler returned; the
client commits stored offsets in the background and on ``close`` (at-least-once).

Both check at construction that a broker answers within ``connect_timeout`` (``ConnectFailed``
names the bootstrap servers). librdkafka reconnects by itself (with its backoff,
``reconnect.backoff.ms`` doubling to ``reconnect.backoff.max.ms``); while every broker is down
the sender refuses new messages (``NotConnected``) and messages already queued wait for the
brokers until ``message.timeout.ms``. The client's own log lines go to the logger
``xrgen_runtime.adapters.kafka`` at debug level; an outage is one warning.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, cast

import confluent_kafka  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..._event import Event
from ...adapters._connection import CONNECT_TIMEOUT, ConnectFailed, NotConnected
from ...adapters._encoding import Encoder, encoder_or_refusal
from ...adapters._future import SendFuture
from ...adapters._loop import PollingReceiver
from ...adapters._sender import Receipt, Sender, SendError
from .._common import builder
from .codec import new_kafka_message
from .spec import KafkaMessage

__all__ = [
    "ConnectFailed",
    "KafkaDelivery",
    "KafkaDeliveryError",
    "KafkaReceiver",
    "KafkaSender",
    "NotConnected",
]

_PARTITION_UA: int = -1  # librdkafka's "unassigned": let the partitioner choose
_log = logging.getLogger("xrgen_runtime.adapters.kafka")
#: seconds without a ``send`` after which the sender's thread serves delivery reports
_IDLE = 0.05
_DOWN = confluent_kafka.KafkaError._ALL_BROKERS_DOWN
_UNKNOWN_TOPIC = confluent_kafka.KafkaError.UNKNOWN_TOPIC_OR_PART
#: seconds between metadata requests of a receiver while a subscribed topic does not exist
#: (librdkafka itself looks again after ``topic.metadata.refresh.interval.ms``: 5 minutes)
_MISSING_TOPIC_CHECK = 0.5
#: records a receiver takes from the client's fetched queue in one call while a backlog waits
_BATCH = 256


class _ClientLog:
    """librdkafka's log lines, at debug level (``logger`` of the client configuration)."""

    def log(self, level: int, msg: str, *args: Any, **kwargs: Any) -> None:
        _log.debug(msg, *args)


class _Brokers:
    """Whether the brokers are reachable, from the client's error callback: one warning
    when they all go down, a note when one answers again."""

    __slots__ = ("servers", "down", "connecting", "last")

    def __init__(self, servers: str) -> None:
        self.servers = servers
        self.down = False
        #: the first check: errors are kept for ``ConnectFailed``, not logged
        self.connecting = True
        self.last = ""

    def error(self, err: Any) -> None:
        if self.connecting:
            if err.code() != _DOWN:
                self.last = err.str()
        elif err.code() == _DOWN:
            if not self.down:
                _log.warning("Kafka brokers %s unreachable; reconnecting", self.servers)
            self.down = True
        else:
            _log.debug("Kafka client: %s", err)

    def up(self) -> None:
        if self.down:
            _log.info("Kafka brokers %s answer again", self.servers)
        self.down = False


def _client_config(
    config: Mapping[str, Any], brokers: _Brokers, extra: Mapping[str, Any] = {}
) -> dict[str, Any]:
    conf = {"logger": _ClientLog(), **config, **extra}
    conf.setdefault("error_cb", brokers.error)
    return conf


def _reachable(client: Any, brokers: _Brokers, timeout: float) -> Any:
    """The cluster's metadata; ``ConnectFailed`` unless a broker answers in ``timeout``;
    from then on the error callback tracks the brokers (``_Brokers``)."""
    try:
        return client.list_topics(timeout=timeout)
    except confluent_kafka.KafkaException as exc:
        error = exc.args[0]
        reason = brokers.last or (error.str() if hasattr(error, "str") else str(error))
        raise ConnectFailed(
            "Kafka", brokers.servers, "", f"{reason} (within {timeout}s)"
        ) from None
    finally:
        brokers.connecting = False


@dataclass(frozen=True, slots=True)
class KafkaDelivery(Receipt):
    """Where the broker stored a sent message (the ``Receipt`` of ``send``;
    ``KafkaDelivery(topic, partition, offset)``)."""

    @property
    def topic(self) -> str | None:
        """The topic (``destination``)."""
        return self.destination


#: ``KafkaDelivery(topic, partition, offset, None)`` without the frozen dataclass's
#: ``__init__`` (one per message sent)
_new_delivery: Callable[..., KafkaDelivery] = builder(KafkaDelivery)


class KafkaDeliveryError(SendError):
    """The broker (or the client, after retries) refused or lost a message."""

    def __init__(self, message: KafkaMessage, error: Any) -> None:
        super().__init__(f"delivery to {message.topic!r} failed: {error}")
        self.message = message
        self.error = error


DeliveryCallback = Callable[[KafkaMessage, "KafkaDelivery | KafkaDeliveryError"], None]


class _Pending(SendFuture[KafkaDelivery]):
    """The future of one message, called with its delivery report (``on_delivery`` of
    ``produce``): one object per message in flight, not a future and a closure."""

    __slots__ = ("_sender", "_msg")

    def __init__(self, sender: KafkaSender, msg: KafkaMessage) -> None:
        super().__init__()
        self._sender = sender
        self._msg = msg

    def __call__(self, err: Any, record: Any) -> None:
        sender = self._sender
        result: KafkaDelivery | KafkaDeliveryError
        if err is not None:
            result = KafkaDeliveryError(self._msg, err)
            self.set_exception(result)
        else:
            if sender._brokers.down:
                sender._brokers.up()
            result = _new_delivery(
                record.topic(), record.partition(), record.offset(), None
            )
            self.set_result(result)
        on_delivery = sender._on_delivery
        if on_delivery is not None:
            on_delivery(self._msg, result)


class KafkaSender(Sender):
    """Produce ``KafkaMessage`` values with a confluent-kafka ``Producer``.

    ``config`` is librdkafka configuration (``bootstrap.servers``, ``acks``, ...).
    ``on_delivery`` is called once per message with its ``KafkaDelivery`` or the
    ``KafkaDeliveryError``, from the sender's background poll thread (or ``flush``).
    ``encoder`` turns what ``send`` gets other than a ``KafkaMessage`` (a typed event) into
    one (an endpoint's sender sets it).
    """

    __slots__ = (
        "_producer",
        "_on_delivery",
        "_closed",
        "_poller",
        "_encode",
        "_brokers",
        "_produce",
        "_sending",
    )

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        on_delivery: DeliveryCallback | None = None,
        encoder: Encoder | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self._brokers = _Brokers(str(config.get("bootstrap.servers", "")))
        self._producer: Any = confluent_kafka.Producer(
            _client_config(config, self._brokers)
        )
        self._produce = self._producer.produce
        _reachable(self._producer, self._brokers, connect_timeout)
        self._on_delivery = on_delivery
        self._encode = encoder_or_refusal(encoder, KafkaMessage, "KafkaSender")
        self._closed = threading.Event()
        #: when ``send`` last ran (it serves delivery reports itself meanwhile)
        self._sending = 0.0
        self._poller = threading.Thread(
            target=self._poll_loop, name="xrgen-kafka-poll", daemon=True
        )
        self._poller.start()

    def _poll_loop(self) -> None:
        """Serve delivery reports while nothing is being sent (``send`` serves them as it
        goes: one thread takes the GIL for them, not two in turn)."""
        while not self._closed.is_set():
            if time.monotonic() - self._sending < _IDLE:
                self._closed.wait(_IDLE)
                continue
            self._producer.poll(_IDLE)
            if self._brokers.down:  # ask until a broker answers
                try:
                    self._producer.list_topics(timeout=1.0)
                except confluent_kafka.KafkaException:
                    continue
                self._brokers.up()

    def send(self, msg: KafkaMessage | Event[Any]) -> Future[KafkaDelivery]:
        """Enqueue ``msg`` (an event is encoded first); the future resolves when the broker
        acknowledged it."""
        if msg.__class__ is not KafkaMessage:
            msg = self._encode(msg)
        msg = cast(KafkaMessage, msg)
        if self._brokers.down:
            raise NotConnected(
                f"Kafka brokers {self._brokers.servers} unreachable (reconnecting); not sent"
            )
        future = _Pending(self, msg)  # the future is the delivery callback
        partition = _PARTITION_UA if msg.partition is None else msg.partition
        produce, poll = self._produce, self._producer.poll
        self._sending = time.monotonic()
        while True:
            try:
                produce(
                    msg.topic,
                    value=msg.value,
                    key=msg.key,
                    headers=list(msg.headers) if msg.headers else None,
                    partition=partition,
                    on_delivery=future,
                )
                break
            except BufferError:  # local queue full: serve deliveries, then retry
                poll(0.01)
        poll(0)  # the delivery reports due by now
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every enqueued message is delivered or failed.

        Raises ``TimeoutError`` when messages are still in flight after ``timeout`` seconds.
        """
        remaining = self._producer.flush(timeout)
        if remaining:
            raise TimeoutError(f"{remaining} Kafka message(s) still in flight")

    def _release(self) -> None:
        """Stop the poll thread; the producer is released with the sender."""
        self._closed.set()
        self._poller.join()


class KafkaReceiver(PollingReceiver[Any, KafkaMessage]):
    """Consume ``topics`` with a confluent-kafka ``Consumer`` (``group.id`` required).

    Offsets are stored only after the handler returned (``enable.auto.offset.store`` is
    forced off) and committed by the client (auto-commit interval), when ``run`` returns and
    on ``close``; with ``enable.auto.commit`` false each message's offset is committed
    synchronously after its handler. ``partitions`` assigns those partitions of the topics
    (explicit selection, starting at the group's committed offsets) instead of joining the
    group's assignment. Records the client has already fetched are taken up to ``_BATCH`` at a
    time (``consume``), one blocking ``poll`` waits when there are none; records taken but not
    yet handed to the loop are dropped when their partition is sought back or revoked (the
    client fetches them again). A subscribed topic that does not exist yet (the first send creates
    it) is looked up every half second until it does, and the group then consumes it from
    the offset ``auto.offset.reset`` gives a new group. Non-fatal client errors go to
    ``on_error`` (default: ignored, librdkafka recovers); fatal ones raise
    ``confluent_kafka.KafkaException``.
    """

    __slots__ = (
        "_consumer",
        "_on_error",
        "_manual",
        "_stored",
        "_rewound",
        "_missing",
        "_look_again",
        "_taken",
        "_store",
    )

    def __init__(
        self,
        config: Mapping[str, Any],
        topics: Iterable[str],
        *,
        partitions: Iterable[int] | None = None,
        on_error: Callable[[Any], None] | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        brokers = _Brokers(str(config.get("bootstrap.servers", "")))
        conf = _client_config(
            {"enable.auto.commit": True, **config},
            brokers,
            {"enable.auto.offset.store": False},
        )
        self._manual = str(conf["enable.auto.commit"]).lower() in ("false", "0")
        self._stored = False
        #: (topic, partition) -> the offset the position was set back to (until it is handled)
        self._rewound: dict[tuple[str, int], int] = {}
        self._consumer: Any = confluent_kafka.Consumer(conf)
        self._store = self._consumer.store_offsets
        try:
            cluster = _reachable(self._consumer, brokers, connect_timeout)
        except ConnectFailed:
            self._consumer.close()
            raise
        #: subscribed topics the cluster does not have (yet), and when to look again
        self._missing: list[str] = []
        self._look_again = 0.0
        #: records taken from the client, not yet handed to the loop (arrival order)
        self._taken: deque[Any] = deque()
        if partitions is None:
            topics = list(topics)
            self._consumer.subscribe(
                topics, on_revoke=self._revoked, on_lost=self._revoked
            )
            self._missing = [
                t for t in topics if not t.startswith("^") and t not in cluster.topics
            ]
        else:
            wanted = list(partitions)
            self._consumer.assign(
                [confluent_kafka.TopicPartition(t, p) for t in topics for p in wanted]
            )
        self._on_error = on_error

    def _poll(self, timeout: float) -> Any:
        taken = self._taken
        if not taken:
            if self._missing:
                self._look_for_topics()
            records = self._consumer.consume(_BATCH, 0)  # what is fetched already
            if records:
                taken.extend(records)
            else:
                record = self._consumer.poll(timeout)
                if record is None:
                    return None
                taken.append(record)
        while taken:
            record = taken.popleft()
            if record.error() is None:
                return record
            self._failed(record)
        return None

    def _failed(self, record: Any) -> None:
        """A record that reports an error: fatal ones raise, the others go to ``on_error``."""
        err = record.error()
        if err.fatal():
            raise confluent_kafka.KafkaException(err)
        if err.code() == _UNKNOWN_TOPIC and record.topic():
            topic = record.topic()
            if topic not in self._missing:
                self._missing.append(topic)
        if self._on_error is not None:
            self._on_error(err)

    def _revoked(self, consumer: Any, partitions: list[Any]) -> None:
        """Partitions taken away (rebalance or lost): their records not yet handed to the
        loop are dropped (the new owner reads them from the committed offset)."""
        self._drop({(p.topic, p.partition) for p in partitions})

    def _drop(self, keys: set[tuple[str, int]]) -> None:
        taken = self._taken
        if taken:
            kept = [r for r in taken if (r.topic(), r.partition()) not in keys]
            taken.clear()
            taken.extend(kept)

    def _look_for_topics(self) -> None:
        """Ask for the missing topics' metadata (at most every ``_MISSING_TOPIC_CHECK``
        seconds): the answer updates the client's metadata, and the group's subscription
        takes a topic in as soon as it exists."""
        now = time.monotonic()
        if now < self._look_again:
            return
        self._look_again = now + _MISSING_TOPIC_CHECK
        still: list[str] = []
        for topic in self._missing:
            try:
                found = self._consumer.list_topics(topic, timeout=_MISSING_TOPIC_CHECK)
            except confluent_kafka.KafkaException:  # no answer now: ask again later
                still.append(topic)
                continue
            meta = found.topics.get(topic)
            if meta is None or meta.error is not None:
                still.append(topic)
        self._missing = still

    def _convert(self, raw: Any) -> KafkaMessage:
        """The ``KafkaMessage`` of a confluent-kafka ``Message``."""
        headers = raw.headers()
        return new_kafka_message(
            raw.topic(),
            raw.key(),
            raw.value(),
            tuple(headers) if headers else (),
            raw.partition(),
        )

    def _ack(self, raw: Any) -> None:
        if self._rewound:
            self._rewound.pop((raw.topic(), raw.partition()), None)
        if self._manual:
            self._consumer.commit(message=raw, asynchronous=False)
        else:
            self._store(message=raw)
            self._stored = True

    def _nack(self, raw: Any) -> None:
        # rewind so the unhandled message is fetched again by this or the next consumer; a
        # later message given back with it (the loop gives back what followed) must not move
        # the position forward again
        key = (raw.topic(), raw.partition())
        offset = raw.offset()
        if self._rewound.get(key, offset + 1) <= offset:
            return
        self._rewound[key] = offset
        self._drop({key})  # fetched again from the offset sought
        self._consumer.seek(confluent_kafka.TopicPartition(key[0], key[1], offset))

    def _settle(self) -> None:
        """Commit the offsets stored so far (``run`` returns with its messages committed)."""
        if self._stored:
            self.commit()

    def commit(self) -> None:
        """Synchronously commit the offsets stored so far."""
        try:
            self._consumer.commit(asynchronous=False)
        except confluent_kafka.KafkaException as exc:
            if exc.args[0].code() != confluent_kafka.KafkaError._NO_OFFSET:
                raise
        self._stored = False

    def close(self) -> None:
        """Commit stored offsets and leave the group."""
        self._consumer.close()
