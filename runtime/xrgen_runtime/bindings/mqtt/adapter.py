"""MQTT adapter (paho-mqtt 2.x): ``MqttSender`` and ``MqttReceiver`` move ``MqttMessage``.

MQTT 5.0 connections carry the PUBLISH properties (content type, user properties, response
topic, correlation data, message expiry, payload format indicator); MQTT 3.1.1 connections
carry topic, payload, QoS and retain only, and refuse a message with 5.0 properties rather
than drop them.

Both clients reconnect by themselves, with backoff (``reconnect_delay``). The sender refuses a
message while its connection is down (``NotConnected``); a message in flight when the
connection dropped is published again after the reconnect and its future resolves then. The
receiver acknowledges (PUBACK) a QoS 1 message only after the handler returned, and holds at
most ``receive_maximum`` unacknowledged messages: it asks an MQTT 5 broker for no more (Receive
Maximum), and once the subscriptions are granted its network thread stops reading while that
many are unacknowledged, for brokers that send more (Mosquitto 2.0.11 sends up to another
window per PUBACK) and on MQTT 3.1.1, which has no such request (until then the broker's own
in-flight limit applies, Mosquitto's ``max_inflight_messages``). QoS 0 messages, which no
window bounds, wait in the network thread while that many are unhandled. With a ``client_id``
and ``persistent=True`` the broker keeps the session: unacknowledged and queued messages
survive reconnects and broker restarts, and a message received on a connection that dropped
before it was handled is left to the broker, which sends it again.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, cast

import paho.mqtt.client as paho  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.enums import CallbackAPIVersion  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.packettypes import PacketTypes  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.properties import Properties as _Properties  # type: ignore[import-untyped,import-not-found,unused-ignore]
from paho.mqtt.subscribeoptions import SubscribeOptions  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..._event import Event
from ...adapters._connection import CONNECT_TIMEOUT, ConnectFailed, NotConnected
from ...adapters._encoding import Encoder, encoder_or_refusal
from ...adapters._future import SendFuture
from ...adapters._loop import PollingReceiver
from ...adapters._sender import Receipt, Sender, SendError
from .spec import MqttMessage

__all__ = [
    "Connection",
    "MqttPublishError",
    "MqttReceiver",
    "MqttSender",
    "NotConnected",
    "from_paho",
    "to_properties",
]

#: paho's ``Properties`` constructor is untyped
Properties: Any = _Properties
_PROTOCOLS = {"5.0": paho.MQTTv5, "3.1.1": paho.MQTTv311}
#: session expiry (seconds) requested by persistent MQTT 5 sessions
SESSION_EXPIRY = 3600
#: a topic filter no client subscribes to: its UNSUBSCRIBE round trip confirms earlier packets
_SYNC_FILTER = "$xrgen/sync"
#: how long closing waits for the broker to see the DISCONNECT (seconds)
_DISCONNECT_TIMEOUT = 10.0
#: unacknowledged messages a receiver holds at most, unless told otherwise
RECEIVE_MAXIMUM = 100
_log = logging.getLogger("xrgen_runtime.adapters")


class MqttPublishError(SendError):
    """The broker refused a message (MQTT 5 PUBACK reason code >= 0x80)."""


def to_properties(msg: MqttMessage, packet: int = PacketTypes.PUBLISH) -> Any:
    """The paho PUBLISH (or ``packet``: the will's) ``Properties`` of ``msg``, or ``None``
    when it has none."""
    props = Properties(packet)
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


@dataclass(frozen=True, slots=True)
class Connection:
    """How a sender or receiver connects: the CONNECT packet and the transport."""

    host: str
    port: int
    version: str = "5.0"
    client_id: str = ""
    #: clean start (5.0) or clean session (3.1.1)
    clean_start: bool = True
    #: MQTT 5 session expiry interval (seconds); ``None``: not sent (the session ends with
    #: the connection)
    session_expiry: int | None = None
    username: str | None = None
    password: str | None = None
    #: ``tls_set`` keyword arguments (``ca_certs``, ``certfile``, ``keyfile``,
    #: ``keyfile_password``); ``None``: no TLS
    tls: Mapping[str, Any] | None = None
    #: ``"tcp"`` or ``"websockets"``
    transport: str = "tcp"
    ws_path: str | None = None
    #: the will message the broker publishes when the connection is lost
    will: MqttMessage | None = None
    keepalive: int = 60
    #: seconds to wait for the TCP connection and for the CONNACK
    timeout: float = CONNECT_TIMEOUT
    #: MQTT 5 Receive Maximum (unacknowledged QoS > 0 messages the broker may send at once);
    #: ``None``: not sent
    receive_maximum: int | None = None
    #: first and longest delay between reconnect attempts (seconds; doubling)
    reconnect_delay: tuple[float, float] = (0.1, 5.0)

    def __repr__(self) -> str:  # the password stays out of reprs and errors
        return f"Connection({self.host!r}, {self.port!r}, version={self.version!r})"


def connection(
    host: str,
    port: int,
    version: str,
    client_id: str,
    persistent: bool,
    timeout: float,
    options: Mapping[str, Any],
) -> Connection:
    """A ``Connection`` from the adapters' keyword arguments: ``persistent`` keeps the session
    (no clean start, ``SESSION_EXPIRY`` on 5.0) unless ``clean_start``/``session_expiry``
    say otherwise; ``options`` are the other ``Connection`` fields."""
    if version not in _PROTOCOLS:
        raise ValueError(f"MQTT version must be '5.0' or '3.1.1', not {version!r}")
    fields: dict[str, Any] = {
        "clean_start": not persistent,
        "session_expiry": SESSION_EXPIRY if persistent and version == "5.0" else None,
        "timeout": timeout,
    }
    fields.update({k: v for k, v in options.items() if v is not None})
    return Connection(host, port, version, client_id, **fields)


def _client(conn: Connection, manual_ack: bool) -> Any:
    kwargs: dict[str, Any] = {}
    if conn.version == "3.1.1":
        kwargs["clean_session"] = conn.clean_start
    client = paho.Client(
        CallbackAPIVersion.VERSION2,
        client_id=conn.client_id,
        protocol=_PROTOCOLS[conn.version],
        manual_ack=manual_ack,
        transport=cast(Any, conn.transport),
        **kwargs,
    )
    client.connect_timeout = conn.timeout
    client.reconnect_delay_set(*cast(Any, conn.reconnect_delay))  # floats work
    if conn.transport == "websockets" and conn.ws_path is not None:
        client.ws_set_options(path=conn.ws_path)
    if conn.tls is not None:
        client.tls_set(**conn.tls)
    if conn.username is not None or conn.password is not None:
        client.username_pw_set(conn.username or "", conn.password)
    will = conn.will
    if will is not None:
        props = (
            to_properties(will, PacketTypes.WILLMESSAGE)
            if conn.version == "5.0"
            else None
        )
        client.will_set(will.topic, will.payload, will.qos, will.retain, props)
    return client


def _connect(client: Any, conn: Connection, on_connect: Any = None) -> None:
    """Connect, start the network thread and wait (bounded) for the CONNACK; then the
    network thread reconnects by itself when the connection drops (``on_connect`` is called
    on each CONNACK after the first). ``ConnectFailed`` names the broker when it cannot be
    reached or refuses."""
    connected = threading.Event()
    refused: list[Any] = []

    def first(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if connected.is_set():
            if not reason.is_failure:
                _log.info("MQTT broker %s:%s: reconnected", conn.host, conn.port)
            if on_connect is not None:
                on_connect(c, userdata, flags, reason, props)
            return
        if reason.is_failure:
            refused.append(reason)
        connected.set()

    client.on_connect = first
    client.on_disconnect = _dropped
    host, port = conn.host, conn.port
    try:
        if conn.version == "5.0":
            props = Properties(PacketTypes.CONNECT)
            if conn.session_expiry is not None:
                props.SessionExpiryInterval = conn.session_expiry
            if conn.receive_maximum is not None:
                props.ReceiveMaximum = conn.receive_maximum
            client.connect(
                host,
                port,
                conn.keepalive,
                clean_start=conn.clean_start,
                properties=props,
            )
        else:
            client.connect(host, port, conn.keepalive)
    except (OSError, TimeoutError) as exc:
        raise ConnectFailed("MQTT", host, port, f"{type(exc).__name__}: {exc}") from exc
    client.loop_start()
    if not connected.wait(conn.timeout) or refused:
        client.on_disconnect = None  # giving up is no lost connection
        client.disconnect()
        client.loop_stop()
        reason = (
            f"refused: {refused[0]}" if refused else f"no CONNACK in {conn.timeout}s"
        )
        raise ConnectFailed("MQTT", host, port, reason)


def _dropped(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
    """The connection dropped (not closed by us): one warning; paho reconnects."""
    host = getattr(client, "host", "")
    _log.warning(
        "MQTT broker %s:%s: connection lost (%s); reconnecting",
        host,
        client.port,
        reason,
    )


def _disconnect(client: Any, timeout: float) -> None:
    """DISCONNECT after the packets queued before it (PUBACKs) are written, then stop the
    network thread; a connection already gone just stops it."""
    gone = threading.Event()
    client.on_disconnect = lambda *args: gone.set()
    if client.disconnect() == paho.MQTT_ERR_SUCCESS:
        gone.wait(timeout)
    client.loop_stop()


class MqttSender(Sender):
    """Publish ``MqttMessage`` values on one connection of the given MQTT ``version``.

    ``send`` returns a future resolved when the broker acknowledged the message (QoS 1/2) or
    the client wrote it (QoS 0). While the connection is down ``send`` raises
    ``NotConnected`` at once; the client reconnects with backoff, and a message in flight
    when it dropped is published again after the reconnect (its future resolves then).
    ``options``: the other ``Connection`` fields (``clean_start``, ``session_expiry``,
    ``username``, ``password``, ``tls``, ``transport``, ``ws_path``, ``will``, ``keepalive``,
    ``reconnect_delay``). ``encoder`` turns what ``send`` gets other than an ``MqttMessage``
    (a typed event) into one (an endpoint's sender sets it).
    """

    __slots__ = (
        "_client",
        "_version",
        "_lock",
        "_pending",
        "_early",
        "_encode",
        "_where",
        "_publish",
    )

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 1883,
        *,
        version: str = "5.0",
        client_id: str = "",
        persistent: bool = False,
        connect_timeout: float = CONNECT_TIMEOUT,
        encoder: Encoder | None = None,
        **options: Any,
    ) -> None:
        conn = connection(
            host, port, version, client_id, persistent, connect_timeout, options
        )
        self._version = version
        self._where = f"{host}:{port}"
        self._encode = encoder_or_refusal(encoder, MqttMessage, "MqttSender")
        self._client: Any = _client(conn, manual_ack=False)
        self._publish = self._client.publish
        self._lock = threading.Lock()
        self._pending: dict[int, tuple[Future[Receipt], str]] = {}
        self._early: dict[int, Any] = {}
        self._client.on_publish = self._on_publish
        _connect(self._client, conn)

    def _on_publish(
        self, client: Any, userdata: Any, mid: int, reason: Any, props: Any
    ) -> None:
        with self._lock:
            entry = self._pending.pop(mid, None)
            if entry is None:
                self._early[mid] = reason
                return
        _resolve(entry[0], reason, entry[1])

    def send(self, msg: MqttMessage | Event[Any]) -> Future[Receipt]:
        """Publish ``msg`` (an event is encoded first); raises ``ValueError`` for 5.0
        properties on a 3.1.1 connection and ``NotConnected`` while the connection is down.
        """
        if msg.__class__ is not MqttMessage:
            msg = self._encode(msg)
        msg = cast(MqttMessage, msg)
        props = to_properties(msg)
        if props is not None and self._version != "5.0":
            raise ValueError("MQTT 3.1.1 cannot carry MQTT 5.0 properties")
        if not self._client.is_connected():
            raise NotConnected(
                f"MQTT broker {self._where}: not connected (reconnecting); not sent"
            )
        info = self._publish(msg.topic, msg.payload, msg.qos, msg.retain, props)
        if info.rc == paho.MQTT_ERR_QUEUE_SIZE:
            raise BufferError("paho's outgoing queue is full")
        future: Future[Receipt] = SendFuture()
        with self._lock:
            if info.mid in self._early:
                reason = self._early.pop(info.mid)
            else:
                self._pending[info.mid] = (future, msg.topic)
                return future
        _resolve(future, reason, msg.topic)
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every message sent so far is acknowledged; raise the first refusal."""
        with self._lock:
            futures = [future for future, _ in self._pending.values()]
        if not futures:
            return
        # the broker acknowledges in the order it received the messages: once the last one
        # sent is acknowledged the others are too (one wait, not a wake-up per message)
        deadline = time.monotonic() + timeout
        futures[-1].exception(timeout)
        for future in futures:
            future.result(max(0.0, deadline - time.monotonic()))

    def _release(self) -> None:
        """Disconnect (after the packets queued before) and stop the network thread."""
        _disconnect(self._client, _DISCONNECT_TIMEOUT)


def _resolve(future: Future[Receipt], reason: Any, topic: str) -> None:
    if reason is not None and getattr(reason, "is_failure", False):
        future.set_exception(MqttPublishError(str(reason)))
    else:
        future.set_result(Receipt(topic))


class MqttReceiver(PollingReceiver[tuple[int, Any], MqttMessage]):
    """Subscribe to ``topics`` (filters) and hand each ``MqttMessage`` to the handler.

    Messages are acknowledged after the handler returned (paho ``manual_ack``). MQTT 5
    connections ask the broker for at most ``receive_maximum`` unacknowledged messages, and once
    the subscriptions are granted the network thread reads no more while that many are
    unacknowledged (a QoS 0 message waits while that many are unhandled), so a restart
    redelivers at most that many. The client reconnects by
    itself (backoff ``reconnect_delay``) and subscribes again when the broker forgot the
    session. With a persistent session, messages received on a connection that has since
    dropped are not handled (the broker sends them again), and a message given back
    (``_nack``) makes the receiver reconnect so that the broker sends everything
    unacknowledged again (MQTT has no negative acknowledgement); without one, a message
    given back stays unacknowledged until the connection ends and the broker drops it. The
    constructor returns once the broker granted the subscriptions.
    """

    __slots__ = (
        "_client",
        "_conn",
        "_version",
        "_inbox",
        "_generation",
        "_persistent",
        "_give_back",
        "_closing",
        "_room",
        "_low",
        "_received",
        "_released",
        "_bounded",
        "_starved",
        "_space",
    )

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
        connect_timeout: float = CONNECT_TIMEOUT,
        receive_maximum: int = RECEIVE_MAXIMUM,
        no_local: bool = False,
        retain_as_published: bool = False,
        retain_handling: int = 0,
        **options: Any,
    ) -> None:
        if receive_maximum < 1:
            raise ValueError("receive_maximum must be at least 1")
        if version == "5.0":
            options = {"receive_maximum": receive_maximum, **options}
        conn = connection(
            host, port, version, client_id, persistent, connect_timeout, options
        )
        self._conn = conn
        self._version = version
        self._persistent = not conn.clean_start
        #: (connection generation, paho message) handed over by the network thread: QoS > 0
        #: messages are bounded by the broker's window; a QoS 0 message waits for room
        self._inbox: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
        self._room = receive_maximum
        #: a waiting network thread reads again once this few are unacknowledged (a quarter
        #: of the window settled: one wake-up per that many, not one per message)
        self._low = receive_maximum - max(1, receive_maximum // 4)
        #: QoS > 0 messages handed over, and those acknowledged, given back or dropped since:
        #: each count is written by one thread only (the network thread, the polling one)
        self._received = 0
        self._released = 0
        #: whether the network thread waits for room (not before the SUBACK, nor while
        #: ``_reconnect`` disconnects: it reads the one and writes the DISCONNECT)
        self._bounded = False
        #: set by the network thread while it waits for room; ``_space`` wakes it
        self._starved = False
        self._space = threading.Event()
        self._generation = 0
        self._give_back = False
        self._closing = False
        self._client: Any = _client(conn, manual_ack=True)
        self._client.on_message = self._on_message
        self._client.on_disconnect = self._on_disconnect
        subscribed = threading.Event()
        granted: list[Any] = []

        def on_subscribe(c: Any, u: Any, mid: int, codes: Any, p: Any) -> None:
            granted.extend(codes)
            subscribed.set()

        self._client.on_subscribe = on_subscribe
        how: Any = qos
        if version == "5.0":
            how = SubscribeOptions(qos, no_local, retain_as_published, retain_handling)
        filters = [(t, how) for t in topics]

        def on_reconnect(c: Any, u: Any, flags: Any, reason: Any, p: Any) -> None:
            if reason.is_failure:
                return
            self._generation += 1
            if filters and not flags.session_present:
                c.subscribe(filters)  # the broker forgot the session: subscribe again

        _connect(self._client, conn, on_reconnect)
        if filters:
            self._client.subscribe(filters)
            if not subscribed.wait(connect_timeout):
                self.close()
                raise TimeoutError(
                    f"no SUBACK for {list(topics)} in {connect_timeout}s"
                )
            refused = [c for c in granted if getattr(c, "is_failure", False)]
            if refused:
                self.close()
                raise ConnectionRefusedError(
                    f"MQTT broker refused the subscription: {refused[0]}"
                )
        self._bounded = True

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if not message.qos:  # not in the broker's window: wait here, reading no more
            while self._inbox.qsize() >= self._room and not self._closing:
                time.sleep(0.005)
        else:
            if self._received - self._released >= self._room and self._bounded:
                self._wait_for_room()
            self._received += 1
        self._inbox.put((self._generation, message))

    def _wait_for_room(self) -> None:
        """Read no more while ``receive_maximum`` QoS > 0 messages are unacknowledged, until
        only ``_low`` are."""
        low = self._low
        self._starved = True
        while (
            self._received - self._released > low
            and self._bounded
            and not self._closing
        ):
            self._space.clear()
            if self._received - self._released > low:
                self._space.wait(0.1)
        self._starved = False

    def _release(self) -> None:
        """A QoS > 0 message handed over is settled (acknowledged, given back or dropped):
        room for the next; the waiting network thread is woken at the low mark."""
        self._released += 1
        if self._starved and self._received - self._released <= self._low:
            self._space.set()

    def _on_disconnect(self, *args: Any) -> None:
        self._generation += 1  # what was received so far will not be acknowledged
        _dropped(*args)

    def _poll(self, timeout: float) -> tuple[int, Any] | None:
        if self._give_back:
            self._reconnect()
        try:
            item = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        if item[0] != self._generation and self._persistent and item[1].qos:
            self._release()
            return None  # its connection dropped: the broker sends it again
        return item

    def _convert(self, raw: tuple[int, Any]) -> MqttMessage:
        return from_paho(raw[1], self._version)

    def _ack(self, raw: tuple[int, Any]) -> None:
        generation, message = raw
        if message.qos > 0:
            # a message of a connection that dropped is not acknowledged on the next one: its
            # packet identifier may name another message there
            if generation == self._generation:
                self._client.ack(message.mid, message.qos)
            self._release()

    def _nack(self, raw: tuple[int, Any]) -> None:
        """Leave ``raw`` unacknowledged; with a persistent session, reconnect before the next
        message so that the broker sends it (and what followed it) again."""
        if raw[1].qos > 0:
            self._release()
            if self._persistent:
                self._give_back = True

    def _reconnect(self) -> None:
        """DISCONNECT (after the acknowledgements sent so far) and connect again, resuming
        the session: the broker sends the unacknowledged messages again."""
        self._give_back = False
        _log.info(
            "MQTT: reconnecting so that the broker redelivers what was given back"
        )
        self._generation += 1
        # the network thread must not wait for room: it writes the DISCONNECT
        self._bounded = False
        self._space.set()
        _disconnect(self._client, _DISCONNECT_TIMEOUT)
        self._client.on_disconnect = self._on_disconnect
        while True:
            try:
                _, dropped = self._inbox.get_nowait()
            except queue.Empty:
                break
            if dropped.qos:
                self._release()
        try:
            self._client.reconnect()
        except OSError as exc:  # the network thread keeps trying with backoff
            _log.warning("MQTT: reconnect failed (%s); retrying", exc)
        self._bounded = True
        self._client.loop_start()

    def close(self, timeout: float = 10.0) -> None:
        """Disconnect once the broker has the acknowledgements sent so far (unacknowledged
        messages stay with a persistent session).

        The broker keeps publishing until it reads the DISCONNECT, and a socket closed with
        unread data is reset, which can drop what the broker had not read yet: so the
        acknowledgements are confirmed first by a round trip (an UNSUBSCRIBE of a filter the
        client never subscribed to, answered after everything sent before it).
        """
        self._closing = True
        self._space.set()
        synced = threading.Event()
        self._client.on_unsubscribe = lambda *args: synced.set()
        rc, _ = self._client.unsubscribe(_SYNC_FILTER)
        if rc == paho.MQTT_ERR_SUCCESS:
            synced.wait(timeout)
        _disconnect(self._client, timeout)
