"""Valid events for every message of a generated package, built through its own producers.

Used by the tests that run the real sample catalogs end to end (dispatcher and Spark). A
payload is the smallest instance of the model's JSON Schema (required members only, first
enum value, lower bounds, formats filled in); placeholders and required extension attributes
(all keyword arguments but ``id`` and ``time``) get values of their annotated type. A message whose payload cannot be synthesized this way
(e.g. a ``pattern`` on a string) is reported, not silently dropped: :func:`events` returns it
in ``skipped`` with the reason, and the tests bound how many may be skipped.
"""

from __future__ import annotations

import importlib
import inspect
import json
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ValidationError

from xrgen.validate import may_be_absolute

FORMATS = {
    "date-time": "2024-05-06T07:08:09Z",
    "date": "2024-05-06",
    "time": "07:08:09Z",
    "uuid": "12345678-1234-4234-8234-123456789abc",
    "email": "a@example.com",
    "uri": "https://example.com/x",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "duration": "PT1S",
}


class Unsynthesizable(Exception):
    """The schema asks for something this simple synthesizer does not produce."""


def minimal(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """The smallest JSON instance of ``schema`` (``$ref``s resolved against ``root``)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return minimal(root.get("$defs", {})[name], root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return minimal(options[0], root)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = minimal(part, root)
            if not isinstance(value, dict):
                return value
            merged.update(value)
        return merged
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {
            name: minimal(props.get(name, {}), root)
            for name in schema.get("required", [])
        }
    if kind == "array":
        count = schema.get("minItems", 0)
        return [minimal(schema.get("items", {}), root) for _ in range(count)]
    if kind == "string":
        if "pattern" in schema:
            raise Unsynthesizable(f"pattern {schema['pattern']!r}")
        if schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        return "x" * max(1, schema.get("minLength", 1))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    raise Unsynthesizable(f"type {kind!r}")


def payload(model: type[BaseModel]) -> BaseModel:
    """A valid instance of ``model`` (validated from JSON, as a consumer would)."""
    schema = model.model_json_schema()
    try:
        return model.model_validate_json(json.dumps(minimal(schema, schema)))
    except ValidationError as exc:
        raise Unsynthesizable(str(exc).splitlines()[0]) from None


def _value(annotation: Any, name: str) -> Any:
    text = str(annotation)
    if "datetime" in text:
        return datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    if "bool" in text:
        return True
    if "int" in text:
        return 7
    if "bytes" in text:
        return b"\x01\x02"
    return f"{name}-1"


def events(pkg: ModuleType) -> tuple[list[tuple[Any, Any]], dict[str, str]]:
    """``([(MessageInfo, Event)], {message id: why skipped})`` for every message of ``pkg``."""
    built: list[tuple[Any, Any]] = []
    skipped: dict[str, str] = {}
    for message_id, info in sorted(pkg.MESSAGES.items()):
        try:
            data: Any = payload(info.model) if info.model is not None else b"\x00opaque"
        except Unsynthesizable as exc:
            skipped[message_id] = str(exc)
            continue
        kwargs = {
            name: _value(p.annotation, name)
            for name, p in inspect.signature(info.create).parameters.items()
            if p.kind is p.KEYWORD_ONLY and name not in ("id", "time")
        }
        built.append((info, info.create(data, **kwargs)))
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


def relative_dataschema(info: Any) -> bool:
    """Whether the catalog fixes ``dataschema`` to a value that is not an absolute URI."""
    value = next(
        (a.value for a in info.definition.attributes if a.name == "dataschema"), None
    )
    return isinstance(value, str) and bool(value) and not may_be_absolute(value)
