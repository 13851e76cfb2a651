"""Client adapters: move wire messages between the codecs and real client libraries.

Adapters only move ``*Message`` values (``bindings``): encoding stays in ``bindings/``, matching
and validation in the dispatchers. Each adapter module imports its client library when the
module itself is imported, so ``import <package>`` never needs any client library; import
the adapter you use (``from <package>.adapters import kafka``).

Uniform API (every module; docs/serving.md):

- ``<X>Sender``: ``send(msg)`` hands one wire message to the client and returns what confirms
  it: a blocking sender a ``concurrent.futures.Future[Receipt]`` (resolved when the server
  confirmed the message; never flushing per message), an asyncio sender the ``Receipt`` when
  awaited; a refusal is a ``SendError`` (``_sender``). ``flush(timeout)`` waits until
  everything sent so far is confirmed (raises on failures), ``close()``; senders are context
  managers. A sender built with an ``encoder`` (as an endpoint's ``sender()`` builds it) also
  takes typed events and encodes them. The HTTP adapter's ``send`` returns the response
  itself; an endpoint's HTTP sender returns receipts (``bindings/http/_receipts.py``).
- ``<X>Receiver``: ``run(on_message, stop=None, max_messages=None, idle_timeout=None,
  concurrency=1, retry=None) -> int`` calls ``on_message`` (a dispatcher, its ``dispatch`` or
  ``dispatch_async``, or a callable; awaited when async) for each message and acknowledges it
  (commit/ack/accept/PUBACK) only after the handler or its dead letter completed (``_serve``,
  ``_handling``): ``HandlerError`` is retried per ``retry`` then dead-lettered; a dead letter
  not delivered (``DispatchResult.settled`` false) gives the message back; any other exception
  gives it back and propagates. ``stop`` is a ``threading.Event`` (``asyncio.Event`` for the
  async adapters); in the main thread SIGTERM and SIGINT stop ``run`` after the messages in
  hand (``handle_signals``); ``concurrency`` keeps that many messages in hand (async handlers
  as tasks, synchronous ones in threads), acknowledging in arrival order. ``run`` returns the
  number of messages handled. Receivers are context managers.
- ``_bridge`` gives each the other shape: a blocking one for the asyncio NATS adapters, an
  asyncio one for the blocking adapters.

Connections (``_connection``): every client connects within a connect timeout or raises
``ConnectFailed`` naming the server; it reconnects by itself with backoff when the connection
drops; a sender raises ``NotConnected`` at once while it is down. A receiver holds a bounded
window of unacknowledged messages (AMQP ``prefetch``, MQTT ``receive_maximum``, JetStream
``max_ack_pending``), so a restart redelivers at most that window.

Endpoints (``xrgen_runtime.endpoints``) configure these adapters from a catalog; each binding's
knowledge of that lives in ``endpoint.py`` beside its adapter (``bindings/<x>/``).

Modules:

- ``kafka``: ``KafkaSender(config)`` (confluent-kafka ``Producer``; ``send`` returns a
  ``concurrent.futures.Future[KafkaDelivery]``, delivery reports also go to ``on_delivery``),
  ``KafkaReceiver(config, topics, partitions=None)`` (``Consumer``; offsets stored after
  handling, committed by the client, when ``run`` returns and on close; each one at once with
  ``enable.auto.commit`` false).
- ``mqtt``: ``MqttSender(host, port, version="5.0"|"3.1.1", ...)`` (paho-mqtt 2.x; ``send``
  returns a future of the PUBACK), ``MqttReceiver(host, port, topics, ...)`` (manual PUBACK
  after handling, persistent session with ``client_id``); both take the ``Connection``
  settings (clean start, session expiry, login, TLS, websockets, will).
- ``amqp``: ``AmqpSender(url, address=None, link=...)``, ``AmqpReceiver(url, address,
  link=...)`` (python-qpid-proton, one connection thread per client (``bindings/amqp/_io.py``);
  properties, application-properties with native AMQP types, message annotations and header
  are preserved; accept after handling, release on failure; ``LinkSettings``: terminus and
  settle settings; ``connect_options``: SASL, TLS, properties).
- ``nats``: async. ``NatsSender``, ``NatsReceiver`` (core NATS) and ``JetStreamSender``,
  ``JetStreamReceiver`` (durable pull consumer, ack after handling, nak on failure);
  ``await X.connect(servers, ...)``; ``ensure_stream`` (create a stream or ``JetStreamError``).
- ``http``: ``HttpSender(base_url)`` / ``AsyncHttpSender(base_url)`` (httpx; ``send`` returns the
  response as an ``HttpMessage`` with ``status``), ``AsgiReceiver(on_message)``, an ASGI 3
  application that turns each request into an ``HttpMessage`` and answers 202 (or the
  ``HttpMessage`` that ``on_message`` returns; optionally restricted to one method, path and
  authorization), and ``HttpPullReceiver(base_url)``, which requests messages.
- ``pulsar``: ``PulsarSender(service_url)``, ``PulsarReceiver(service_url, topics,
  subscription)`` (pulsar-client; acknowledge after handling, negative-acknowledge on failure).
- ``rocketmq``: ``to_rocketmq_message(msg)``, ``from_rocketmq_message(view)``,
  ``RocketMqSender(endpoints, topics)`` and ``RocketMqReceiver(endpoints, group, topics)``
  (rocketmq-python-client v5, gRPC proxy protocol).

Each binding's adapter is the module ``adapter`` of its package (``bindings/<x>/adapter.py``,
``xrgen_runtime.bindings.BINDINGS[name].adapter_module``); the modules here
(``xrgen_runtime.adapters.kafka``, ...) re-export those of the bundled bindings. Shared here:
``_sender`` holds what the senders
share (``Receipt`` and ``SendError``, exported here; ``close`` flushes, then releases the
client; context managers), ``_loop`` the receive loops.
"""

from ._sender import Receipt, SendError

__all__ = ["Receipt", "SendError"]
