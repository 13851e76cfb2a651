"""The harness of the fault tests: a catalog with a producer and a consumer endpoint per
binding, the consuming service as a process of its own (``fault_service.py``), a producer that
sends a stream of numbered orders and sends each again until the server confirmed it, and the
count of what the service handled: lost (confirmed, never handled) and duplicates (handled more
than once)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .conftest import HOST, wait_port, wait_until
from .endpoints_catalog import ORDER_SCHEMA

SERVICE = Path(__file__).with_name("fault_service.py")


def _endpoint(
    usage: str,
    protocol: str,
    uri: str,
    options: dict[str, Any],
    mode: str | None = None,
) -> dict[str, Any]:
    entry = {"bootstrap.servers": [uri]} if protocol == "KAFKA" else {"uri": uri}
    out: dict[str, Any] = {
        "usage": [usage],
        "protocol": protocol,
        "protocoloptions": {"endpoints": [entry], **options},
        "messagegroups": ["/messagegroups/flt.orders"],
        "envelope": "CloudEvents/1.0",
    }
    if mode is not None:
        out["envelopeoptions"] = {"mode": mode}
    return out


MQTT = "mqtt://{host}:{port}"
CATALOG: dict[str, Any] = {
    "messagegroups": {
        "flt.orders": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                "flt.Order": {
                    "messageid": "flt.Order",
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {
                        "type": {"value": "flt.Order"},
                        "source": {"value": "/faults"},
                    },
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": {**ORDER_SCHEMA, "title": "Order"},
                }
            },
        }
    },
    "endpoints": {
        "flt.mqtt5.out": _endpoint(
            "producer", "MQTT/5.0", MQTT, {"topic": "flt/{run}/orders", "qos": 1}
        ),
        "flt.mqtt5.in": _endpoint(
            "consumer",
            "MQTT/5.0",
            MQTT,
            {"topicfilter": "flt/{run}/+", "qos": 1, "cleanstart": False,
             "sessionexpiryinterval": 3600},
        ),
        "flt.mqtt3.out": _endpoint(
            "producer", "MQTT/3.1.1", MQTT, {"topic": "flt3/{run}/orders", "qos": 1},
            mode="structured",
        ),
        "flt.mqtt3.in": _endpoint(
            "consumer", "MQTT/3.1.1", MQTT,
            {"topicfilter": "flt3/{run}/+", "qos": 1, "cleansession": False},
            mode="structured",
        ),
        # RabbitMQ declares the queue durable when the terminus is (a restart keeps it)
        "flt.amqp.out": _endpoint(
            "producer", "AMQP/1.0", "amqp://{host}:{port}",
            {"node": "/queue/flt-{run}", "durable": True,
             "terminus-durability": "configuration"},
        ),
        "flt.amqp.in": _endpoint(
            "consumer", "AMQP/1.0", "amqp://{host}:{port}",
            {"node": "/queue/flt-{run}", "terminus-durability": "configuration"},
        ),
        "flt.nats.out": _endpoint(
            "producer", "NATS", "nats://{host}:{port}", {"subject": "flt.{run}.orders"}
        ),
        "flt.nats.in": _endpoint(
            "consumer", "NATS", "nats://{host}:{port}", {"subjectfilter": "flt.{run}.>"}
        ),
        "flt.js.out": _endpoint(
            "producer", "NATS", "nats://{host}:{port}",
            {"subject": "fltjs.{run}.orders",
             "jetstream": {"stream": "FLT_{run}", "create": True,
                           "subjects": ["fltjs.{run}.>"], "storage": "file"}},
        ),
        "flt.js.in": _endpoint(
            "consumer", "NATS", "nats://{host}:{port}",
            {"subjectfilter": "fltjs.{run}.>",
             "jetstream": {"stream": "FLT_{run}", "create": True, "durable": "w_{run}",
                           "ackwait": 2, "maxackpending": 50}},
        ),
        "flt.kafka.out": _endpoint(
            "producer", "KAFKA", "{host}:{port}", {"topic": "flt-{run}", "acks": -1}
        ),
        "flt.kafka.in": _endpoint(
            "consumer", "KAFKA", "{host}:{port}",
            {"topic": "flt-{run}", "consumergroup": "g-{run}", "autooffsetreset": "earliest",
             "enableautocommit": False},
        ),
        "flt.http.hook": _endpoint(
            "producer", "HTTP", "http://{host}:{port}/flt/{run}", {"method": "POST"}
        ),
    },
}  # fmt: skip


def generate(tmp_path_factory: Any, generated: Any) -> ModuleType:
    path = tmp_path_factory.mktemp("faults") / "flt.json"
    path.write_text(json.dumps(CATALOG, indent=2))
    return generated(path, package="flt_endpoints")  # type: ignore[no-any-return]


@dataclass
class Binding:
    """One binding's endpoints and the settings of a run."""

    name: str
    out: str
    into: str
    #: placeholder values (and client settings) of both endpoints
    where: dict[str, Any]
    #: more keyword arguments of the service's receiver
    receiver: dict[str, Any] = field(default_factory=dict)
    asynchronous: bool = False
    #: the unacknowledged messages the receiver may hold: what one fault may duplicate
    window: int = 1
    #: messages the sender's client publishes again by itself after a reconnect (paho's
    #: in-flight window): what one fault may duplicate on the way in
    sender_window: int = 0
    #: HTTP: the service serves on this port
    port: int | None = None
    #: core NATS: at most once (nothing redelivered)
    at_most_once: bool = False
    #: AMQP: send durable messages (the header field), which a broker keeps across a restart
    durable: bool = False


class Service:
    """The consuming service's processes (one per start) and what they handled."""

    def __init__(
        self, pkg: ModuleType, binding: Binding, folder: Path, fail: Iterable[str] = ()
    ) -> None:
        self.binding = binding
        self.log = folder / f"{binding.name}-handled.log"
        self.dead = folder / f"{binding.name}-dead.log"
        #: the ids in ``fail`` whose handler raised, once per raise
        self.raised = folder / f"{binding.name}-raised.log"
        self.stderr = folder / f"{binding.name}-service.err"
        settings: dict[str, Any] = {
            "path": str(Path(pkg.__file__ or "").parents[1]),
            "package": pkg.__name__,
            "endpoint": binding.into,
            "arguments": {**binding.where, **binding.receiver},
            "log": str(self.log),
            "dead": str(self.dead),
            "raised": str(self.raised),
            "fail": sorted(fail),
            "asynchronous": binding.asynchronous,
        }
        if binding.port is not None:
            settings["port"] = binding.port
        self.settings = json.dumps(settings)
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0

    def start(self) -> None:
        with self.stderr.open("a") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(SERVICE), self.settings],
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
            )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", f"the service did not start: {self.errors()}"
        if self.binding.port is not None:
            wait_port(self.binding.port, proc=self.proc)  # type: ignore[arg-type]
        self.starts += 1

    def signal(self, sig: int) -> int:
        """Send ``sig``; return the exit code."""
        assert self.proc is not None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(60)
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            code = self.signal(signal.SIGTERM)
            assert code == 0, f"SIGTERM: exit {code}: {self.errors()}"

    def handled(self) -> list[str]:
        if not self.log.exists():
            return []
        return self.log.read_text().split()

    def raises(self) -> list[str]:
        return self.raised.read_text().split() if self.raised.exists() else []

    def dead_letters(self) -> list[str]:
        return self.dead.read_text().splitlines() if self.dead.exists() else []

    def errors(self) -> str:
        return self.stderr.read_text()[-3000:] if self.stderr.exists() else ""


class Producer:
    """Sends ``order_id`` ``m-0`` ... ``m-(count-1)`` at about ``rate`` per second from a thread
    of its own, each again until the server confirmed it (a future's result, a PubAck, a 2xx
    answer; for core NATS a flush after it); ``confirmed`` holds the confirmed ids."""

    def __init__(
        self, pkg: ModuleType, binding: Binding, count: int, rate: float = 500.0
    ) -> None:
        self.pkg = pkg
        self.binding = binding
        self.ids = [f"m-{i}" for i in range(count)]
        self.rate = rate
        self.confirmed: set[str] = set()
        self.resent = 0
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def order(self, order_id: str) -> Any:
        return self.pkg.MESSAGES["flt.Order"].create(
            {"order_id": order_id, "total": 1.0}
        )

    def start(self) -> None:
        self.thread.start()

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the producer did not finish"
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        try:
            if self.binding.asynchronous:
                asyncio.run(self._run_async(self.ids))
            else:
                self._run_sync(self.ids)
        except BaseException as exc:  # reported by join
            self.error = exc

    def send(self, ids: list[str]) -> None:
        """Send ``ids`` now (in the caller's thread), each until confirmed."""
        if self.binding.asynchronous:
            asyncio.run(self._run_async(ids))
        else:
            self._run_sync(ids)

    def _pace(self, start: float, sent: int) -> None:
        ahead = sent / self.rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)

    # ------------------------------------------------------------------ MQTT, AMQP, Kafka, HTTP

    def _sender(self) -> Any:
        deadline = time.monotonic() + 120
        while True:
            try:
                return self.pkg.ENDPOINTS[self.binding.out].sender(**self.binding.where)
            except ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def _send_sync(self, sender: Any, order_id: str) -> Future[Any]:
        message = self.order(order_id)
        if self.binding.durable:
            from xrgen_runtime.bindings import amqp

            wire = amqp.encode(message)
            message = dataclasses.replace(wire, header={**wire.header, "durable": True})
        result = sender.send(message)
        if isinstance(result, Future):
            return result
        future: Future[Any] = Future()  # HTTP: the answer
        if 200 <= result.status < 300:
            future.set_result(result)
        else:
            future.set_exception(RuntimeError(f"HTTP {result.status}"))
        return future

    def _run_sync(self, ids: list[str]) -> None:
        from xrgen_runtime.adapters._connection import NotConnected

        sender = self._sender()
        todo = deque(ids)
        pending: deque[tuple[str, Future[Any]]] = deque()
        start, sent = time.monotonic(), 0
        try:
            while todo or pending:
                while pending and (
                    pending[0][1].done() or not todo or len(pending) > 200
                ):
                    order_id, future = pending.popleft()
                    try:
                        future.result(120)
                        self.confirmed.add(order_id)
                    except Exception:
                        self.resent += 1
                        todo.append(order_id)
                if not todo:
                    continue
                order_id = todo.popleft()
                try:
                    pending.append((order_id, self._send_sync(sender, order_id)))
                    sent += 1
                    self._pace(start, sent)
                except NotConnected:
                    todo.appendleft(order_id)
                    time.sleep(0.05)
        finally:
            try:
                sender.close()
            except Exception:  # noqa: S110 - the failures were the futures', seen above
                pass

    # ------------------------------------------------------------------ NATS

    async def _run_async(self, ids: list[str]) -> None:
        deadline = time.monotonic() + 120
        while True:
            try:
                sender = await self.pkg.ENDPOINTS[self.binding.out].async_sender(
                    **self.binding.where
                )
                break
            except ConnectionError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        todo = deque(ids)
        batch: list[str] = []
        start, sent = time.monotonic(), 0
        try:
            while todo or batch:
                if todo:
                    order_id = todo.popleft()
                    try:
                        ack = await sender.send(self.order(order_id))
                    except Exception:  # down, or no PubAck in time: send it again
                        self.resent += 1
                        todo.appendleft(order_id)
                        await asyncio.sleep(0.05)
                        continue
                    sent += 1
                    if ack is not None:  # JetStream: stored
                        self.confirmed.add(order_id)
                    else:
                        batch.append(order_id)
                    ahead = sent / self.rate - (time.monotonic() - start)
                    if ahead > 0:
                        await asyncio.sleep(ahead)
                if batch and (len(batch) >= 50 or not todo):
                    try:  # core NATS: the server has what was published before a flush
                        await sender.flush(5)
                        self.confirmed.update(batch)
                    except Exception:
                        self.resent += len(batch)
                        todo.extend(batch)
                    batch = []
        finally:
            await sender.close()


#: a fault applied to a running stream
Fault = Callable[["Service", "Producer"], None]


@dataclass
class Outcome:
    """What a run counted."""

    sent: int
    confirmed: int
    handled: int
    lost: set[str]
    duplicates: int
    resent: int
    dead: list[str]

    def row(self, binding: str, fault: str) -> str:
        return (
            f"{binding:8} {fault:10} confirmed {self.confirmed:5} handled {self.handled:5} "
            f"lost {len(self.lost):3} duplicates {self.duplicates:4} resent {self.resent:4}"
        )


def outcome(producer: Producer, service: Service) -> Outcome:
    handled = service.handled()
    counts = Counter(h for h in handled if h.startswith("m-"))
    return Outcome(
        sent=len(producer.ids),
        confirmed=len(producer.confirmed),
        handled=len(counts),
        lost=producer.confirmed - set(counts),
        duplicates=sum(counts.values()) - len(counts),
        resent=producer.resent,
        dead=service.dead_letters(),
    )


def run_stream(
    pkg: ModuleType,
    binding: Binding,
    folder: Path,
    *,
    count: int,
    faults: list[tuple[float, Fault]],
    fail: Iterable[str] = (),
    rate: float = 500.0,
) -> Outcome:
    """Serve, send ``count`` orders, and apply each fault when the service has handled that
    share of them; then wait until every confirmed order was handled (at most once: until
    the stream is quiet) and stop the service with SIGTERM.

    At most once, what is published while the service is down is lost, so the handled
    share may never come: there a fault comes when the producer has sent that share and the
    service has handled an order since the previous fault (or the stream has ended)."""
    service = Service(pkg, binding, folder, fail)
    service.start()
    producer = Producer(pkg, binding, count, rate)
    try:
        producer.start()
        mark = 0  # orders handled when the previous fault came
        for share, fault in faults:

            def reached(share: float = share, mark: int = mark) -> bool:
                if producer.error is not None:
                    raise producer.error
                handled = service.handled()
                if len(set(handled)) >= share * count:
                    return True
                return (
                    binding.at_most_once
                    and len(producer.confirmed) >= share * count
                    and (len(handled) > mark or not producer.thread.is_alive())
                )

            wait_until(reached, 120, f"{share:.0%} handled ({service.errors()[-500:]})")
            mark = len(service.handled())
            fault(service, producer)
        producer.join(300)
        if binding.at_most_once:
            last = -1
            while len(service.handled()) != last:
                last = len(service.handled())
                time.sleep(1.0)
        else:
            wait_until(
                lambda: producer.confirmed <= set(service.handled()),
                120,
                f"every confirmed order handled ({service.errors()[-500:]})",
            )
    finally:
        service.stop()
    return outcome(producer, service)


def kill9(service: Service, producer: Producer) -> None:
    """kill -9 of the service mid-stream, then a new one."""
    assert service.signal(signal.SIGKILL) == -signal.SIGKILL
    service.start()


def sigterm(service: Service, producer: Producer) -> None:
    """SIGTERM of the service mid-stream (it must exit 0), then a new one."""
    code = service.signal(signal.SIGTERM)
    assert code == 0, f"SIGTERM: exit {code}: {service.errors()}"
    service.start()


def restarting(server: Any, gap: float = 1.5, caught_up: bool = False) -> Fault:
    """A restart of the private broker ``server`` (the service keeps running), at least
    ``gap`` seconds after the previous one (once the clients are back and the broker has
    sent what it kept); ``caught_up``: only once the service has handled every order
    confirmed so far (a broker that keeps nothing across a restart)."""
    last = [0.0]

    def restart(service: Service, producer: Producer) -> None:
        time.sleep(max(0.0, last[0] + gap - time.monotonic()))
        if caught_up:
            confirmed = set(producer.confirmed)
            wait_until(lambda: confirmed <= set(service.handled()), 60, "caught up")
        server.restart()
        last[0] = time.monotonic()

    return restart


def report(rows: list[str]) -> None:
    """The fault table, for the test log (``-s``) and ``XRGEN_FAULT_TABLE``."""
    path = os.environ.get("XRGEN_FAULT_TABLE")
    if path:
        with open(path, "a") as out:
            out.write("\n".join(rows) + "\n")
    print("\n".join(rows))


__all__ = [
    "HOST",
    "Binding",
    "Outcome",
    "Producer",
    "Service",
    "generate",
    "kill9",
    "report",
    "restarting",
    "run_stream",
    "sigterm",
]
