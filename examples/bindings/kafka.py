"""Kafka: a typed ``com.acme.Reading`` through a real Kafka broker and back to its handler.

    KAFKA_BOOTSTRAP=127.0.0.1:9092 python examples/bindings/kafka.py

producer -> ``kafka.encode`` -> ``KafkaSender`` -> broker -> ``KafkaReceiver`` ->
``Dispatcher.dispatch`` -> the typed ``on_reading`` handler. The topic is the catalog's
``acme.readings``; a fresh consumer group reads it from the start and stops once this run's
event (unique plant id) was handled. Exits 1 if it did not arrive within the time limit.
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
from pathlib import Path

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
from acme.adapters.kafka import KafkaReceiver, KafkaSender  # noqa: E402
from acme.bindings import kafka  # noqa: E402

BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "127.0.0.1:9092")
TIMEOUT = 30.0  # seconds; every wait below is bounded by it


def main() -> int:
    run = uuid.uuid4().hex[:8]
    producer = acme.producer.ComAcmeBaseProducer(plant=f"plant-{run}")
    event = producer.reading(acme.models.Reading(value=21.5, tags=["hall"]), sensor="s1")
    # topic acme.readings, key "<plant>/s1"; binary mode: attributes as ce_* headers
    wire = kafka.encode(event, mode="binary")
    # message.timeout.ms: a delivery fails (instead of retrying for 5 minutes) after TIMEOUT
    producer_config = {"bootstrap.servers": BOOTSTRAP, "message.timeout.ms": int(TIMEOUT * 1000)}
    with KafkaSender(producer_config) as sender:
        delivery = sender.send(wire).result(TIMEOUT)
    where = f"{delivery.topic}[{delivery.partition}]@{delivery.offset}"
    print(f"sent {event.attributes['id']} to {where}")

    arrived = threading.Event()
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_reading
    def on_reading(
        ev: acme.Event[acme.models.Reading], params: acme.consumer.ReadingParams
    ) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        if attrs["id"] == event.attributes["id"]:
            arrived.set()

    config = {
        "bootstrap.servers": BOOTSTRAP,
        "group.id": f"acme-example-{run}",
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000,
    }
    with KafkaReceiver(config, [wire.topic]) as receiver:
        receiver.run(dispatcher.dispatch, stop=arrived, idle_timeout=TIMEOUT)
    if not arrived.is_set():
        print(f"nothing arrived on {wire.topic} within {TIMEOUT}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
