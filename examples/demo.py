"""The main job on the bundled sample catalog (``make demo``).

``xrgen generate catalogs/acme/catalog.json --out out --package acme`` has written ``out/acme``;
this script imports it, produces one event per message with the typed producers, encodes each
with its protocol's codec in binary and structured mode (and every envelope-only event over
Pulsar and RocketMQ too), dispatches every wire message to typed handlers, and shows a
malformed message reaching the dead-letter callback.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "out"))

import acme  # noqa: E402
from acme.bindings import amqp, http, kafka, mqtt, nats, pulsar, rocketmq  # noqa: E402

now = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
base = acme.producer.ComAcmeBaseProducer(plant="p1")
ops = acme.producer.ComAcmeOpsProducer(plant="p1")
events = [
    (kafka, base.reading(acme.models.Reading(value=21.5, tags=["hall"]), sensor="s 1", sequence=7)),
    (mqtt, base.alarm({"code": "overheat", "raisedAt": now}, sensor="s 1", severity=3)),
    (http, base.reading_batch({"samples": [{"value": 1.0, "at": now}]}, sensor="s 1")),
    (amqp, ops.maintenance_scheduled({"machine": "press-4", "window": {"start": now, "end": now}})),
    (nats, ops.shift_changed({"shift": 2, "lead": "Ana"})),
    (kafka, ops.line_status({"line": "L1", "state": "RUNNING", "since": now}, line="L1")),
    (mqtt, ops.heartbeat(b"\x01", plant="p1")),
]
# an envelope-only message (no protocol in the catalog) travels over every binding
note = ops.note({"text": "line 2 restarted"}, author="ana", urgent=True)

handled: list[str] = []
dead: list[str] = []
d = acme.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append(f"{reason}: {detail}"))


def show(event: acme.Event[object], params: Mapping[str, object]) -> None:
    handled.append(event.attributes.get("type", "<plain>"))  # type: ignore[arg-type]
    print(f"  handled {event.attributes.get('type', '<plain message>')} params={params} data={event.data!r}")


for info in acme.MESSAGES.values():
    d.on(info.id)(show)

for codec, event in events:
    modes = ["binary", "structured"] if event.attributes else ["binary"]
    for mode in modes:
        wire = codec.encode(event, mode=mode)
        print(f"{codec.__name__.rsplit('.', 1)[-1]:5} {mode:10} -> {type(wire).__name__}")
        d.dispatch(wire)

print("the envelope-only note over every binding:")
routes = {kafka: {"topic": "acme.notes"}, amqp: {"address": "acme.notes"}, mqtt: {"topic": "acme/notes"},
          nats: {"subject": "acme.notes"}, http: {"method": "POST", "path": "/notes"},
          pulsar: {"topic": "acme-notes"}, rocketmq: {"topic": "acme-notes"}}
for codec, route in routes.items():
    for mode in ("binary", "structured"):
        d.dispatch(codec.encode(note, mode=mode, **route))

print("a malformed Kafka message:")
d.dispatch(kafka.KafkaMessage(topic="acme.readings", key=None, value=b"{not json", headers=(("content-type", b"application/cloudevents+json"),)))
print(f"  dead letters: {dead}")
print(f"{len(handled)} events handled, {len(dead)} dead-lettered")
if len(dead) != 1 or not handled:
    sys.exit(1)
