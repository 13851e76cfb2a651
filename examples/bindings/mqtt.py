"""MQTT 5.0: a typed ``com.acme.Alarm`` through a real MQTT broker and back to its handler.

    MQTT_HOST=127.0.0.1 MQTT_PORT=1883 python examples/bindings/mqtt.py

producer -> ``mqtt.encode`` -> ``MqttSender`` -> broker -> ``MqttReceiver`` ->
``Dispatcher.dispatch`` -> the typed ``on_alarm`` handler. The topic comes from the catalog's
template ``acme/{plant}/alarms/{sensor}``; a unique plant id per run makes it unique. The
receiver subscribes before the alarm is published (MQTT keeps nothing for absent
subscribers). Exits 1 if nothing arrived within the time limit.
"""

from __future__ import annotations

import os
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path

# this file is named like a client library: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
from acme.adapters.mqtt import MqttReceiver, MqttSender  # noqa: E402
from acme.bindings import mqtt  # noqa: E402

HOST = os.environ.get("MQTT_HOST", "127.0.0.1")
PORT = int(os.environ.get("MQTT_PORT", "1883"))
TIMEOUT = 30.0  # seconds; every wait below is bounded by it


def main() -> int:
    producer = acme.producer.ComAcmeBaseProducer(plant=f"plant-{uuid.uuid4().hex[:8]}")
    alarm = acme.models.Alarm(code="overheat", raised_at=datetime.now(timezone.utc))
    event = producer.alarm(alarm, sensor="s1", severity=3)
    # an MQTT 5 PUBLISH, QoS 1; binary mode: the attributes travel as user properties
    wire = mqtt.encode(event, mode="binary")

    received: list[acme.Event[acme.models.Alarm]] = []
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_alarm
    def on_alarm(ev: acme.Event[acme.models.Alarm], params: acme.consumer.AlarmParams) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        received.append(ev)

    with MqttReceiver(HOST, PORT, [wire.topic], connect_timeout=TIMEOUT) as receiver:
        with MqttSender(HOST, PORT, connect_timeout=TIMEOUT) as sender:
            sender.send(wire).result(TIMEOUT)  # PUBACK from the broker
        print(f"sent {event.attributes['id']} to {wire.topic}")
        receiver.run(dispatcher.dispatch, max_messages=1, idle_timeout=TIMEOUT)
    if not received:
        print(f"nothing arrived on {wire.topic} within {TIMEOUT}s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
