"""MQTT adapter (paho-mqtt 2.x): ``MqttSender`` and ``MqttReceiver`` move ``MqttMessage``.

MQTT 5.0 connections carry the PUBLISH properties (content type, user properties, response
topic, correlation data, message expiry, payload format indicator); MQTT 3.1.1 connections
carry topic, payload, QoS and retain only, and refuse a message with 5.0 properties rather
than drop them.

Both clients reconnect with backoff (``reconnect_delay``). The sender runs paho's network
thread and refuses a message while its connection is down (``NotConnected``); a message in
flight when the connection dropped is published again after the reconnect and its future
resolves then. The receiver runs the network loop in the thread that serves (``run``): it reads
a message when it has none in hand and acknowledges (PUBACK) a QoS 1 message only after the
handler returned, so a backlog waits in the broker, however the broker paces it, and a
restart redelivers at most the message being handled; MQTT 5 connections also ask the broker
for at most ``receive_maximum`` unacknowledged messages (Receive Maximum). While a handler runs
long, a keeper thread keeps the connection alive, reading at most that many ahead. With a
``client_id`` and ``persistent=True`` the broker keeps the session: unacknowledged and queued
messages survive reconnects and broker restarts, and a message received on a connection that
dropped before it was handled is left to the broker, which sends it again.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections import deque
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


def _connect(
    client: Any, conn: Connection, on_connect: Any = None, threaded: bool = True
) -> None:
    """Connect and wait (bounded) for the CONNACK (``on_connect`` is called on each CONNACK
    after the first). ``threaded``: start paho's network thread, which then reconnects by
    itself when the connection drops; else the caller drives the network loop (``client.loop``,
    here until the CONNACK). ``ConnectFailed`` names the broker when it cannot be reached or
    refuses."""
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
    if threaded:
        client.loop_start()
        connected.wait(conn.timeout)
    else:
        _drive(client, connected, conn.timeout)
    if not connected.is_set() or refused:
        client.on_disconnect = None  # giving up is no lost connection
        client.disconnect()
        client.loop_stop()
        reason = (
            f"refused: {refused[0]}" if refused else f"no CONNACK in {conn.timeout}s"
        )
        raise ConnectFailed("MQTT", host, port, reason)


def _turn(client: Any, timeout: float) -> bool:
    """One turn of the network loop of a client without a network thread, through paho's
    external-loop API: wait up to ``timeout`` seconds for the socket, read one packet (its
    callbacks run here), write what is queued, keep the connection alive. ``False`` when
    the connection is gone (paho has called ``on_disconnect``)."""
    sock = client.socket()
    if sock is None:
        return False
    writing = [sock] if client.want_write() else []
    if getattr(sock, "pending", None) is not None and sock.pending():
        readable: list[Any] = [sock]  # TLS bytes already decrypted: no waiting
    else:
        try:
            readable, writing, _ = select.select([sock], writing, [], timeout)
        except (OSError, ValueError, TypeError):  # closed meanwhile
            return False
    ok = paho.MQTT_ERR_SUCCESS
    if readable and client.loop_read() != ok:
        return False
    if (writing or client.want_write()) and client.loop_write() != ok:
        return False
    return bool(client.loop_misc() == ok)


def _drive(client: Any, until: threading.Event, timeout: float) -> bool:
    """Turn the network loop of a client without a network thread until ``until`` is set
    (``True``), the connection is gone or ``timeout`` seconds passed (``False``)."""
    deadline = time.monotonic() + timeout
    while not until.is_set():
        left = deadline - time.monotonic()
        if left <= 0 or not _turn(client, min(left, 0.05)):
            return until.is_set()
    return True


def _dropped(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
    """The connection dropped (not closed by us): one warning; paho reconnects."""
    host = getattr(client, "host", "")
    _log.warning(
        "MQTT broker %s:%s: connection lost (%s); reconnecting",
        host,
        client.port,
        reason,
    )


def _disconnect(client: Any, timeout: float, threaded: bool = True) -> None:
    """DISCONNECT after the packets queued before it (PUBACKs) are written, then stop the
    network thread (``threaded``; else the caller's loop writes it); a connection already
    gone just stops it."""
    gone = threading.Event()
    client.on_disconnect = lambda *args: gone.set()
    if client.disconnect() == paho.MQTT_ERR_SUCCESS:
        if threaded:
            gone.wait(timeout)
        else:
            _drive(client, gone, timeout)
    if threaded:
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

    The calling thread runs the client's network loop: ``run`` reads a message when it has
    none in hand, calls the handler, and writes the PUBACK (paho ``manual_ack``) before it
    reads the next, as a hand-written paho consumer does in its callback, without handing
    each message over to another thread. A message the client has read is therefore one
    the handler is about to get: a restart redelivers at most the one being handled, and a
    backlog waits in the broker. MQTT 5 connections also ask the broker for at most
    ``receive_maximum`` unacknowledged messages. While a handler runs for long, a keeper
    thread runs the network loop at every eighth of the keep-alive interval (the PINGREQ,
    the broker's answers) and reads at most ``receive_maximum`` messages ahead.

    When the connection drops, the next read reconnects with backoff (``reconnect_delay``)
    and subscribes again when the broker forgot the session. With a persistent session,
    messages received on a connection that has since dropped are not handled (the broker
    sends them again), and a message given back (``_nack``) makes the receiver reconnect so
    that the broker sends everything unacknowledged again (MQTT has no negative
    acknowledgement); without one, a message given back stays unacknowledged until the
    connection ends and the broker drops it. The constructor returns once the broker
    granted the subscriptions.
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
        "_net",
        "_looped",
        "_delay",
        "_dial_at",
        "_keeper",
        "_stopped",
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
        #: (connection generation, paho message) read and not yet taken by ``_poll``
        self._inbox: deque[tuple[int, Any]] = deque()
        self._room = receive_maximum
        #: held by whichever thread runs the network loop or writes (the caller, the keeper)
        self._net = threading.Lock()
        #: when the caller last ran the network loop
        self._looped = time.monotonic()
        #: the next reconnect's delay and when it may be tried
        self._delay = conn.reconnect_delay[0]
        self._dial_at = 0.0
        self._generation = 0
        self._give_back = False
        self._closing = False
        self._stopped = threading.Event()
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
            self._delay = conn.reconnect_delay[0]  # connected: the backoff starts again
            if filters and not flags.session_present:
                c.subscribe(filters)  # the broker forgot the session: subscribe again

        _connect(self._client, conn, on_reconnect, threaded=False)
        if filters:
            self._client.subscribe(filters)
            if not _drive(self._client, subscribed, connect_timeout):
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
        self._keeper = threading.Thread(
            target=self._keep_alive, name="xrgen-mqtt-keepalive", daemon=True
        )
        self._keeper.start()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._inbox.append((self._generation, message))

    def _on_disconnect(self, *args: Any) -> None:
        self._generation += 1  # what was received so far will not be acknowledged
        if not self._closing:
            _dropped(*args)

    def _keep_alive(self) -> None:
        """While the caller is in a handler for long, run the network loop at every eighth
        of the keep-alive interval (PINGREQ, the broker's answers), reading no further than
        ``receive_maximum`` messages ahead: paho sends the PINGREQ once ``keepalive`` seconds
        passed without a packet, the broker waits 1.5 times that, so the ping goes out with
        more than a third of the margin left."""
        period = max(0.25, self._conn.keepalive / 8)
        while not self._stopped.wait(period):
            if time.monotonic() - self._looped < period:
                continue
            if len(self._inbox) >= self._room or not self._net.acquire(False):
                continue
            try:
                if not self._closing:
                    _turn(self._client, 0)  # a lost connection: the caller reconnects
            finally:
                self._net.release()

    def _poll(self, timeout: float) -> tuple[int, Any] | None:
        if self._give_back:
            self._reconnect()
        inbox = self._inbox
        deadline = 0.0
        while True:
            while inbox:
                item = inbox.popleft()
                if item[0] != self._generation and self._persistent and item[1].qos:
                    continue  # its connection dropped: the broker sends it again
                return item
            # a turn reads one packet (a PUBLISH, or a PUBACK, CONNACK, PINGRESP...)
            now = time.monotonic()
            if not deadline:
                deadline = now + timeout
            elif now >= deadline:
                return None
            with self._net:
                self._looped = now
                if not _turn(self._client, deadline - now):
                    self._redial(deadline - now)

    def _redial(self, timeout: float) -> None:
        """The connection is gone: reconnect, at most once per backoff delay (doubling up to
        the longest ``reconnect_delay`` until a CONNACK accepts the connection); the CONNACK
        is read by the next turn."""
        now = time.monotonic()
        if now < self._dial_at:
            time.sleep(min(timeout, self._dial_at - now))
            return
        self._dial_at = now + self._delay
        self._delay = min(self._delay * 2, self._conn.reconnect_delay[1])
        try:
            self._client.reconnect()
        except OSError as exc:
            _log.debug("MQTT: reconnect failed (%s); retrying", exc)

    def _convert(self, raw: tuple[int, Any]) -> MqttMessage:
        return from_paho(raw[1], self._version)

    def _ack(self, raw: tuple[int, Any]) -> None:
        generation, message = raw
        # a message of a connection that dropped is not acknowledged on the next one: its
        # packet identifier may name another message there
        if message.qos > 0 and generation == self._generation:
            with self._net:
                self._client.ack(message.mid, message.qos)  # written at once

    def _nack(self, raw: tuple[int, Any]) -> None:
        """Leave ``raw`` unacknowledged; with a persistent session, reconnect before the next
        message so that the broker sends it (and what followed it) again."""
        if raw[1].qos > 0 and self._persistent:
            self._give_back = True

    def _reconnect(self) -> None:
        """DISCONNECT (after the acknowledgements written so far) and connect again, resuming
        the session: the broker sends the unacknowledged messages again."""
        self._give_back = False
        _log.info(
            "MQTT: reconnecting so that the broker redelivers what was given back"
        )
        with self._net:
            self._generation += 1
            _disconnect(self._client, _DISCONNECT_TIMEOUT, threaded=False)
            self._client.on_disconnect = self._on_disconnect
            self._inbox.clear()  # sent again by the broker
            self._dial_at = 0.0
            self._redial(0.0)

    def close(self, timeout: float = 10.0) -> None:
        """Disconnect once the broker has the acknowledgements sent so far (unacknowledged
        messages stay with a persistent session).

        The broker keeps publishing until it reads the DISCONNECT, and a socket closed with
        unread data is reset, which can drop what the broker had not read yet: so the
        acknowledgements are confirmed first by a round trip (an UNSUBSCRIBE of a filter the
        client never subscribed to, answered after everything sent before it).
        """
        self._closing = True
        self._stopped.set()
        keeper = getattr(self, "_keeper", None)
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout)
        with self._net:
            synced = threading.Event()
            self._client.on_unsubscribe = lambda *args: synced.set()
            rc, _ = self._client.unsubscribe(_SYNC_FILTER)
            if rc == paho.MQTT_ERR_SUCCESS:
                _drive(self._client, synced, timeout)
            _disconnect(self._client, timeout, threaded=False)
