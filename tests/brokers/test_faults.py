"""Services under faults, against private brokers (never the machine's own): a stream of
numbered orders from a producer endpoint to a consuming service (its own process, serving the
consumer endpoint's receiver) while the service is killed with kill -9 or stopped with SIGTERM
(and started again), while the broker restarts three times, or while the handler raises on the
first attempt of some orders. Counted per binding and fault: lost (orders the server confirmed
that no handler completed) must be 0, and duplicates at most the receiver's window of
unacknowledged messages per fault, plus what went in twice (orders the producer sent again
because their fate was unknown when the connection dropped, and paho's in-flight window that
it publishes again after a reconnect). Core NATS delivers at most once: the server delivers
nothing twice and takes nothing back (a raising handler is called again in the service's
process, as on every binding), and what is published while the service is subscribed arrives.

Kafka runs on Tansu, which keeps its log in memory: a restart empties it, so the Kafka restart
run lets the service catch up before each restart and checks that both clients reconnect and
the stream goes on (what a restart keeps is the broker's business). HTTP has no broker: the
service is the server, and its faults are the service's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from netutil import free_port

from .conftest import (
    HOST,
    KAFKA_CONSUMER,
    ServerProcess,
    unique,
    wait_until,
)
from .faults import (
    Binding,
    Outcome,
    Service,
    generate,
    kill9,
    report,
    restarting,
    run_stream,
    sigterm,
)

pytestmark = pytest.mark.brokers

#: orders per stream, and per second
COUNT = 2000
RATE = 800.0
FAST = 10_000.0
#: the receivers' windows of unacknowledged messages; an MQTT receiver reads a message only
#: when it has none in hand (docs/endpoints.md): one
WINDOW = 50
MQTT_WINDOW = 1
#: paho's in-flight window of a sender (published again after a reconnect)
PAHO_IN_FLIGHT = 20


@pytest.fixture(scope="module")
def flt(tmp_path_factory: pytest.TempPathFactory, generated: Any) -> ModuleType:
    return generate(tmp_path_factory, generated)


def _where(server: ServerProcess | None, port: int | None = None) -> dict[str, Any]:
    run = unique("f").replace("-", "_")
    return {"host": HOST, "port": str(server.port if server else port), "run": run}


def mqtt(version: str, server: ServerProcess) -> Binding:
    return Binding(
        version,
        f"flt.{version}.out",
        f"flt.{version}.in",
        _where(server),
        receiver={"client_id": unique("svc"), "receive_maximum": WINDOW},
        window=MQTT_WINDOW,
        sender_window=PAHO_IN_FLIGHT,
    )


def amqp(server: ServerProcess) -> Binding:
    where = {**_where(server), "username": "guest", "password": "guest"}
    return Binding(
        "amqp",
        "flt.amqp.out",
        "flt.amqp.in",
        where,
        receiver={"prefetch": WINDOW},
        window=WINDOW,
        durable=True,
    )


def nats(server: ServerProcess, jetstream: bool) -> Binding:
    name = "js" if jetstream else "nats"
    return Binding(
        "nats-js" if jetstream else "nats",
        f"flt.{name}.out",
        f"flt.{name}.in",
        _where(server),
        asynchronous=True,
        window=WINDOW,
        at_most_once=not jetstream,
    )


def kafka(server: ServerProcess) -> Binding:
    return Binding(
        "kafka",
        "flt.kafka.out",
        "flt.kafka.in",
        _where(server),
        receiver={"config": KAFKA_CONSUMER},
        window=1,
    )


def http() -> Binding:
    port = free_port()
    return Binding(
        "http", "flt.http.hook", "flt.http.hook", _where(None, port), port=port
    )


def _check(result: Outcome, binding: Binding, fault: str, faults: int) -> None:
    report([result.row(binding.name, fault)])
    assert not result.dead, result.dead
    if binding.at_most_once:  # nothing twice
        assert result.duplicates == 0
        return
    assert result.confirmed == result.sent
    assert not result.lost, sorted(result.lost)[:20]
    # what the receiver held unacknowledged at each fault, and what went in twice: sent
    # again by the producer (its fate unknown) or by the sender's client after a reconnect
    bound = (binding.window + binding.sender_window) * faults + result.resent
    assert result.duplicates <= bound, result


# ------------------------------------------------------------------ the bindings with a broker


@pytest.fixture(params=["mqtt5", "mqtt3", "amqp", "nats-js", "kafka", "http"])
def binding(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Binding]:
    name = request.param
    if name in ("mqtt5", "mqtt3"):
        server = request.getfixturevalue("private_mosquitto")
        yield mqtt(name, server)
    elif name == "amqp":
        yield amqp(request.getfixturevalue("private_rabbitmq"))
    elif name == "nats-js":
        yield nats(request.getfixturevalue("private_nats"), jetstream=True)
    elif name == "kafka":
        yield kafka(request.getfixturevalue("private_tansu"))
    else:
        yield http()


def _stream(flt: ModuleType, binding: Binding, folder: Path, **kw: Any) -> Outcome:
    return run_stream(flt, binding, folder, count=COUNT, rate=RATE, **kw)


def test_kill9_of_the_service(
    flt: ModuleType, binding: Binding, tmp_path: Path
) -> None:
    # sent faster than the service handles: it holds a full window when it is killed
    result = run_stream(
        flt, binding, tmp_path, count=COUNT, rate=FAST, faults=[(1 / 3, kill9)]
    )
    _check(result, binding, "kill -9", 1)


def test_sigterm_of_the_service(
    flt: ModuleType, binding: Binding, tmp_path: Path
) -> None:
    result = _stream(flt, binding, tmp_path, faults=[(1 / 3, sigterm)])
    # SIGTERM finishes and acknowledges the message in hand: nothing handled twice
    _check(result, binding, "SIGTERM", 0)


def test_raising_handler(flt: ModuleType, binding: Binding, tmp_path: Path) -> None:
    fail = {f"m-{i}" for i in range(0, COUNT, 200)}
    result = _stream(flt, binding, tmp_path, faults=[], fail=fail)
    # each failed attempt gives its message back, with what the receiver held after it
    _check(result, binding, "raising", len(fail))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mqtt5", "mqtt3", "amqp", "nats-js", "kafka"])
def test_broker_restarts_three_times(
    flt: ModuleType, name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    fixture = {
        "mqtt5": "private_mosquitto", "mqtt3": "private_mosquitto",
        "amqp": "private_rabbitmq", "nats-js": "private_nats", "kafka": "private_tansu",
    }[name]  # fmt: skip
    server: ServerProcess = request.getfixturevalue(fixture)
    binding = {
        "mqtt5": lambda: mqtt("mqtt5", server), "mqtt3": lambda: mqtt("mqtt3", server),
        "amqp": lambda: amqp(server), "nats-js": lambda: nats(server, True),
        "kafka": lambda: kafka(server),
    }[name]()  # fmt: skip
    # Tansu keeps its log in memory: restart once the service caught up
    restart = restarting(server, caught_up=name == "kafka")
    faults = [(share, restart) for share in (0.25, 0.5, 0.75)]
    result = _stream(flt, binding, tmp_path, faults=faults)
    _check(result, binding, "restart x3", 3)


# ------------------------------------------------------------------ core NATS: at most once


def test_core_nats_delivers_at_most_once(
    flt: ModuleType, private_nats: ServerProcess, tmp_path: Path
) -> None:
    """kill -9, SIGTERM, a server restart and a raising handler: the server delivers nothing
    twice, a message whose handler raised is handled by the serving loop's retry in the
    process (not delivered again by the server), and a stream published while the service is
    subscribed arrives whole."""
    binding = nats(private_nats, jetstream=False)
    fail = {"m-10"}
    # early enough that what is lost while the service is down leaves the later shares
    faults = [(0.15, kill9), (0.3, sigterm), (0.45, restarting(private_nats))]
    result = run_stream(
        flt, binding, tmp_path, count=COUNT, rate=RATE, faults=faults, fail=fail
    )
    _check(result, binding, "all", 3)
    service = Service(flt, binding, tmp_path, fail)
    # delivered once (published before the faults, while the service was subscribed): the
    # first handler call raised, the loop called it again in the process (``Retry()``: up to
    # 3 calls) and the second call handled it; nothing went to the dead letter
    assert service.raises() == ["m-10"]
    assert service.handled().count("m-10") == 1
    assert not service.dead_letters()
    quiet = Service(flt, dataclasses.replace(binding, name="nats-quiet"), tmp_path)
    quiet.start()
    try:
        from .faults import Producer

        producer = Producer(flt, binding, 0)
        ids = [f"q-{i}" for i in range(500)]
        producer.send(ids)
        wait_until(lambda: set(ids) <= set(quiet.handled()), 30, "the quiet stream")
    finally:
        quiet.stop()
    assert sorted(quiet.handled()) == sorted(ids)  # whole, once each
