"""Connecting: a server that refuses or does not answer is an ``EndpointConnectFailed`` within
the connect timeout, naming the endpoint, the host and the port, on every binding; while the
connection is down a sender refuses at once (``NotConnected``) with one warning for the
outage, and sends go through again once the server is back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Iterator
from concurrent.futures import Future
from types import ModuleType
from typing import Any

import pytest
from netutil import free_port
from xrgen_runtime.endpoints import EndpointConnectFailed

from .conftest import HOST, ServerProcess, unique, wait_until
from .faults import generate

pytestmark = pytest.mark.brokers

#: binding -> (producer endpoint, consumer endpoint) of the fault catalog
ENDPOINTS = {
    "mqtt": ("flt.mqtt5.out", "flt.mqtt5.in"),
    "amqp": ("flt.amqp.out", "flt.amqp.in"),
    "nats": ("flt.nats.out", "flt.nats.in"),
    "jetstream": ("flt.js.out", "flt.js.in"),
    "kafka": ("flt.kafka.out", "flt.kafka.in"),
}


@pytest.fixture(scope="module")
def flt(tmp_path_factory: pytest.TempPathFactory, generated: Any) -> ModuleType:
    return generate(tmp_path_factory, generated)


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port that accepts TCP connections and never answers."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        s.listen()
        yield int(s.getsockname()[1])


def _client(flt: ModuleType, endpoint: str, port: int) -> Any:
    ep = flt.ENDPOINTS[endpoint]
    where: dict[str, Any] = {
        "host": HOST,
        "port": str(port),
        "run": "r",
        "connect_timeout": 1,
    }
    if endpoint == "flt.mqtt5.in":  # a persistent session has a name
        where["client_id"] = "c"
    made = ep.receiver(**where) if endpoint.endswith(".in") else ep.sender(**where)
    if hasattr(made, "__await__"):

        async def connect() -> Any:
            return await made

        return asyncio.run(connect())
    return made


@pytest.mark.parametrize("binding", sorted(ENDPOINTS))
@pytest.mark.parametrize("server", ["refusing", "silent"])
def test_a_server_that_is_not_there(flt: ModuleType, binding: str, server: str) -> None:
    for endpoint in ENDPOINTS[binding]:
        with contextlib.ExitStack() as stack:
            port = (
                free_port()
                if server == "refusing"
                else stack.enter_context(silent_server())
            )
            start = time.monotonic()
            with pytest.raises(EndpointConnectFailed) as failed:
                _client(flt, endpoint, port)
            assert time.monotonic() - start < 8  # bounded by the connect timeout (1 s)
            assert str(failed.value).startswith(
                f"endpoint {endpoint!r}: cannot connect to {HOST}:{port}: "
            ), str(failed.value)


@pytest.mark.parametrize("binding", ["mqtt", "kafka"])
def test_a_sender_refuses_while_down_and_goes_on_after(
    flt: ModuleType,
    binding: str,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from xrgen_runtime.adapters.kafka import NotConnected

    server: ServerProcess = request.getfixturevalue(
        "private_mosquitto" if binding == "mqtt" else "private_tansu"
    )
    where = {"host": HOST, "port": str(server.port), "run": unique("c")}
    create = flt.MESSAGES["flt.Order"].create

    def offer(order_id: str) -> Future[Any] | None:
        """The send's future, or ``None`` when the sender refused it (``NotConnected``)."""
        try:
            return s.send(create({"order_id": order_id, "total": 1.0}))
        except NotConnected:
            return None

    def send(order_id: str) -> bool:
        future = offer(order_id)
        if future is None:
            return False
        future.result(30)
        return True

    #: messages sent after the broker stopped, before the client noticed: queued, not refused
    queued: list[Future[Any]] = []

    def refused(order_id: str) -> bool:
        future = offer(order_id)
        if future is not None:
            queued.append(future)
        return future is None

    with flt.ENDPOINTS[ENDPOINTS[binding][0]].sender(**where) as s:
        assert send("a")
        with caplog.at_level(logging.WARNING, logger="xrgen_runtime.adapters"):
            server.stop()
            wait_until(lambda: refused("b"), 30, "the outage noticed")
            start = time.monotonic()
            with pytest.raises(NotConnected, match="not sent"):
                s.send(create({"order_id": "c", "total": 1.0}))
            assert time.monotonic() - start < 0.5  # at once
            time.sleep(2.0)  # reconnect attempts meanwhile
            server.start()
            wait_until(lambda: send("d"), 60, "a send after the broker is back")
            for future in queued:  # the queued ones are delivered once it is back
                future.result(60)
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
