"""Sample payloads and placeholder values for every message of catalogs/acme, shared by the
runtime, broker and Spark tests of the generated ``acme`` package."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
SAMPLES: dict[str, tuple[Any, dict[str, Any]]] = {
    "com.acme.Reading": ({"value": 1.5, "tags": ["a"]}, {"plant": "p 1", "sensor": "s/1", "sequence": 7}),
    "com.acme.Alarm": ({"code": "overheat", "raisedAt": NOW}, {"plant": "p1", "sensor": "s1", "severity": 2}),
    "com.acme.ReadingBatch": ({"samples": [{"value": 2.0, "at": NOW}]}, {"plant": "p1", "sensor": "s1"}),
    "com.acme.ops.MaintenanceScheduled": ({"machine": "m", "window": {"start": NOW, "end": NOW}, "priority": 3}, {"plant": "p1"}),
    "com.acme.ops.ShiftChanged": ({"shift": 1}, {"plant": "p1"}),
    "com.acme.ops.LineStatus": ({"line": "L", "state": "STOPPED", "since": NOW}, {"plant": "p1", "line": "L"}),
    "com.acme.ops.ReadingAlias": ({"value": 3.0}, {"plant": "p1", "sensor": "s1"}),
    "com.acme.ops.Heartbeat": (b"\x00\x01", {"plant": "p1"}),
    "com.acme.ops.Note": ({"text": "hello"}, {"plant": "p1", "author": "ana", "urgent": True}),
}
CODEC_OF = {"KAFKA": "kafka", "AMQP/1.0": "amqp", "MQTT/5.0": "mqtt", "NATS": "nats", "HTTP": "http"}
ROUTES = {
    "kafka": {"topic": "t"}, "amqp": {"address": "q"}, "mqtt": {"topic": "t"}, "nats": {"subject": "s"},
    "http": {"method": "POST", "path": "/p"}, "pulsar": {"topic": "t"}, "rocketmq": {"topic": "t"},
}
