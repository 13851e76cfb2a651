"""Our codecs against the ``cloudevents`` package 2.x core bindings (HTTP, Kafka, AMQP).

Both directions, both content modes: what our codecs write, ``cloudevents`` reads with the same
attributes (compared attribute by attribute, in canonical form) and the same data (byte by
byte for opaque data, as JSON values for JSON data); what ``cloudevents`` writes, our codecs
decode identically.
"""

from __future__ import annotations

import base64
import importlib
import os
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import pytest

CI = os.environ.get("CI") == "true"

try:
    from cloudevents.core.bindings import amqp as ce_amqp
    from cloudevents.core.bindings import http as ce_http
    from cloudevents.core.bindings import kafka as ce_kafka
    from cloudevents.core.formats.json import JSONFormat
    from cloudevents.core.v1.event import CloudEvent
except ImportError:  # pragma: no cover - exercised only without the test extra
    if CI:
        raise
    pytest.skip(
        'cloudevents>=2 not installed: pip install "cloudevents>=2"',
        allow_module_level=True,
    )

BINDINGS = ["http", "kafka", "amqp"]
MODES = ["binary", "structured"]
TIME = datetime(2024, 5, 1, 12, 30, 15, 123000, tzinfo=timezone.utc)
OPAQUE = b"\x00\x01\xfe\xff opaque \x80"


def codec(rt: ModuleType, name: str) -> ModuleType:
    try:
        return importlib.import_module(f"{rt.__name__}.bindings.{name}")
    except ImportError as exc:
        if CI:
            pytest.fail(f"codec bindings/{name}.py missing: {exc}")
        pytest.skip(f"codec bindings/{name}.py not importable yet: {exc}")
        raise


def canon(value: Any) -> Any:
    """Canonical form for comparing attribute values across type systems."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        try:  # a timestamp that arrived as its canonical string
            return (
                datetime.fromisoformat(value.replace("Z", "+00:00"))
                .astimezone(timezone.utc)
                .isoformat()
            )
        except ValueError:
            return value
    return value


def canon_attrs(attributes: dict[str, Any]) -> dict[str, Any]:
    return {k: canon(v) for k, v in attributes.items() if v is not None}


def attributes(json_data: bool) -> dict[str, Any]:
    return {
        "specversion": "1.0",
        "id": "evt-42",
        "source": "https://example.com/sensors/s 1",
        "type": "com.example.Reading",
        "time": TIME,
        "subject": 'naïve € %20 "quoted"',
        "dataschema": "https://example.com/schemas/reading.json",
        "datacontenttype": (
            "application/json" if json_data else "application/octet-stream"
        ),
        "partitionkey": "s1",
        "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    }


PAYLOAD = {"value": 21.5, "unit": "°C", "tags": ["a", "b"]}


# ---------------------------------------------------------------------------------------------
# wire message conversion between the two libraries (pure data, no semantics)
# ---------------------------------------------------------------------------------------------


def ours_to_ce(binding: str, msg: Any) -> Any:
    if binding == "http":
        return ce_http.HTTPMessage(headers=dict(msg.headers), body=msg.body)
    if binding == "kafka":
        return ce_kafka.KafkaMessage(
            headers={k: v for k, v in msg.headers if v is not None},
            key=msg.key,
            value=msg.value if msg.value is not None else b"",
        )
    return ce_amqp.AMQPMessage(
        properties=dict(msg.properties),
        application_properties=dict(msg.application_properties),
        application_data=msg.body or b"",
    )


def ce_to_ours(rt: ModuleType, binding: str, msg: Any) -> Any:
    if binding == "http":
        return rt.HttpMessage(
            method="POST", path="/", headers=tuple(msg.headers.items()), body=msg.body
        )
    if binding == "kafka":
        key = msg.key.encode() if isinstance(msg.key, str) else msg.key
        return rt.KafkaMessage(
            topic="readings",
            key=key,
            value=msg.value,
            headers=tuple(msg.headers.items()),
        )
    # The SDK's library-neutral AMQPMessage carries an AMQP timestamp as a plain int of
    # milliseconds ("AMQP timestamp type (milliseconds since Unix epoch as int)"); on the wire
    # (e.g. proton.timestamp) it is a timestamp, which is what our AmqpMessage models.
    app = {
        k: (
            datetime.fromtimestamp(v / 1000, timezone.utc)
            if k == "cloudEvents_time"
            else v
        )
        for k, v in msg.application_properties.items()
    }
    return rt.AmqpMessage(
        body=msg.application_data,
        properties=dict(msg.properties),
        application_properties=app,
    )


def ce_module(binding: str) -> Any:
    return {"http": ce_http, "kafka": ce_kafka, "amqp": ce_amqp}[binding]


def our_binding(rt: ModuleType, binding: str) -> Any:
    if binding == "kafka":
        return rt.KafkaBinding(topic="readings")
    if binding == "amqp":
        return rt.AmqpBinding(address="/queue/readings")
    return rt.HttpBinding(method="POST", path="/events")


def ce_read(binding: str, msg: Any) -> Any:
    module = ce_module(binding)
    reader = {"http": "from_http", "kafka": "from_kafka", "amqp": "from_amqp"}[binding]
    return getattr(module, reader)(msg, JSONFormat(), CloudEvent)


# ---------------------------------------------------------------------------------------------
# ours -> cloudevents
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("json_data", [True, False], ids=["json", "opaque"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("binding", BINDINGS)
def test_cloudevents_reads_what_we_write(
    runtime_package: ModuleType, binding: str, mode: str, json_data: bool
) -> None:
    rt = runtime_package
    ours = codec(rt, binding)
    attrs = attributes(json_data)
    data: Any = dict(PAYLOAD) if json_data else OPAQUE
    event = rt.Event(
        attributes=dict(attrs), data=data, binding=our_binding(rt, binding)
    )
    wire = ours.encode(event, mode=mode)

    theirs = ce_read(binding, ours_to_ce(binding, wire))

    assert canon_attrs(theirs.get_attributes()) == canon_attrs(attrs)
    got = theirs.get_data()
    if json_data:
        assert got == PAYLOAD
    else:
        assert (got.encode() if isinstance(got, str) else got) == OPAQUE


# ---------------------------------------------------------------------------------------------
# cloudevents -> ours
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("json_data", [True, False], ids=["json", "opaque"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("binding", BINDINGS)
def test_we_read_what_cloudevents_writes(
    runtime_package: ModuleType, binding: str, mode: str, json_data: bool
) -> None:
    rt = runtime_package
    ours = codec(rt, binding)
    attrs = attributes(json_data)
    ce_event = CloudEvent(attributes=dict(attrs), data=PAYLOAD if json_data else OPAQUE)
    module = ce_module(binding)
    writer = "to_binary" if mode == "binary" else "to_structured"
    ce_wire = getattr(module, writer)(ce_event, JSONFormat())
    theirs_data = JSONFormat().write_data(ce_event.get_data(), attrs["datacontenttype"])

    event = ours.decode(ce_to_ours(rt, binding, ce_wire))

    assert canon_attrs(event.attributes) == canon_attrs(ce_event.get_attributes())
    if mode == "binary":
        assert event.data == theirs_data  # byte for byte
    elif json_data:
        assert event.data == PAYLOAD  # the JSON value of the structured "data" member
    else:
        assert event.data == OPAQUE  # "data_base64" decodes to the same bytes
