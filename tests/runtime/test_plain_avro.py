"""Plain protocol messages (no CloudEvents envelope) with an Avro payload schema and no declared
content type carry Avro binary, in the package's framing, on every binding.

catalogs/windgenerator has one such message per binding (and one bound to no protocol, sent
over every binding): each is created by its producer, encoded by its binding's codec, its wire
payload read back by fastavro on its own (with the schema taken from the catalog file, not
from the package), and dispatched (sync and async) to its handler, which gets the created
payload. A plain message declared ``application/json`` stays JSON. (No real sample catalog
holds a plain Avro message; the spec scenario windgenerator-kafka-avro is text only.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import fastavro
import pytest
from acme_samples import ROUTES
from fastavro.schema import fingerprint, to_parsing_canonical_form
from format_samples import WIND_CATALOG as CATALOG
from format_samples import WIND_MESSAGES as MESSAGES
from format_samples import binding

from conftest import Generated

G = "WindGenerator."
#: protocol -> binding codec
CODEC = {
    "KAFKA": "kafka", "MQTT/5.0": "mqtt", "MQTT/3.1.1": "mqtt", "AMQP/1.0": "amqp", "NATS": "nats",
    "HTTP": "http", "PULSAR": "pulsar", "ROCKETMQ": "rocketmq",
}
#: binding -> the wire message field that holds the payload
PAYLOAD_FIELD = {
    "kafka": "value", "mqtt": "payload", "amqp": "body", "nats": "payload", "http": "body",
    "pulsar": "payload", "rocketmq": "body",
}


@pytest.fixture(scope="module")
def wind(generated: Generated) -> ModuleType:
    return generated(CATALOG, package="wind_plain")


@pytest.fixture(scope="module")
def wind_single(generated: Generated) -> ModuleType:
    return generated(CATALOG, package="wind_single", avro_framing="single-object")


def catalog_schema(path: Path, message_id: str) -> Any:
    """The Avro schema of ``message_id`` as the catalog file has it (its ``dataschemauri``)."""
    doc = json.loads(path.read_text())
    (group,) = doc["messagegroups"].values()
    uri = group["messages"][message_id]["dataschemauri"]
    _, schema_group, _, schema_id = uri.lstrip("#/").split("/")
    return doc["schemagroups"][schema_group]["schemas"][schema_id]["versions"]["1"]["schema"]


def read_avro(schema: Any, body: bytes) -> Any:
    """``body`` read by fastavro alone; every byte must belong to the datum."""
    buf = io.BytesIO(body)
    record = fastavro.schemaless_reader(buf, fastavro.parse_schema(schema), None)
    assert buf.tell() == len(body), "bytes after the Avro datum"
    return record


def wires(pkg: ModuleType, message_id: str, event: Any) -> list[tuple[str, Any]]:
    """``[(binding, wire message)]``: the message's own binding, or every binding when the
    definition names no protocol (destination given by the test)."""
    protocol = pkg.MESSAGES[message_id].definition.protocol
    if protocol is not None:
        name = CODEC[protocol]
        return [(name, binding(pkg, name).encode(event))]
    out = []
    for name, route in sorted(ROUTES.items()):
        route = {k: v for k, v in route.items() if k != "address"}
        out.append((name, binding(pkg, name).encode(event, **route)))
    return out


def payload_bytes(name: str, wire: Any) -> bytes:
    body = getattr(wire, PAYLOAD_FIELD[name])
    assert isinstance(body, bytes)
    return body


def dispatch_both(pkg: ModuleType, message_id: str, wire: Any) -> list[tuple[Any, dict[str, str]]]:
    """``wire`` through ``dispatch`` and ``dispatch_async``: what the handler got each time
    (nothing may be dead-lettered)."""
    got: list[tuple[Any, dict[str, str]]] = []
    dead: list[tuple[str, str]] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda _w, reason, detail: dead.append((reason, detail)))
    for mid in pkg.MESSAGES:
        d.on(mid)(lambda ev, params, mid=mid: got.append((mid, ev, params)))
    assert d.dispatch(wire), dead
    assert asyncio.run(d.dispatch_async(wire)), dead
    assert not dead and [m for m, _, _ in got] == [message_id, message_id]
    return [(ev, params) for _, ev, params in got]


def same_record(read: Any, event: Any) -> None:
    """fastavro's record equals the created payload (datetimes and bytes compared as values)."""
    assert type(event.data).model_validate(read) == event.data


@pytest.mark.parametrize("message_id", sorted(MESSAGES))
def test_plain_avro_message_travels_as_avro_binary(wind: ModuleType, message_id: str) -> None:
    payload, values = MESSAGES[message_id]
    info = wind.MESSAGES[message_id]
    assert info.definition.envelope is None and info.definition.datacontenttype == "avro/binary"
    event = info.create(payload, **values)
    assert event.attributes == {} and event.datacontenttype == "avro/binary"
    schema = catalog_schema(CATALOG, message_id)
    for name, wire in wires(wind, message_id, event):
        body = payload_bytes(name, wire)
        with pytest.raises(ValueError):
            json.loads(body)  # not the model's JSON
        read = read_avro(schema, body)
        same_record(read, event)
        for got, params in dispatch_both(wind, message_id, wire):
            assert got.data == event.data, name
            if info.definition.protocol is not None:
                assert got == event  # the created event is the event its handler receives
            assert got.content_type == "avro/binary"
            assert params == values, name


def test_the_enum_and_logical_types_on_the_wire(wind: ModuleType) -> None:
    payload, values = MESSAGES[G + "Telemetry"]
    event = wind.MESSAGES[G + "Telemetry"].create(payload, **values)
    msg = binding(wind, "kafka").encode(event)
    assert msg.topic == "windgenerator.telemetry" and msg.key == b"wt-07" and msg.headers == ()
    read = read_avro(catalog_schema(CATALOG, G + "Telemetry"), msg.value)
    assert read["state"] == "RUNNING" and read["powerKw"] == 2_350
    assert read["measuredAt"].isoformat() == "2024-05-01T10:00:00.123000+00:00"


def test_declared_json_stays_json(wind: ModuleType) -> None:
    mid = G + "LogLine"
    info = wind.MESSAGES[mid]
    assert info.definition.datacontenttype == "application/json"
    event = info.create({"turbineId": "wt-07", "line": "yaw motor warm"}, farmid="north", turbineid="wt-07")
    assert event.content_type is None
    msg = binding(wind, "mqtt").encode(event)
    assert json.loads(msg.payload) == {"turbineId": "wt-07", "line": "yaw motor warm"}
    ((got, params),) = dispatch_both(wind, mid, msg)[:1]
    assert got.data == event.data and params == {"farmid": "north", "turbineid": "wt-07"}


def test_json_bytes_of_a_plain_avro_message_are_dead_lettered(wind: ModuleType) -> None:
    payload, values = MESSAGES[G + "Telemetry"]
    event = wind.MESSAGES[G + "Telemetry"].create(payload, **values)
    msg = binding(wind, "kafka").encode(event)
    dead: list[str] = []
    d = wind.consumer.Dispatcher(dead_letter=lambda _w, reason, _d: dead.append(reason))
    d.on(G + "Telemetry")(lambda ev, params: pytest.fail("handler called"))
    for value in (event.data.model_dump_json(by_alias=True).encode(), msg.value[:-2], msg.value + b"\x00"):
        assert not d.dispatch(dataclasses.replace(msg, value=value))
    assert dead == ["validation-error"] * 3


@pytest.mark.parametrize("message_id", sorted(MESSAGES))
def test_plain_avro_takes_the_package_framing(wind_single: ModuleType, message_id: str) -> None:
    payload, values = MESSAGES[message_id]
    event = wind_single.MESSAGES[message_id].create(payload, **values)
    schema = catalog_schema(CATALOG, message_id)
    fp = int(fingerprint(to_parsing_canonical_form(schema), "CRC-64-AVRO"), 16).to_bytes(8, "little")
    for name, wire in wires(wind_single, message_id, event):
        body = payload_bytes(name, wire)
        assert body[:2] == b"\xc3\x01" and body[2:10] == fp, name
        same_record(read_avro(schema, body[10:]), event)
        for got, _params in dispatch_both(wind_single, message_id, wire):
            assert got.data == event.data
