"""Apache Pulsar: the envelope-only ``com.acme.ops.Note`` through a real Pulsar broker and back
to its typed handler.

    PULSAR_URL=pulsar://127.0.0.1:6650 python examples/bindings/pulsar.py

producer -> ``pulsar.encode`` -> ``PulsarSender`` -> broker -> ``PulsarReceiver`` ->
``Dispatcher.dispatch`` -> the typed ``on_note`` handler. The catalog gives the note no
protocol, so the topic is passed to ``encode`` (unique per run). Exits 1 if nothing arrived
within the time limit.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
import pulsar as pulsar_client  # noqa: E402  (the client library, not the codec)
from acme.adapters.pulsar import PulsarReceiver, PulsarSender  # noqa: E402
from acme.bindings import pulsar  # noqa: E402

URL = os.environ.get("PULSAR_URL", "pulsar://127.0.0.1:6650")
TIMEOUT = 30.0  # seconds; every wait below is bounded by it
CLIENT = {  # pulsar.Client options: bounded waits, only warnings in the log
    "operation_timeout_seconds": int(TIMEOUT),
    "connection_timeout_ms": int(TIMEOUT * 1000),
    "logger": pulsar_client.ConsoleLogger(pulsar_client.LoggerLevel.Warn),
}


def main() -> int:
    run = uuid.uuid4().hex[:8]
    producer = acme.producer.ComAcmeOpsProducer(plant="p1")
    event = producer.note({"text": "line 2 restarted"}, author="ana", urgent=True)
    topic = f"persistent://public/default/acme-notes-{run}"
    # the note has no protocol in the catalog: the topic is given here
    wire = pulsar.encode(event, mode="binary", topic=topic)

    received: list[acme.Event[acme.models.Note]] = []
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_note
    def on_note(ev: acme.Event[acme.models.Note], params: acme.consumer.NoteParams) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        received.append(ev)

    with PulsarReceiver(URL, topic, f"acme-example-{run}", client_options=CLIENT) as receiver:
        with PulsarSender(URL, client_options=CLIENT) as sender:
            message_id = sender.send(wire).result(TIMEOUT)
        print(f"sent {event.attributes['id']} to {topic} as {message_id}")
        receiver.run(dispatcher.dispatch, max_messages=1, idle_timeout=TIMEOUT)
    if not received:
        print(f"nothing arrived on {topic} within {TIMEOUT}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
