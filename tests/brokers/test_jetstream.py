"""JetStream declared in the catalog (the NATS endpoint option ``jetstream``), against a NATS
server of the test's own: the producer endpoint creates its stream when absent and waits for
each PubAck, the consumer endpoint pulls from its durable consumer with the declared ack wait,
max deliver and window, and a stream that is absent without ``create`` is an error naming it.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime.adapters.nats import JetStreamError

from .conftest import HOST, ServerProcess, unique
from .endpoints_catalog import (  # noqa: F401  (fixtures)
    Inbox,
    endpoints_fixture,
    order,
    svc_fixture,
)


def _where(server: ServerProcess) -> dict[str, str]:
    return {
        "host": HOST,
        "natsport": str(server.port),
        "run": unique("js").replace("-", "_"),
    }


def _job(svc: ModuleType, n: int, run: str) -> Any:
    return svc.MESSAGES["svc.JobQueued"].create(
        {"order_id": f"j-{n}", "total": float(n)}, shop="s1", run=run
    )


def test_catalog_jetstream_endpoints(
    svc: ModuleType, EP: Any, private_nats: ServerProcess
) -> None:
    where = _where(private_nats)
    run = where["run"]
    inbox = Inbox(EP["svc.nats.js.in"], redeliver=True)
    failed: list[str] = []

    def flaky(
        event: Any, params: dict[str, str]
    ) -> None:  # the first attempt of j-2 fails
        if event.data.order_id == "j-2" and "j-2" not in failed:
            failed.append("j-2")
            raise RuntimeError("first attempt")
        inbox.handle(event, params)

    for message_id in EP["svc.nats.js.in"].message_ids:
        inbox.dispatcher.on(message_id)(flaky)

    async def main() -> tuple[list[Any], int, dict[str, Any]]:
        import nats

        async with EP["svc.nats.js.out"].async_sender(**where) as s:
            acks = [await s.send(_job(svc, i, run)) for i in range(5)]
        async with EP["svc.nats.js.in"].async_receiver(**where) as r:
            handled = await r.run(
                inbox.dispatcher.dispatch_async, max_messages=5, idle_timeout=10
            )
        nc = await nats.connect(f"nats://{HOST}:{private_nats.port}")
        try:
            js = nc.jetstream()
            stream = await js.stream_info(f"JOBS_{run}")
            consumer = await js.consumer_info(f"JOBS_{run}", f"workers_{run}")
            facts = {
                "subjects": stream.config.subjects,
                "ack_wait": consumer.config.ack_wait,
                "max_deliver": consumer.config.max_deliver,
                "max_ack_pending": consumer.config.max_ack_pending,
                "pending": consumer.num_ack_pending,
            }
        finally:
            await nc.close()
        return acks, handled, facts

    acks, handled, facts = asyncio.run(main())
    assert [a.stream for a in acks] == [f"JOBS_{run}"] * 5 and handled == 5
    assert sorted(inbox.ids()) == [f"j-{i}" for i in range(5)] and failed == ["j-2"]
    assert facts == {
        "subjects": [f"jobs.{run}.>"],
        "ack_wait": 2.0,
        "max_deliver": 20,
        "max_ack_pending": 50,
        "pending": 0,
    }


def test_an_absent_stream_is_an_error_naming_it(
    svc: ModuleType, EP: Any, private_nats: ServerProcess
) -> None:
    where = _where(private_nats)
    stream = f"JOBS_{where['run']}"

    async def connect(ep: str, **kw: Any) -> None:
        async with (
            EP[ep].async_receiver(**where, **kw)
            if ep.endswith("in")
            else EP[ep].async_sender(**where, **kw)
        ):
            pass

    with pytest.raises(JetStreamError, match=f"stream '{stream}' does not exist"):
        asyncio.run(connect("svc.nats.js.in"))
    settings = {"stream": stream, "create": False}
    with pytest.raises(JetStreamError, match=f"stream '{stream}' does not exist"):
        asyncio.run(connect("svc.nats.js.out", jetstream=settings))
    with pytest.raises(
        JetStreamError, match="no JetStream stream stores subject 'jobs.nowhere.>'"
    ):
        asyncio.run(
            connect(
                "svc.nats.js.in",
                jetstream={"durable": "d"},
                subjectfilter="jobs.nowhere.>",
            )
        )
