"""MQTT adapter (paho-mqtt 2.x): ``MqttSender`` and ``MqttReceiver`` move ``MqttMessage``.

MQTT 5.0 connections carry the PUBLISH properties (content type, user properties, response
topic, correlation data, message expiry, payload format indicator); MQTT 3.1.1 connections
carry topic, payload, QoS and retain only, and refuse a message with 5.0 properties rather
than drop them. The receiver acknowledges (PUBACK) a QoS 1 message only after the handler
returned; with a ``client_id`` and ``persistent=True`` the broker keeps the session, so
unacknowledged and queued messages survive reconnects and broker restarts.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any

import paho.mqtt.client as paho  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.enums import CallbackAPIVersion  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.packettypes import PacketTypes  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.properties import Properties as _Properties  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..bindings import MqttMessage
from ._loop import PollingReceiver
from ._sender import Sender

__all__ = [
    "MqttPublishError",
    "MqttReceiver",
    "MqttSender",
    "from_paho",
    "to_properties",
]

#: paho's ``Properties`` constructor is untyped
Properties: Any = _Properties
_PROTOCOLS = {"5.0": paho.MQTTv5, "3.1.1": paho.MQTTv311}
#: session expiry (seconds) requested by persistent MQTT 5 sessions
SESSION_EXPIRY = 3600


class MqttPublishError(Exception):
    """The broker refused a message (MQTT 5 PUBACK reason code >= 0x80)."""


def to_properties(msg: MqttMessage) -> Any:
    """The paho PUBLISH ``Properties`` of ``msg``, or ``None`` when it has none."""
    props = Properties(PacketTypes.PUBLISH)
    empty = True
    if msg.content_type is not None:
        props.ContentType = msg.content_type
        empty = False
    if msg.user_properties:
        props.UserProperty = list(msg.user_properties)
        empty = False
    if msg.response_topic is not None:
        props.ResponseTopic = msg.response_topic
        empty = False
    if msg.correlation_data is not None:
        props.CorrelationData = msg.correlation_data
        empty = False
    if msg.message_expiry_interval is not None:
        props.MessageExpiryInterval = msg.message_expiry_interval
        empty = False
    if msg.payload_format_indicator is not None:
        props.PayloadFormatIndicator = msg.payload_format_indicator
        empty = False
    return None if empty else props


def from_paho(message: Any, version: str) -> MqttMessage:
    """An ``MqttMessage`` from a paho ``MQTTMessage`` received on a ``version`` connection."""
    props = message.properties if version == "5.0" else None
    get = (lambda name: getattr(props, name, None)) if props is not None else _none
    user = get("UserProperty")
    return MqttMessage(
        topic=message.topic,
        payload=bytes(message.payload),
        qos=message.qos,
        retain=bool(message.retain),
        version=version,
        content_type=get("ContentType"),
        user_properties=tuple((str(k), str(v)) for k, v in user) if user else (),
        response_topic=get("ResponseTopic"),
        correlation_data=get("CorrelationData"),
        message_expiry_interval=get("MessageExpiryInterval"),
        payload_format_indicator=get("PayloadFormatIndicator"),
    )


def _none(name: str) -> None:
    return None


def _client(version: str, client_id: str, persistent: bool, manual_ack: bool) -> Any:
    if version not in _PROTOCOLS:
        raise ValueError(f"MQTT version must be '5.0' or '3.1.1', not {version!r}")
    kwargs: dict[str, Any] = {}
    if version == "3.1.1":
        kwargs["clean_session"] = not persistent
    return paho.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=_PROTOCOLS[version],
        manual_ack=manual_ack,
        **kwargs,
    )


def _connect(
    client: Any, host: str, port: int, version: str, persistent: bool, timeout: float
) -> None:
    """Connect, start the network thread and wait (bounded) for the CONNACK."""
    connected = threading.Event()
    refused: list[Any] = []

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            refused.append(reason)
        connected.set()

    client.on_connect = on_connect
    client.reconnect_delay_set(min_delay=1, max_delay=5)
    if version == "5.0":
        props = Properties(PacketTypes.CONNECT)
        if persistent:
            props.SessionExpiryInterval = SESSION_EXPIRY
        client.connect(host, port, clean_start=not persistent, properties=props)
    else:
        client.connect(host, port)
    client.loop_start()
    if not connected.wait(timeout):
        client.loop_stop()
        raise TimeoutError(f"no CONNACK from MQTT broker {host}:{port} in {timeout}s")
    if refused:
        client.loop_stop()
        raise ConnectionRefusedError(f"MQTT broker {host}:{port} refused: {refused[0]}")


class MqttSender(Sender):
    """Publish ``MqttMessage`` values on one connection of the given MQTT ``version``.

    ``send`` returns a future resolved when the broker acknowledged the message (QoS 1/2) or
    the client wrote it (QoS 0). QoS > 0 messages published while the connection is down are
    queued by paho and sent after it reconnects.
    """

    __slots__ = ("_client", "_version", "_lock", "_pending", "_early")

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        *,
        version: str = "5.0",
        client_id: str = "",
        persistent: bool = False,
        connect_timeout: float = 10.0,
    ) -> None:
        self._version = version
        self._client: Any = _client(version, client_id, persistent, manual_ack=False)
        self._lock = threading.Lock()
        self._pending: dict[int, Future[None]] = {}
        self._early: dict[int, Any] = {}
        self._client.on_publish = self._on_publish
        _connect(self._client, host, port, version, persistent, connect_timeout)

    def _on_publish(
        self, client: Any, userdata: Any, mid: int, reason: Any, props: Any
    ) -> None:
        with self._lock:
            future = self._pending.pop(mid, None)
            if future is None:
                self._early[mid] = reason
                return
        _resolve(future, reason)

    def send(self, msg: MqttMessage) -> Future[None]:
        """Publish ``msg``; raises ``ValueError`` for 5.0 properties on a 3.1.1 connection."""
        props = to_properties(msg)
        if props is not None and self._version != "5.0":
            raise ValueError("MQTT 3.1.1 cannot carry MQTT 5.0 properties")
        info = self._client.publish(msg.topic, msg.payload, msg.qos, msg.retain, props)
        if info.rc == paho.MQTT_ERR_QUEUE_SIZE:
            raise BufferError("paho's outgoing queue is full")
        future: Future[None] = Future()
        with self._lock:
            if info.mid in self._early:
                reason = self._early.pop(info.mid)
            else:
                self._pending[info.mid] = future
                return future
        _resolve(future, reason)
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every message sent so far is acknowledged; raise on refusals."""
        with self._lock:
            futures = list(self._pending.values())
        for future in futures:
            future.result(timeout)

    def _release(self) -> None:
        """Disconnect and stop the network thread."""
        self._client.disconnect()
        self._client.loop_stop()


def _resolve(future: Future[None], reason: Any) -> None:
    if reason is not None and getattr(reason, "is_failure", False):
        future.set_exception(MqttPublishError(str(reason)))
    else:
        future.set_result(None)


class MqttReceiver(PollingReceiver[Any, MqttMessage]):
    """Subscribe to ``topics`` (filters) and hand each ``MqttMessage`` to the handler.

    Messages are acknowledged after the handler returned (paho ``manual_ack``). A message
    whose handler raised stays unacknowledged; the broker redelivers it when a persistent
    session reconnects. The constructor returns once the broker granted the subscriptions.
    """

    __slots__ = ("_client", "_version", "_inbox")

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        topics: Iterable[str] = (),
        *,
        qos: int = 1,
        version: str = "5.0",
        client_id: str = "",
        persistent: bool = False,
        connect_timeout: float = 10.0,
    ) -> None:
        self._version = version
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._client: Any = _client(version, client_id, persistent, manual_ack=True)
        self._client.on_message = lambda c, u, m: self._inbox.put(m)
        subscribed = threading.Event()
        self._client.on_subscribe = lambda c, u, mid, codes, p: subscribed.set()
        _connect(self._client, host, port, version, persistent, connect_timeout)
        filters = [(t, qos) for t in topics]

        def on_reconnect(c: Any, u: Any, flags: Any, reason: Any, p: Any) -> None:
            if filters and not reason.is_failure and not flags.session_present:
                c.subscribe(filters)  # the broker forgot the session: subscribe again

        self._client.on_connect = on_reconnect
        if filters:
            self._client.subscribe(filters)
            if not subscribed.wait(connect_timeout):
                self.close()
                raise TimeoutError(f"no SUBACK for {filters} in {connect_timeout}s")

    def _poll(self, timeout: float) -> Any:
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    def _convert(self, raw: Any) -> MqttMessage:
        return from_paho(raw, self._version)

    def _ack(self, raw: Any) -> None:
        if raw.qos > 0:
            self._client.ack(raw.mid, raw.qos)

    def close(self) -> None:
        """Disconnect (unacknowledged messages stay with a persistent session)."""
        self._client.disconnect()
        self._client.loop_stop()
