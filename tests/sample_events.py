"""Valid events for every message of a generated package, built through its own producers.

Used by the tests that run the real sample catalogs end to end (dispatcher and Spark). The
events come from the runtime's testing kit (``xrgen_runtime.testing.example_event``: payload
synthesized from the model's JSON Schema, placeholders and extension attributes from the
producer method's signature). A message whose payload cannot be synthesized is reported, not
silently dropped: :func:`events` returns it in ``skipped`` with the reason.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from xrgen_runtime.testing import ExampleError, example_event


def events(pkg: ModuleType) -> tuple[list[tuple[Any, Any]], dict[str, str]]:
    """``([(MessageInfo, Event)], {message id: why skipped})`` for every message of ``pkg``."""
    built: list[tuple[Any, Any]] = []
    skipped: dict[str, str] = {}
    for message_id, info in sorted(pkg.MESSAGES.items()):
        try:
            built.append((info, example_event(pkg, message_id)))
        except ExampleError as exc:
            skipped[message_id] = str(exc)
    return built, skipped


#: protocol of a definition -> (codec module, content modes); no protocol: Kafka
CODECS = {
    None: ("kafka", ("binary", "structured")),
    "KAFKA": ("kafka", ("binary", "structured")),
    "AMQP/1.0": ("amqp", ("binary", "structured")),
    "MQTT/5.0": ("mqtt", ("binary", "structured")),
    "MQTT/3.1.1": ("mqtt", ("structured",)),
    "NATS": ("nats", ("binary", "structured")),
    "HTTP": ("http", ("binary", "structured")),
    "PULSAR": ("pulsar", ("binary", "structured")),
    "ROCKETMQ": ("rocketmq", ("binary", "structured")),
}


#: codec -> the binding field that names the destination (the encoder needs one)
ROUTING = {
    "kafka": "topic",
    "mqtt": "topic",
    "nats": "subject",
    "pulsar": "topic",
    "rocketmq": "topic",
}


def wire_messages(pkg: ModuleType, info: Any, event: Any) -> list[tuple[str, str, Any]]:
    """``[(codec name, mode, wire message)]`` for ``event`` of message ``info``."""
    name, modes = CODECS[info.definition.protocol]
    codec = importlib.import_module(f"{pkg.__name__}.bindings.{name}")
    field = ROUTING.get(name)
    # the catalog may leave the destination open (no protocol, or no topic option): give one
    route = (
        {field: "samples"} if field and not getattr(event.binding, field, None) else {}
    )
    if info.definition.envelope is None:
        modes = ("binary",)  # a plain protocol message has no content modes
    return [(name, mode, codec.encode(event, mode=mode, **route)) for mode in modes]


def own_wires(pkg: ModuleType, message_id: str, event: Any) -> list[tuple[str, str, Any]]:
    """Like :func:`wire_messages` but the destination comes from the catalog: only a
    protocol-neutral message is given one (``topic="neutral"``, encoded for Kafka)."""
    info = pkg.MESSAGES[message_id]
    name, modes = CODECS[info.definition.protocol]
    codec = importlib.import_module(f"{pkg.__name__}.bindings.{name}")
    if info.definition.envelope is None:
        modes = ("binary",)
    route = {"topic": "neutral"} if info.definition.protocol is None else {}
    return [(name, mode, codec.encode(event, mode=mode, **route)) for mode in modes]

