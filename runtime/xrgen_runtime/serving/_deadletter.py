"""Dead letters to a destination: a dead-letter callback that publishes the original wire
message, whole, to a topic, queue node, subject or URL through a sender of its binding, with
the reason and the detail as headers (``xrgen-deadletter-reason``,
``xrgen-deadletter-detail``), and returns once the server confirmed it. A publish that fails
raises, so the dispatcher's result is not ``settled`` and the receiver gives the original back:
it is acknowledged only after its dead letter is confirmed.

Where the reason goes per binding: Kafka and NATS headers, MQTT 5 user properties, AMQP
application properties, HTTP request headers, Pulsar and RocketMQ properties. MQTT 3.1.1 has
no properties: the message is published as it arrived, and the reason is logged only.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

from ..adapters._bridge import blocking
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
from ..endpoints._resolve import resolve
from ..endpoints._support import family

if TYPE_CHECKING:
    from ..endpoints import Endpoint

__all__ = [
    "DETAIL_HEADER",
    "REASON_HEADER",
    "DeadLetterPublisher",
    "dead_letter_message",
    "publisher_for",
]

_log = logging.getLogger("xrgen_runtime.serving")

REASON_HEADER = "xrgen-deadletter-reason"
DETAIL_HEADER = "xrgen-deadletter-detail"
#: response headers an HTTP dead letter does not repeat in its request
_HOP_BY_HOP = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "host", "date"}
)


def _kafka(m: KafkaMessage, to: str, reason: str, detail: str) -> KafkaMessage:
    extra = ((REASON_HEADER, reason.encode()), (DETAIL_HEADER, detail.encode()))
    return replace(m, topic=to, partition=None, headers=tuple(m.headers) + extra)


def _mqtt(m: MqttMessage, to: str, reason: str, detail: str) -> MqttMessage:
    if m.version != "5.0":
        _log.warning("MQTT 3.1.1 dead letter to %s: %s [%s]", to, reason, detail)
        return replace(m, topic=to, retain=False)
    extra = ((REASON_HEADER, reason), (DETAIL_HEADER, detail))
    props = tuple(m.user_properties) + extra
    return replace(m, topic=to, retain=False, user_properties=props)


def _amqp(m: AmqpMessage, to: str, reason: str, detail: str) -> AmqpMessage:
    props = {**m.application_properties, REASON_HEADER: reason, DETAIL_HEADER: detail}
    return replace(m, address=to, application_properties=props)


def _nats(m: NatsMessage, to: str, reason: str, detail: str) -> NatsMessage:
    extra = ((REASON_HEADER, reason), (DETAIL_HEADER, detail))
    return replace(m, subject=to, reply=None, headers=tuple(m.headers) + extra)


def _http(m: HttpMessage, to: str, reason: str, detail: str) -> HttpMessage:
    kept = tuple(h for h in m.headers if h[0].lower() not in _HOP_BY_HOP)
    extra = ((REASON_HEADER, reason), (DETAIL_HEADER, detail))
    # the sender posts to the dead-letter URL itself (its base URL)
    return HttpMessage("POST", "", kept + extra, m.body, None)


def _pulsar(m: PulsarMessage, to: str, reason: str, detail: str) -> PulsarMessage:
    props = {**m.properties, REASON_HEADER: reason, DETAIL_HEADER: detail}
    return replace(m, topic=to, properties=props)


def _rocketmq(m: RocketMqMessage, to: str, reason: str, detail: str) -> RocketMqMessage:
    props = {**m.properties, REASON_HEADER: reason, DETAIL_HEADER: detail}
    return replace(m, topic=to, properties=props)


#: wire message type -> its binding's re-addressing function (named by its declaration)
_READDRESS: dict[type, Callable[[Any, str, str, str], Any]] = {
    b.message_type: b.part(b.readdress) for b in BINDINGS.values()
}


def dead_letter_message(
    original: object, destination: str, reason: str, detail: str
) -> Any:
    """``original`` (a wire message) addressed to ``destination``, the reason and detail
    added as headers; ``TypeError`` for anything else (a decoded event has no wire form).
    """
    readdress = _READDRESS.get(type(original))
    if readdress is None:
        raise TypeError(
            f"a dead letter to {destination!r} needs the wire message, not "
            f"{type(original).__name__}"
        )
    return readdress(original, destination, reason, detail)


DeadLetterCallback = Callable[[object, str, str], object]


class DeadLetterPublisher:
    """A dead-letter callback publishing to ``destination`` through ``sender`` (the blocking
    shape: ``send`` returns a ``Future[Receipt]``), then calling ``then`` (when given) with
    the same arguments. In a running event loop it returns an awaitable (an async dispatch
    awaits it) and does not block the loop. ``owns``: :meth:`close` closes the sender.
    """

    __slots__ = ("sender", "destination", "then", "_timeout", "_owns", "_lock")

    def __init__(
        self,
        sender: Any,
        destination: str,
        *,
        timeout: float = 30.0,
        then: DeadLetterCallback | None = None,
        owns: bool = False,
    ) -> None:
        self.sender = sender
        self.destination = destination
        self.then = then
        self._timeout = timeout
        self._owns = owns
        self._lock = threading.Lock()

    def __call__(self, original: object, reason: str, detail: str) -> Any:
        message = dead_letter_message(original, self.destination, reason, detail)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._publish(message)
            return self._then(original, reason, detail)
        return self._publish_async(message, original, reason, detail)

    def _publish(self, message: Any) -> Any:
        sender = self.sender
        with self._lock:
            future = sender.send(message)
            if not future.done() and not getattr(sender, "_confirms_itself", True):
                sender.flush(self._timeout)  # its futures resolve in flush (AMQP)
        return future.result(self._timeout)

    async def _publish_async(
        self, message: Any, original: object, reason: str, detail: str
    ) -> None:
        if getattr(self.sender, "_confirms_itself", True):
            future = asyncio.wrap_future(self.sender.send(message))
            await asyncio.wait_for(future, self._timeout)
        else:
            await asyncio.to_thread(self._publish, message)
        outcome = self._then(original, reason, detail)
        if asyncio.iscoroutine(outcome):
            await outcome

    def _then(self, original: object, reason: str, detail: str) -> Any:
        if self.then is None:
            _log.info("dead letter (%s) published to %s", reason, self.destination)
            return None
        return self.then(original, reason, detail)

    def close(self) -> None:
        """Close the sender when this publisher built it."""
        if self._owns:
            self.sender.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: client settings of a receiver that the dead-letter sender of its endpoint keeps (the
#: others describe the receiving client: its id, will, session, handler, group)
_SENDER_SETTINGS = {
    "KAFKA": frozenset({"config"}),
    "MQTT": frozenset({"keepalive", "connect_timeout"}),
    "AMQP": frozenset({"connect_timeout"}),
    "NATS": frozenset({"options"}),
    "HTTP": frozenset({"timeout", "client_options"}),
}
#: catalog options of a consumer endpoint that would make its sender a session of its own
_RECEIVER_ONLY = {
    "MQTT": ("cleanstart", "cleansession", "sessionexpiryinterval", "willtopic"),
}


def publisher_for(
    endpoint: Endpoint[Any],
    arguments: Mapping[str, Any],
    *,
    then: DeadLetterCallback | None = None,
    timeout: float = 30.0,
) -> DeadLetterPublisher | None:
    """The dead-letter publisher of a consumer ``endpoint``: to ``arguments["deadletter"]``,
    else to the endpoint's ``deadletter`` option (placeholders filled from ``arguments``),
    through a sender connected like the endpoint's receiver; ``None`` when neither names a
    destination."""

    args = dict(arguments)
    given = args.pop("deadletter", None)
    receiving = resolve(endpoint, endpoint.receiver_role(), args)
    destination = given or receiving.option("deadletter")
    if not destination:
        return None
    name = family(endpoint.protocol) or ""
    keep = _SENDER_SETTINGS.get(name, frozenset())
    client = receiving.support.CLIENT_ARGS
    sending = {k: v for k, v in args.items() if k not in client or k in keep}
    for option in _RECEIVER_ONLY.get(name, ()):
        if option in endpoint.options:
            sending[option] = None
    if name == "NATS" and args.get("durable"):
        sending["jetstream"] = (
            True  # a JetStream consumer's dead letters go to a stream
        )
    if name == "HTTP":
        sending["uris"] = (str(destination),)
    settings = resolve(endpoint, "producer", sending)
    sender = blocking(settings.support.sender(settings), "sender")
    return DeadLetterPublisher(
        sender, str(destination), timeout=timeout, then=then, owns=True
    )
