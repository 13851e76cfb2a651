"""NATS (core, asyncio): a typed ``com.acme.ops.ShiftChanged`` through a real NATS server and
back to its handler.

    NATS_URL=nats://127.0.0.1:4222 python examples/bindings/nats.py

producer -> ``nats.encode`` -> ``NatsSender`` -> server -> ``NatsReceiver`` ->
``Dispatcher.dispatch`` -> the typed ``on_shift_changed`` handler. The subject comes from the
catalog's template ``acme.{plant}.shifts``; a unique plant id per run makes it unique. Core
NATS delivers only to current subscribers, so the receiver subscribes first. Exits 1 if
nothing arrived within the time limit.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
from acme.adapters.nats import NatsReceiver, NatsSender  # noqa: E402
from acme.bindings import nats  # noqa: E402

URL = os.environ.get("NATS_URL", "nats://127.0.0.1:4222")
TIMEOUT = 30.0  # seconds; every wait below is bounded by it


def _connection_log(log: list[str]) -> dict[str, Any]:
    """nats-py callbacks that note connection events in ``log``. Core NATS is at-most-once: a
    message published while the receiver is disconnected is gone, and a failed run should say
    whether that happened."""

    async def disconnected() -> None:
        log.append("disconnected")

    async def reconnected() -> None:
        log.append("reconnected")

    async def error(exc: Exception) -> None:
        log.append(f"error: {exc!r}")

    return {"disconnected_cb": disconnected, "reconnected_cb": reconnected, "error_cb": error}


async def main() -> int:
    producer = acme.producer.ComAcmeOpsProducer(plant=f"plant-{uuid.uuid4().hex[:8]}")
    event = producer.shift_changed({"shift": 2, "lead": "Ana"})
    # binary mode: the CloudEvents attributes travel as NATS headers
    wire = nats.encode(event, mode="binary")

    received: list[acme.Event[acme.models.Shift]] = []
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_shift_changed
    def on_shift_changed(
        ev: acme.Event[acme.models.Shift], params: acme.consumer.ShiftChangedParams
    ) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        received.append(ev)

    log: list[str] = []  # the receiver's connection events, printed if nothing arrives
    options = {"connect_timeout": TIMEOUT, "max_reconnect_attempts": 3}
    receiver = await NatsReceiver.connect(URL, wire.subject, **options, **_connection_log(log))
    async with receiver:
        async with await NatsSender.connect(URL, **options) as sender:
            await sender.send(wire)
            await sender.flush(TIMEOUT)  # the server has it
        print(f"sent {event.attributes['id']} to {wire.subject}")
        await receiver.run(dispatcher.dispatch, max_messages=1, idle_timeout=TIMEOUT)
        if not received:  # report before closing the receiver (closing logs a disconnect)
            print(f"nothing arrived on {wire.subject} within {TIMEOUT}s", file=sys.stderr)
            print(f"receiver connection events: {log or 'none'}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
