"""Client adapters: move wire messages between the codecs and real client libraries.

Adapters only move ``*Message`` values (``bindings``): encoding stays in ``bindings/``, matching
and validation in the dispatchers. Each adapter module imports its client library when the
module itself is imported, so ``import <package>`` never needs any client library; import
the adapter you use (``from <package>.adapters import kafka``).

Uniform API (every module):

- ``<X>Sender``: ``send(msg)`` hands one wire message to the client (asynchronous where the
  client batches: it returns a handle or future and never flushes per message), ``flush(timeout)``
  waits until everything sent so far is acknowledged by the server (raises on failures),
  ``close()``; senders are context managers. A sender built with an ``encoder`` (as an
  endpoint's ``sender()`` builds it) also takes typed events and encodes them.
- ``<X>Receiver``: ``receive(timeout) -> message | None`` for pull-style use, and
  ``run(on_message, stop=None, max_messages=None, idle_timeout=None) -> int`` which calls
  ``on_message(wire_message)`` for each message and acknowledges it (commit/ack/accept/PUBACK)
  only after ``on_message`` returned. ``on_message`` is typically a dispatcher's ``dispatch``
  (which never raises and dead-letters what it cannot handle). If ``on_message`` raises, the
  message is not acknowledged (it is released/negatively acknowledged where the protocol has
  that) and the exception propagates, so nothing is lost; ``HandlerError`` (a dispatcher that
  gives handler errors back) gives the message back and serving goes on. ``stop`` is a
  ``threading.Event`` (``asyncio.Event`` for the async adapters); in the main thread SIGTERM
  and SIGINT stop ``run`` after the message in hand (``handle_signals``); ``concurrency``
  runs that many async handlers at once, acknowledging in arrival order (``_serve``). ``run``
  returns the number of messages handled. Receivers are context managers.

Connections (``_connection``): every client connects within a connect timeout or raises
``ConnectFailed`` naming the server; it reconnects by itself with backoff when the connection
drops; a sender raises ``NotConnected`` at once while it is down. A receiver holds a bounded
window of unacknowledged messages (AMQP ``prefetch``, MQTT ``receive_maximum``, JetStream
``max_ack_pending``), so a restart redelivers at most that window.

Endpoints (``xrgen_runtime.endpoints``) configure these adapters from a catalog; each binding's
knowledge of that lives in ``_<binding>_endpoint.py`` beside its adapter.

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
  link=...)`` (python-qpid-proton, one connection thread per client (``_amqp_io``);
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

One module per binding, named by the binding's declaration
(``xrgen_runtime.bindings.BINDINGS[name].adapter_module``); ``_sender`` holds what the senders
share (``close`` flushes, then releases the client; context managers), ``_loop`` the receive
loops.
"""
