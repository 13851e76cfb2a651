"""The ASGI receiver runs its handler as a receiver's ``run`` does (``adapters/_handling``):
async handlers awaited before the answer, handler errors retried then dead-lettered (202),
503 when the dead letter was not delivered (the sender sends again), 500 for another error.
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import pytest
from xrgen_runtime._retry import Retry
from xrgen_runtime.adapters.http import AsgiReceiver
from xrgen_runtime.bindings import http
from xrgen_runtime.testing import example_event

READING = "com.acme.ReadingBatch"  # bound to HTTP


def call(app: Any, message: Any) -> int:
    """POST ``message`` to the ASGI ``app``; the status it answered."""
    scope = {
        "type": "http",
        "method": message.method,
        "path": message.path.split("?", 1)[0],
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in message.headers],
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": message.body, "more_body": False}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    asyncio.run(app(scope, receive, send))
    return int(sent[0]["status"])


@pytest.fixture(scope="module")
def wire(acme: ModuleType) -> Any:
    return http.encode(
        example_event(acme, READING), "binary"
    )  # its own method and path


def test_an_async_handler_is_awaited_before_the_answer(
    acme: ModuleType, wire: Any
) -> None:
    done: list[str] = []
    d = acme.consumer.Dispatcher()

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0.01)
        done.append("handled")

    assert call(AsgiReceiver(d), wire) == 202 and done == ["handled"]


def test_handler_errors_are_retried_then_dead_lettered(
    acme: ModuleType, wire: Any
) -> None:
    dead: list[str] = []
    calls: list[int] = []
    d = acme.consumer.Dispatcher(
        dead_letter=lambda w, reason, detail: dead.append(detail)
    )
    d.handler_errors = "raise"
    d.on(READING)(lambda event, params: calls.append(1) or 1 / 0)
    app = AsgiReceiver(d, retry=Retry(attempts=3, delay=0.0))
    assert call(app, wire) == 202  # handled: by its dead letter
    assert len(calls) == 3 and len(dead) == 1 and "(after 3 attempts)" in dead[0]


def test_a_dead_letter_not_delivered_is_answered_503(
    acme: ModuleType, wire: Any
) -> None:
    def refuse(w: Any, reason: str, detail: str) -> None:
        raise ConnectionError("dead-letter store down")

    d = acme.consumer.Dispatcher(dead_letter=refuse)
    d.on(READING)(lambda event, params: 1 / 0)
    assert call(AsgiReceiver(d, retry=Retry(attempts=1, delay=0.0)), wire) == 503


def test_another_error_is_answered_500(wire: Any) -> None:
    def broken(message: Any) -> None:
        raise KeyError("bug")

    assert call(AsgiReceiver(broken), wire) == 500
