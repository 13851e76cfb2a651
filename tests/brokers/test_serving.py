"""Serving against the real servers, per binding (Kafka through the test broker, MQTT 5 and
3.1.1, AMQP 1.0 on RabbitMQ, NATS core and JetStream; HTTP pull and a served HTTP endpoint on
uvicorn): async handlers awaited before the
acknowledgement (concurrency 1 included), handler errors retried in the process then sent to
the catalog's dead-letter destination with the reason, a raising dead-letter callback leaving
the message unacknowledged (it comes back), and ``concurrency`` running that many handlers.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime.serving import DETAIL_HEADER, REASON_HEADER, App, Health, Retry

from .conftest import wait_until
from .endpoints_catalog import amqp_login_fixture  # noqa: F401  (fixture)
from .serving_catalog import Binding, binding, srv_fixture  # noqa: F401  (fixture)

BINDINGS = ["kafka", "mqtt5", "mqtt3", "amqp", "nats", "jetstream"]
FAST = Retry(attempts=3, delay=0.01)


@pytest.fixture(params=BINDINGS)
def b(request: pytest.FixtureRequest) -> Iterator[Binding]:
    found = binding(request.param, request)
    if found.name == "jetstream":
        asyncio.run(_stream("add", found))
        yield found
        asyncio.run(_stream("delete", found))
    else:
        yield found


async def _stream(what: str, b: Binding) -> None:
    import nats

    nc = await nats.connect(f"nats://{b.where['host']}:{b.where['natsport']}")
    try:
        js = nc.jetstream()
        name = "S" + b.where["run"]
        if what == "add":
            await js.add_stream(name=name, subjects=[f"jobs.{b.where['run']}.>"])
        else:
            await js.delete_stream(name)
    finally:
        await nc.close()


def job(srv: ModuleType, n: int) -> Any:
    return srv.MESSAGES["srv.Job"].create({"job": n})


def send(srv: ModuleType, b: Binding, jobs: list[int]) -> None:
    extra = {"jetstream": True} if b.name == "jetstream" else {}
    with srv.ENDPOINTS[f"srv.{b.prefix}.out"].sender(**b.where, **extra) as s:
        futures = [s.send(job(srv, n)) for n in jobs]
        s.flush(30)  # AMQP's futures resolve in flush
        for f in futures:
            assert f.result(30).destination  # a Receipt, confirmed


def receiver(srv: ModuleType, b: Binding, **kw: Any) -> Any:
    return srv.ENDPOINTS[f"srv.{b.prefix}.in"].receiver(**b.where, **b.receiving, **kw)


def receiving(srv: ModuleType, b: Binding, jobs: list[int]) -> Any:
    """A receiver of the consumer endpoint, and ``jobs`` sent to it: after it subscribed
    (MQTT and core NATS deliver to subscriptions only), except on Kafka, where a consumer
    created before its topic exists would not see the topic for minutes (metadata refresh).
    """
    if b.name == "kafka":
        send(srv, b, jobs)
        return receiver(srv, b)
    r = receiver(srv, b)
    send(srv, b, jobs)
    return r


def drain(srv: ModuleType, b: Binding) -> list[Any]:
    """The messages still waiting for the consumer endpoint (a fresh receiver; a Kafka
    consumer joins its group first, which takes seconds)."""
    idle = 15.0 if b.name == "kafka" else 2.0
    got: list[Any] = []
    with receiver(srv, b) as r:
        r.run(got.append, idle_timeout=idle, handle_signals=False)
    return got


class Jobs:
    """Handlers that record what they did, per job number."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[int] = []
        self.done: list[int] = []
        self.running = self.most = 0

    def enter(self, n: int) -> None:
        with self.lock:
            self.calls.append(n)
            self.running += 1
            self.most = max(self.most, self.running)

    def leave(self, n: int) -> None:
        with self.lock:
            self.running -= 1
            self.done.append(n)


def dispatcher(srv: ModuleType, handler: Any, **kw: Any) -> Any:
    d = srv.ENDPOINTS["srv.kafka.in"].dispatcher(**kw)  # any endpoint's: same message
    d.on("srv.Job")(handler)
    return d


def test_async_handler_is_awaited_before_the_acknowledgement(
    srv: ModuleType, b: Binding
) -> None:
    jobs = Jobs()

    async def handle(event: Any, params: dict[str, str]) -> None:
        jobs.enter(event.data.job)
        await asyncio.sleep(0.02)
        jobs.leave(event.data.job)

    with receiving(srv, b, list(range(5))) as r:
        assert r.run(dispatcher(srv, handle), max_messages=5, idle_timeout=60) == 5
    assert sorted(jobs.done) == list(range(5))
    if b.keeps:
        assert drain(srv, b) == []  # every one acknowledged


def _reason(wire: Any) -> dict[str, str]:
    """The dead-letter headers of a wire message, as text."""
    pairs: Any = ()
    for name in ("headers", "user_properties"):
        pairs = getattr(wire, name, None) or pairs
    if hasattr(wire, "application_properties"):
        pairs = wire.application_properties.items()
    out = {}
    for k, v in pairs:
        if k in (REASON_HEADER, DETAIL_HEADER):
            out[k] = v.decode() if isinstance(v, bytes) else v
    return out


def test_handler_errors_are_retried_then_published_to_the_dead_letter_destination(
    srv: ModuleType, b: Binding
) -> None:
    dlq_endpoint = srv.ENDPOINTS[f"srv.{b.prefix}.dlq"]
    # subscribed before the dead letter is published (MQTT and core NATS deliver to
    # subscriptions only), except Kafka: a consumer created before its topic exists would
    # not see the topic for minutes (metadata refresh)
    dlq = dlq_endpoint.receiver(**b.where, **b.reading) if b.name != "kafka" else None
    jobs = Jobs()

    def handle(event: Any, params: dict[str, str]) -> None:
        jobs.enter(event.data.job)
        jobs.leave(event.data.job)
        if event.data.job == 1:
            raise ValueError("job 1 always fails")

    app = App(dispatcher(srv, handle), retry=FAST)
    health = Health()
    served: list[int] = []
    serving = threading.Thread(
        target=lambda: served.append(
            app.serve(
                f"srv.{b.prefix}.in",
                max_messages=3,
                idle_timeout=30,
                handle_signals=False,
                health=health,
                **b.where,
                **b.receiving,
            )
        )
    )
    if b.name == "kafka":  # the topic first (see ``receiving``)
        send(srv, b, [0, 1, 2])
    serving.start()
    wait_until(lambda: health.is_ready or not serving.is_alive(), 30, "serving")
    if b.name != "kafka":
        send(srv, b, [0, 1, 2])
    serving.join(60)
    assert served == [3]
    assert jobs.calls.count(1) == 3 and jobs.calls.count(0) == jobs.calls.count(2) == 1
    dead: list[Any] = []
    with dlq or dlq_endpoint.receiver(**b.where, **b.reading) as r:
        r.run(dead.append, max_messages=1, idle_timeout=60, handle_signals=False)
    assert len(dead) == 1
    event = srv.consumer.Dispatcher()
    got: list[int] = []
    event.on("srv.Job")(lambda e, p: got.append(e.data.job))
    assert event.dispatch(dead[0]) and got == [1]  # the original, whole
    if b.reasons:
        headers = _reason(dead[0])
        assert headers[REASON_HEADER] == "handler-error"
        assert "job 1 always fails" in headers[DETAIL_HEADER]
        assert "(after 3 attempts)" in headers[DETAIL_HEADER]
    if b.keeps:
        assert drain(srv, b) == []  # the original acknowledged after its dead letter


def test_a_raising_dead_letter_callback_leaves_the_message_unacknowledged(
    srv: ModuleType, b: Binding
) -> None:
    refused: list[str] = []
    stop = threading.Event()

    def refuse(wire: Any, reason: str, detail: str) -> None:
        refused.append(reason)
        if len(refused) == 2:
            stop.set()  # it came back once: enough
        raise ConnectionError("dead-letter store down")

    def poison(event: Any, params: dict[str, str]) -> None:
        raise ValueError("poison")

    timer = threading.Timer(60, stop.set)  # a guard: the test fails below if it fires
    timer.start()
    with receiving(srv, b, [7]) as r:
        handled = r.run(
            dispatcher(srv, poison, dead_letter=refuse),
            stop=stop,
            retry=FAST,
            handle_signals=False,
        )
    timer.cancel()
    assert handled == 0
    assert refused == ["handler-error"] * 2  # it came back, and was refused again
    if not b.keeps:
        return  # core NATS keeps nothing for the next subscriber
    jobs = Jobs()

    def fine(event: Any, params: dict[str, str]) -> None:
        jobs.enter(event.data.job)
        jobs.leave(event.data.job)

    with receiver(srv, b) as r:  # the server still has it
        assert r.run(dispatcher(srv, fine), max_messages=1, idle_timeout=30) == 1
    assert jobs.done == [7]
    assert drain(srv, b) == []


@pytest.mark.parametrize("flavour", ["async", "sync"])
def test_concurrency_runs_that_many_handlers_at_once(
    srv: ModuleType, b: Binding, flavour: str
) -> None:
    jobs = Jobs()
    if flavour == "async":

        async def handle(event: Any, params: dict[str, str]) -> None:
            jobs.enter(event.data.job)
            await asyncio.sleep(0.3)
            jobs.leave(event.data.job)

    else:

        def handle(event: Any, params: dict[str, str]) -> None:
            jobs.enter(event.data.job)
            time.sleep(0.3)
            jobs.leave(event.data.job)

    with receiving(srv, b, list(range(12))) as r:
        n = r.run(
            dispatcher(srv, handle), max_messages=12, idle_timeout=60, concurrency=4
        )
    assert n == 12 and sorted(jobs.done) == list(range(12))
    assert jobs.most == 4
    if b.keeps:
        assert drain(srv, b) == []


def test_the_blocking_nats_shapes_inside_an_event_loop_are_the_deprecated_awaitables(
    srv: ModuleType, request: pytest.FixtureRequest
) -> None:
    b = binding("nats", request)
    got: list[int] = []

    async def main() -> None:
        with pytest.deprecated_call():
            rx = srv.ENDPOINTS["srv.nats.in"].receiver(**b.where)
        with pytest.deprecated_call():
            tx = srv.ENDPOINTS["srv.nats.out"].sender(**b.where)
        async with rx as r, tx as s:  # the awaitables of earlier releases still work
            receipt = await s.send(job(srv, 3))
            assert receipt.destination == f"jobs.{b.where['run']}.in"
            d = dispatcher(srv, lambda event, params: got.append(event.data.job))
            await r.run(d, max_messages=1, idle_timeout=10, handle_signals=False)

    asyncio.run(main())
    assert got == [3]


# ------------------------------------------------------------------ HTTP (a uvicorn server)


class Pull:
    """The server of a pull consumer at ``/jobs/<run>`` (each request: the next message,
    200, or 204 when none is left) and a dead-letter target at ``/dead/<run>``."""

    def __init__(self, messages: list[Any]) -> None:
        self.messages = list(messages)
        self.dead: list[tuple[dict[str, str], bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"].startswith("/dead/"):
            body = b""
            while True:
                event = await receive()
                body += event.get("body", b"")
                if not event.get("more_body"):
                    break
            headers = {k.decode(): v.decode() for k, v in scope["headers"]}
            self.dead.append((headers, body))
            await _answer(send, 202, [], b"")
        elif self.messages:
            msg = self.messages.pop(0)
            headers = [(k.encode(), v.encode()) for k, v in msg.headers]
            await _answer(send, 200, headers, msg.body)
        else:
            await _answer(send, 204, [], b"")


async def _answer(send: Any, status: int, headers: list[Any], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _http_where() -> dict[str, str]:
    from netutil import free_port

    return {"host": "127.0.0.1", "httpport": str(free_port()), "run": "r1"}


def test_http_pull_retries_then_posts_the_dead_letter(srv: ModuleType) -> None:
    from .test_endpoints import serving

    where = _http_where()
    from xrgen_runtime.bindings import http

    wires = [
        http.encode(job(srv, n), "binary", method="GET", path="/") for n in range(3)
    ]
    app = Pull(wires)
    jobs = Jobs()

    async def handle(event: Any, params: dict[str, str]) -> None:
        jobs.enter(event.data.job)
        jobs.leave(event.data.job)
        if event.data.job == 1:
            raise ValueError("job 1 always fails")

    with serving(app, int(where["httpport"])):
        handled = App(dispatcher(srv, handle), retry=FAST).serve(
            "srv.http.pull",
            max_messages=3,
            idle_timeout=10,
            handle_signals=False,
            **where,
        )
    assert handled == 3 and jobs.calls.count(1) == 3
    [(headers, body)] = app.dead
    assert headers[REASON_HEADER] == "handler-error"
    assert "(after 3 attempts)" in headers[DETAIL_HEADER]
    assert body == wires[1].body


def test_http_served_endpoint_answers_503_until_the_dead_letter_is_delivered(
    srv: ModuleType,
) -> None:
    from xrgen_runtime.bindings.http._receipts import HttpSendError

    from .test_endpoints import serving

    where = _http_where()
    hook = srv.ENDPOINTS["srv.http.hook"]
    delivered: list[str] = []

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        if not delivered:
            delivered.append("refused")
            raise ConnectionError("dead-letter store down")
        delivered.append(reason)

    def poison(event: Any, params: dict[str, str]) -> None:
        raise ValueError("poison")

    d = dispatcher(srv, poison, dead_letter=dead_letter, redeliver=True)
    app = hook.receiver(**where, on_message=d)
    with serving(app, int(where["httpport"])), hook.sender(**where) as s:
        with pytest.raises(HttpSendError) as refused:
            s.send(job(srv, 5)).result()
        assert refused.value.response.status == 503  # not handled: send it again
        receipt = s.send(job(srv, 5)).result()  # the sender's retry
        assert receipt.status == 202
    assert delivered == ["refused", "handler-error"]
