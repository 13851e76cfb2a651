"""Endpoints against the real servers: for every binding and role, a client built from
nothing but ``ENDPOINTS[...]`` and placeholder values sends and receives; a consumer restarted
mid-stream loses nothing it acknowledged; servers that require credentials get them from the
environment variables the endpoint names.

No URL, topic, subject, group or node appears here: the catalog (endpoints_catalog.py) holds
them, with placeholders for the servers' hosts and ports and a ``run`` id per test.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urljoin

import pytest
from netutil import free_port
from xrgen_runtime.bindings.http._receipts import HttpSendError

from .conftest import (
    HOST,
    KAFKA_CONSUMER,
    require_module,
    unique,
    wait_until,
)
from .endpoints_catalog import (  # noqa: F401  (fixtures)
    Inbox,
    amqp_login_fixture,
    amqp_where_fixture,
    endpoints_fixture,
    kafka_where_fixture,
    mqtt_where_fixture,
    nats_where_fixture,
    order,
    svc_fixture,
)

# ------------------------------------------------------------------------------ the package


# ------------------------------------------------------------------------------ Kafka


def test_kafka_producer_to_consumer(svc: ModuleType, EP: Any, kafka_where: dict[str, str]) -> None:
    with EP["svc.kafka.out"].sender(**kafka_where) as s:
        futures = [s.send(order(svc, i)) for i in range(5)]
        s.send(order(svc, 5, "svc.OrderCancelled"))
        s.flush()
    assert all(f.result().offset >= 0 for f in futures)
    inbox = Inbox(EP["svc.kafka.in"])
    with EP["svc.kafka.in"].receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        assert r.run(inbox.dispatcher.dispatch, max_messages=6, idle_timeout=30) == 6
    assert sorted(inbox.ids()) == [f"o-{i}" for i in range(6)]  # partitions: no total order
    assert sorted(e.type for e in inbox.events)[0] == "svc.OrderCancelled"
    assert not inbox.dead


def test_kafka_structured_producer_and_subscriber(
    svc: ModuleType, EP: Any, kafka_where: dict[str, str]
) -> None:
    with EP["svc.kafka.structured"].sender(**kafka_where) as s:
        s.send(order(svc, 1))
    subscriber = EP["svc.kafka.subscribe"]
    inbox = Inbox(subscriber)
    group = "new-" + kafka_where["run"]  # a subscriber establishes the group: the caller names it
    with subscriber.receiver(**kafka_where, consumergroup=group, config=KAFKA_CONSUMER) as r:
        wire: list[Any] = []

        def on_message(msg: Any) -> Any:
            wire.append(msg)
            return inbox.dispatcher.dispatch(msg)

        assert r.run(on_message, max_messages=1, idle_timeout=30) == 1
    assert dict(wire[0].headers)["content-type"] == b"application/cloudevents+json"
    assert inbox.ids() == ["o-1"]


def test_kafka_refuses_an_undeclared_message(
    svc: ModuleType, EP: Any, kafka_where: dict[str, str]
) -> None:
    from xrgen_runtime.bindings import kafka

    note = order(svc, 1, "svc.AuditNote")
    received: list[Any] = []
    with EP["svc.kafka.out"].sender(**kafka_where) as s:
        with pytest.raises(svc_error("MessageNotDeclared"), match="svc.AuditNote"):
            s.send(note)
        s.send(order(svc, 1))
    with EP["svc.kafka.in"].receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        r.run(received.append, max_messages=1, idle_timeout=30)
    with EP["svc.kafka.out"].sender(**kafka_where) as s:
        # a wire message is sent as it is, unchecked (here: to the topic it came from)
        wire = kafka.encode(note, topic=received[0].topic)
        assert s.send(wire).result(30).topic == received[0].topic


def svc_error(name: str) -> type[Exception]:
    from xrgen_runtime import endpoints

    return getattr(endpoints, name)  # type: ignore[no-any-return]


def test_kafka_consumer_restart_loses_nothing_acknowledged(
    svc: ModuleType, EP: Any, kafka_where: dict[str, str]
) -> None:
    with EP["svc.kafka.out"].sender(**kafka_where) as s:
        for i in range(20):
            s.send(order(svc, i))
    first, second = Inbox(EP["svc.kafka.in"]), Inbox(EP["svc.kafka.in"])
    with EP["svc.kafka.in"].receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        assert r.run(first.dispatcher.dispatch, max_messages=7, idle_timeout=30) == 7
    with EP["svc.kafka.in"].receiver(**kafka_where, config=KAFKA_CONSUMER) as r:
        r.run(second.dispatcher.dispatch, max_messages=13, idle_timeout=15)
    assert len(first.ids()) == 7
    # the second consumer starts after the first's commits: the rest, nothing twice
    assert sorted(first.ids() + second.ids()) == sorted(f"o-{i}" for i in range(20))


# ------------------------------------------------------------------------------ MQTT


@pytest.mark.parametrize(("out", "into"), [("svc.mqtt5.out", "svc.mqtt5.in"), ("svc.mqtt3.out", "svc.mqtt3.in")])
def test_mqtt_producer_to_subscriber(
    svc: ModuleType, EP: Any, mqtt_where: dict[str, str], out: str, into: str
) -> None:
    inbox = Inbox(EP[into])
    client_id = unique("sub")
    with EP[into].receiver(**mqtt_where, client_id=client_id) as r:
        with EP[out].sender(**mqtt_where) as s:
            for i in range(3):
                s.send(order(svc, i)).result(10)
        assert r.run(inbox.dispatcher.dispatch, max_messages=3, idle_timeout=10) == 3
    assert inbox.ids() == ["o-0", "o-1", "o-2"]
    assert not inbox.dead


def test_mqtt_persistent_session_restart_loses_nothing_acknowledged(
    svc: ModuleType, EP: Any, mqtt_where: dict[str, str]
) -> None:
    client_id = unique("sub")
    first, second = Inbox(EP["svc.mqtt3.in"]), Inbox(EP["svc.mqtt3.in"])
    with EP["svc.mqtt3.in"].receiver(**mqtt_where, client_id=client_id):
        pass  # the session (cleansession false) and its subscription now exist
    with EP["svc.mqtt3.out"].sender(**mqtt_where) as s:
        for i in range(10):
            s.send(order(svc, i)).result(10)
    with EP["svc.mqtt3.in"].receiver(**mqtt_where, client_id=client_id) as r:
        assert r.run(first.dispatcher.dispatch, max_messages=4, idle_timeout=10) == 4
    with EP["svc.mqtt3.in"].receiver(**mqtt_where, client_id=client_id) as r:
        r.run(second.dispatcher.dispatch, idle_timeout=3)
    assert first.ids() == [f"o-{i}" for i in range(4)]
    # unacknowledged messages of the first connection come again: nothing acknowledged twice
    assert set(second.ids()) == {f"o-{i}" for i in range(4, 10)}


# ------------------------------------------------------------------------------ AMQP


def test_amqp_producer_to_consumer_and_restart(
    svc: ModuleType, EP: Any, amqp_where: dict[str, str], amqp_login: None
) -> None:
    with EP["svc.amqp.out"].sender(**amqp_where) as s:
        for i in range(12):
            s.send(order(svc, i))
    first, second = Inbox(EP["svc.amqp.in"]), Inbox(EP["svc.amqp.in"])
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        assert r.run(first.dispatcher.dispatch, max_messages=5, idle_timeout=10) == 5
    with EP["svc.amqp.in"].receiver(**amqp_where) as r:
        r.run(second.dispatcher.dispatch, idle_timeout=2)
    assert first.ids() == [f"o-{i}" for i in range(5)]
    assert second.ids() == [f"o-{i}" for i in range(5, 12)]


# ------------------------------------------------------------------------------ NATS


def test_nats_producer_to_queue_group_subscriber(
    svc: ModuleType, EP: Any, nats_where: dict[str, str]
) -> None:
    inbox = Inbox(EP["svc.nats.in"])

    async def main() -> int:
        async with EP["svc.nats.in"].async_receiver(**nats_where) as r:
            async with EP["svc.nats.out"].async_sender(**nats_where) as s:
                for i in range(4):
                    await s.send(order(svc, i))
            return await r.run(inbox.dispatcher.dispatch_async, max_messages=4, idle_timeout=10)

    assert asyncio.run(main()) == 4
    assert inbox.ids() == ["o-0", "o-1", "o-2", "o-3"]


def test_nats_jetstream_durable_receiver(
    svc: ModuleType, EP: Any, nats_where: dict[str, str]
) -> None:
    run = nats_where["run"]
    inbox = Inbox(EP["svc.nats.in"])

    async def main() -> int:
        sender = await EP["svc.nats.out"].async_sender(**nats_where, jetstream=True)
        import nats

        nc = await nats.connect(f"nats://{nats_where['host']}:{nats_where['natsport']}")
        js = nc.jetstream()
        stream = "S" + run
        subjects = EP["svc.nats.in"].config(**nats_where)["subject"]
        await js.add_stream(name=stream, subjects=[subjects])
        try:
            for i in range(3):
                await sender.send(order(svc, i))
            await sender.close()
            async with EP["svc.nats.in"].async_receiver(
                **nats_where, durable="d" + run
            ) as r:
                return await r.run(inbox.dispatcher.dispatch_async, max_messages=3, idle_timeout=10)
        finally:
            await js.delete_stream(stream)
            await nc.close()

    assert asyncio.run(main()) == 3
    assert inbox.ids() == ["o-0", "o-1", "o-2"]


# ------------------------------------------------------------------------------ HTTP


@pytest.fixture
def http_where() -> dict[str, str]:
    return {"host": HOST, "httpport": str(free_port()), "run": unique("ep")}


class Outbox:
    """An ASGI application that answers each request with the next queued message (200),
    or 204 when none is left: the server side of a pull consumer."""

    def __init__(self, messages: list[Any]) -> None:
        self.messages = list(messages)
        self.requests: list[tuple[str, str]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.requests.append((scope["method"], scope["path"]))
        if not self.messages:
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        msg = self.messages.pop(0)
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in msg.headers]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": msg.body})


@contextlib.contextmanager
def serving(app: Any, port: int) -> Iterator[None]:
    uvicorn = require_module("uvicorn", "uvicorn")
    server = uvicorn.Server(uvicorn.Config(app, host=HOST, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, 10, "uvicorn start")
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(10)


def test_http_webhook_sender_to_served_endpoint(
    svc: ModuleType, EP: Any, http_where: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = EP["svc.http.hook"]
    monkeypatch.setenv("XRGEN_SVC_HTTP_HOOK_API_KEY", "key-" + http_where["run"])
    inbox = Inbox(hook)
    seen: list[Any] = []

    async def on_message(msg: Any) -> Any:
        seen.append(msg)
        return await inbox.dispatcher.dispatch_async(msg)

    app = hook.receiver(**http_where, on_message=on_message)
    with serving(app, int(http_where["httpport"])):
        with hook.sender(**http_where) as s:
            assert s.send(order(svc, 1)).result().status == 202
        with hook.sender(**http_where, api_key="wrong") as s:
            with pytest.raises(HttpSendError) as refused:  # the served endpoint checks the key
                s.send(order(svc, 2)).result()
            assert refused.value.response.status == 401

        async def send_async() -> int:
            async with hook.async_sender(**http_where) as s:
                return (await s.send(order(svc, 3))).status  # type: ignore[no-any-return]

        assert asyncio.run(send_async()) == 202
        # the served endpoint is one operation: its method, at its path
        import httpx

        config = hook.config(**http_where)
        key = dict(config["headers"])["X-Hook-Key"]
        base = config["base_url"]
        assert httpx.get(base, headers={"X-Hook-Key": key}).status_code == 405
        outside = httpx.post(urljoin(base, "../elsewhere"), headers={"X-Hook-Key": key})
        assert outside.status_code == 404
    assert inbox.ids() == ["o-1", "o-3"]
    assert ("X-Service", "billing") in [(k.title(), v) for k, v in seen[0].headers]


def test_the_response_read_on_a_sent_future_is_deprecated(
    svc: ModuleType, EP: Any, http_where: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``send(...).status`` of earlier releases still reads the response, with a warning
    (``send(...).result().status`` is the current form)."""
    hook = EP["svc.http.hook"]
    monkeypatch.setenv("XRGEN_SVC_HTTP_HOOK_API_KEY", "key-" + http_where["run"])
    inbox = Inbox(hook)
    app = hook.receiver(**http_where, on_message=inbox.dispatcher.dispatch_async)
    with serving(app, int(http_where["httpport"])), hook.sender(**http_where) as s:
        sent = s.send(order(svc, 1))
        with pytest.deprecated_call(match=r"result\(\)\.status"):
            assert sent.status == 202
        with pytest.deprecated_call(match=r"result\(\)\.headers"):
            assert sent.headers == sent.result().headers
    assert inbox.ids() == ["o-1"]


def test_http_pull_consumer(svc: ModuleType, EP: Any, http_where: dict[str, str]) -> None:
    from xrgen_runtime.bindings import http

    pull = EP["svc.http.pull"]
    batch = http.encode_batch([order(svc, 9)])
    outbox = Outbox([http.encode(order(svc, i)) for i in range(3)] + [batch])
    inbox = Inbox(pull)
    with serving(outbox, int(http_where["httpport"])):
        with pull.receiver(**http_where) as r:
            assert r.run(inbox.dispatcher.dispatch, max_messages=4, idle_timeout=5) == 4
    assert inbox.ids() == ["o-0", "o-1", "o-2"]
    ((_, reason, detail),) = inbox.dead  # a batch is not one message
    assert reason == "decode-error" and detail.startswith("unexpected-batch")
    assert {m for m, _ in outbox.requests} == {"GET"}


# ------------------------------------------------------------------------------ README


def test_readme_quick_start_with_a_broker(kafka_bootstrap: str, tmp_path: Path) -> None:
    """The README's quick start, then its broker snippet against the test's Kafka broker (its
    one change: the broker address): the consumer endpoint's receiver serves until SIGTERM."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = {
        lang: re.findall(rf"^```{lang}\n(.*?)^```$", readme, flags=re.M | re.S)
        for lang in ("json", "python")
    }
    (catalog,) = [b for b in blocks["json"] if '"endpoints"' in b]
    (local,) = [b for b in blocks["python"] if "import shop" in b]
    (remote,) = [b for b in blocks["python"] if ".receiver(" in b]
    (tmp_path / "orders.json").write_text(catalog)
    gen = subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", "orders.json", "--out", ".",
         "--package", "shop", "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert gen.returncode == 0, gen.stderr
    script = (local + remote).replace("localhost:9092", kafka_bootstrap)
    (tmp_path / "service.py").write_text(script)
    child = subprocess.Popen(
        [sys.executable, "service.py"], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )
    lines: list[str] = []
    try:
        assert child.stdout is not None
        while len([x for x in lines if x.startswith("order o-1")]) < 2:
            line = child.stdout.readline()
            assert line, "service.py ended early"
            lines.append(line.rstrip("\n"))
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert lines[-1] == "order o-1 42.5 from store berlin"  # received from the broker
