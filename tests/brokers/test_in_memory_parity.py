"""The testing kit's in-memory receiver and a real one (AMQP 1.0 on RabbitMQ) serve the same
messages with the same raising handler, and end the same way: the same handler calls, the
same dead letters, the same count acknowledged, nothing left on the server or in the queue.
Both run the adapters' serving loop; only the transport differs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime.bindings import amqp as amqp_codec
from xrgen_runtime.serving import Retry
from xrgen_runtime.testing import AmqpBroker

from .endpoints_catalog import amqp_login_fixture  # noqa: F401  (fixture)
from .serving_catalog import Binding, binding, srv_fixture  # noqa: F401  (fixture)
from .test_serving import drain, job, receiving

FAST = Retry(attempts=3, delay=0.01)
JOBS = [0, 1, 2]


@dataclass
class Outcome:
    """How serving ended."""

    acknowledged: int
    calls: list[int]
    dead: list[tuple[int, str]]
    left: int


def _dispatcher(srv: ModuleType, redeliver: bool) -> tuple[Any, Outcome]:
    """A dispatcher of the consumer endpoint whose handler raises for job 1."""
    outcome = Outcome(0, [], [], 0)

    def handle(event: Any, params: dict[str, str]) -> None:
        outcome.calls.append(event.data.job)
        if event.data.job == 1:
            raise ValueError("job 1 always fails")

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        outcome.dead.append((json.loads(amqp_codec.decode(wire).data)["job"], reason))

    d = srv.ENDPOINTS["srv.amqp.in"].dispatcher(dead_letter, redeliver=redeliver)
    d.on("srv.Job")(handle)
    return d, outcome


def _on_rabbitmq(srv: ModuleType, b: Binding, redeliver: bool) -> Outcome:
    d, outcome = _dispatcher(srv, redeliver)
    with receiving(srv, b, JOBS) as r:
        outcome.acknowledged = r.run(
            d, max_messages=len(JOBS), idle_timeout=30, retry=FAST, handle_signals=False
        )
    outcome.left = len(drain(srv, b))
    return outcome


def _in_memory(srv: ModuleType, redeliver: bool) -> Outcome:
    d, outcome = _dispatcher(srv, redeliver)
    broker = AmqpBroker()
    with broker.receiver("jobs") as r:
        for n in JOBS:
            broker.publish(broker.encode(job(srv, n), address="jobs"))
        outcome.acknowledged = r.run(d, retry=FAST, handle_signals=False)
        outcome.left = r.pending
    return outcome


@pytest.mark.parametrize("redeliver", [False, True], ids=["dead-letter", "redeliver"])
def test_a_raising_handler_ends_the_same_in_memory_and_on_rabbitmq(
    srv: ModuleType, request: pytest.FixtureRequest, redeliver: bool
) -> None:
    real = _on_rabbitmq(srv, binding("amqp", request), redeliver)
    memory = _in_memory(srv, redeliver)
    assert memory == real
    attempts = 3 if redeliver else 1
    assert real.calls == [0] + [1] * attempts + [2]
    assert real.dead == [(1, "handler-error")]
    assert real.acknowledged == 3 and real.left == 0
