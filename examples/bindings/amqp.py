"""AMQP 1.0: a typed ``com.acme.ops.MaintenanceScheduled`` through RabbitMQ and back to its
handler.

    AMQP_URL=amqp://guest:guest@127.0.0.1:5672 python examples/bindings/amqp.py

producer -> ``amqp.encode`` -> ``AmqpSender`` -> broker -> ``AmqpReceiver`` ->
``Dispatcher.dispatch`` -> the typed ``on_maintenance_scheduled`` handler. The address is the
catalog's node ``acme.maintenance`` (RabbitMQ declares the queue on first use); the receiver
stops once this run's event (unique plant id) was handled, so messages left by earlier runs
are handled too. Exits 1 if it did not arrive within the time limit.
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
from acme.adapters.amqp import AmqpReceiver, AmqpSender  # noqa: E402
from acme.bindings import amqp  # noqa: E402

URL = os.environ.get("AMQP_URL", "amqp://guest:guest@127.0.0.1:5672")
TIMEOUT = 30.0  # seconds; every wait below is bounded by it


def main() -> int:
    producer = acme.producer.ComAcmeOpsProducer(plant=f"plant-{uuid.uuid4().hex[:8]}")
    start = datetime.now(timezone.utc) + timedelta(days=1)
    window = {"start": start, "end": start + timedelta(hours=2)}
    event = producer.maintenance_scheduled({"machine": "press-4", "window": window})
    # binary mode: the CloudEvents attributes travel as application-properties
    wire = amqp.encode(event, mode="binary")
    with AmqpSender(URL, timeout=TIMEOUT) as sender:
        sender.send(wire)
        sender.flush(TIMEOUT)  # raises unless the broker accepted it
    print(f"sent {event.attributes['id']} to {wire.address}")

    arrived = threading.Event()
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_maintenance_scheduled
    def on_maintenance(
        ev: acme.Event[acme.models.Maintenance], params: acme.consumer.MaintenanceScheduledParams
    ) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        if attrs["id"] == event.attributes["id"]:
            arrived.set()

    with AmqpReceiver(URL, "acme.maintenance", timeout=TIMEOUT) as receiver:
        receiver.run(dispatcher.dispatch, stop=arrived, idle_timeout=TIMEOUT)
    if not arrived.is_set():
        print(f"nothing arrived on {wire.address} within {TIMEOUT}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
