"""Apache RocketMQ: the envelope-only ``com.acme.ops.Note`` as a real ``rocketmq.Message`` and
back to its typed handler, WITHOUT a broker.

    python examples/bindings/rocketmq.py

No RocketMQ broker runs on this machine, so nothing is sent: the adapter builds the
rocketmq-python-client ``Message`` that ``RocketMqSender`` (``Producer.send_async``) would
transmit, converts it back as ``RocketMqReceiver`` does for a received message, and dispatches
it. With a broker (its gRPC proxy endpoint), use ``RocketMqSender(endpoints, [topic])`` and
``RocketMqReceiver(endpoints, group, [topic]).run(dispatcher.dispatch)`` instead.
Exits 1 if nothing was handled.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
from acme.adapters.rocketmq import from_rocketmq_message, to_rocketmq_message  # noqa: E402
from acme.bindings import rocketmq  # noqa: E402


def main() -> int:
    producer = acme.producer.ComAcmeOpsProducer(plant="p1")
    event = producer.note({"text": "line 2 restarted"}, author="ana", urgent=True)
    # the note has no protocol in the catalog: topic and tag are given here
    wire = rocketmq.encode(event, mode="binary", topic="acme-notes", tag="notes")

    client_message = to_rocketmq_message(wire)  # a rocketmq.Message, ready for Producer.send
    shown = f"{type(client_message).__name__}(topic={client_message.topic!r}, tag={client_message.tag!r})"
    print(f"built {event.attributes['id']} as {shown}")
    received_wire = from_rocketmq_message(client_message)

    received: list[acme.Event[acme.models.Note]] = []
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_note
    def on_note(ev: acme.Event[acme.models.Note], params: acme.consumer.NoteParams) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        received.append(ev)

    dispatcher.dispatch(received_wire)
    if not received:
        print("nothing was handled", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
