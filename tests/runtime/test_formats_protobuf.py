"""Protobuf payloads end to end: the package generated from catalogs/protobuf compiles its .proto
schemas with protoc into ``_proto/``; events carry real Protobuf bytes (parsed back by the
package's class and by a class compiled separately from the same .proto), in every binding and
mode; dispatch hands the handler an instance of the message's model; corrupt bytes are
dead-lettered."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acme_samples import ROUTES
from format_samples import PROTOBUF_CATALOG as CATALOG
from format_samples import REPORT as DATA
from format_samples import binding

from xrgen import api
from xrgen.format import Formatter

REPORT = "example.telemetry.DeviceReport"
ALERT = "example.telemetry.Alert"
AS_JSON = "example.telemetry.ReportJson"
BINDINGS = tuple(sorted(ROUTES))


@pytest.fixture(scope="module")
def tele(generated: Any) -> ModuleType:
    return generated(CATALOG, package="tele_pb")  # type: ignore[no-any-return]


def pb2(pkg: ModuleType) -> Any:
    folder = Path(pkg.__file__).parent / "_proto"
    (name,) = sorted(p.stem for p in folder.glob("device_report_*_pb2.py"))
    return importlib.import_module(f"{pkg.__name__}._proto.{name}")


def test_models_and_content_types(tele: ModuleType) -> None:
    assert tele.MESSAGES[REPORT].definition.datacontenttype == "application/protobuf"
    assert tele.MESSAGES[ALERT].definition.datacontenttype == "application/x-protobuf"
    event = tele.MESSAGES[REPORT].create(DATA, device="d-1")
    report = event.data
    assert isinstance(report, tele.models.DeviceReport)
    assert report.status is tele.models.DeviceReportStatus.DEGRADED
    assert isinstance(report.readings[0], tele.models.DeviceReportReading)
    assert report.readings[1].quality == 0  # proto3 zero default
    assert report.mains is None and report.location is not None and report.location.altitude is None
    assert report.temperature == pytest.approx(21.3, rel=1e-6)  # float32: what the wire holds


def test_parse_from_string_gives_the_created_values(tele: ModuleType, tmp_path: Path) -> None:
    event = tele.MESSAGES[REPORT].create(DATA, device="d-1")
    msg = binding(tele, "kafka").encode(event)
    assert dict(msg.headers)["content-type"] == b"application/protobuf"
    # the package's compiled class
    parsed = pb2(tele).DeviceReport.FromString(msg.value)
    assert parsed.device_id == "d-1" and parsed.sequence == 12345678901
    assert parsed.status == pb2(tele).DeviceReport.DEGRADED
    assert [(r.sensor, r.value, r.quality) for r in parsed.readings] == [("t", 1.25, 3), ("h", -0.5, 0)]
    assert dict(parsed.labels) == {"site": "berlin"} and parsed.latest["t"].value == 9.0
    assert parsed.WhichOneof("power") == "battery_level" and parsed.battery_level == 0.75
    assert parsed.signature == b"\x00\x01\xff" and parsed.note == "hi" and list(parsed.codes) == [-1, 2, -300]
    assert parsed.HasField("location") and not parsed.location.HasField("altitude")
    # a class compiled separately (by the test, with protoc) from the same .proto text
    import grpc_tools
    from grpc_tools import protoc

    schema = json.loads(CATALOG.read_text())["schemagroups"]["example.telemetry.schemas"]["schemas"]
    text = schema["DeviceReport"]["versions"]["1"]["schema"]
    (tmp_path / "sep_report.proto").write_text(text.replace("package example.telemetry;", "package sep;"))
    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    assert protoc.main(["protoc", f"-I{tmp_path}", f"-I{include}", f"--python_out={tmp_path}", str(tmp_path / "sep_report.proto")]) == 0
    sys.path.insert(0, str(tmp_path))
    try:
        separate = importlib.import_module("sep_report_pb2")
    finally:
        sys.path.remove(str(tmp_path))
    other = separate.DeviceReport.FromString(msg.value)
    assert other.device_id == "d-1" and other.latest["t"].quality == 1 and other.mains is False
    # and that class's bytes dispatch into the model
    got: list[Any] = []
    d = tele.consumer.Dispatcher()
    d.on(REPORT)(lambda ev, params: got.append(ev))
    import dataclasses

    assert d.dispatch(dataclasses.replace(msg, value=other.SerializeToString()))
    assert got[0].data == event.data


@pytest.mark.parametrize("binding_name", BINDINGS)
@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_every_binding_and_mode(tele: ModuleType, binding_name: str, mode: str) -> None:
    codec = binding(tele, binding_name)
    cases: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        (ALERT, {"device_id": "d", "severity": "CRITICAL", "text": "hot"}, ROUTES[binding_name]),
        (ALERT, {}, ROUTES[binding_name]),  # every field at its default: zero bytes on the wire
    ]
    if binding_name == "kafka":
        cases.append((REPORT, DATA, {}))
    for message_id, data, route in cases:
        info = tele.MESSAGES[message_id]
        event = info.create(data, device="d")
        wire = codec.encode(event, mode=mode, **route)
        got: list[Any] = []
        dead: list[Any] = []
        d = tele.consumer.Dispatcher(dead_letter=lambda w, r, detail, dead=dead: dead.append((r, detail)))
        d.on(message_id)(lambda ev, params, got=got: got.append(ev))
        assert d.dispatch(wire), (message_id, dead)
        assert isinstance(got[0].data, info.model) and got[0].data == event.data
        if mode == "structured":
            assert isinstance(codec.decode(wire).data, bytes)  # data_base64


def test_json_declared_message_stays_json(tele: ModuleType) -> None:
    event = tele.MESSAGES[AS_JSON].create({"device_id": "x", "status": "OK"}, device="x")
    body = binding(tele, "jsonformat").encode(event)
    assert json.loads(body)["data"]["device_id"] == "x"


def test_corrupt_bytes_and_double_oneof(tele: ModuleType) -> None:
    import dataclasses

    event = tele.MESSAGES[REPORT].create(DATA, device="d-1")
    msg = binding(tele, "kafka").encode(event)
    dead: list[tuple[str, str]] = []
    d = tele.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append((r, detail)))
    d.on(REPORT)(lambda ev, params: pytest.fail("handler called"))
    for value in (msg.value[:-3], b"\xff\xff\xff", json.dumps({"device_id": "x"}).encode()):
        assert not d.dispatch(dataclasses.replace(msg, value=value))
    assert len(dead) == 3 and {r for r, _ in dead} == {"validation-error"}
    with pytest.raises(ValueError, match="oneof 'power' takes at most one of battery_level, mains"):
        tele.MESSAGES[REPORT].create({**DATA, "mains": True}, device="d-1")
    # a model built without validation is still refused by the codec
    both = tele.MESSAGES[REPORT].create(DATA, device="d-1")
    both.data.__dict__["mains"] = True
    with pytest.raises(ValueError, match="oneof"):
        binding(tele, "kafka").encode(both)


def test_oneof_groups_are_validated_on_consume_and_stated_in_the_json_schema(tele: ModuleType) -> None:
    import dataclasses

    import jsonschema

    model = tele.models.DeviceReport
    assert model(battery_level=0.5, mains=None).battery_level == 0.5
    schema = model.model_json_schema()
    jsonschema.validate({"battery_level": 0.5, "mains": None}, schema)
    jsonschema.validate({"mains": True}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"battery_level": 0.5, "mains": True}, schema)
    # a JSON payload of the same model setting both members is dead-lettered, not handled
    info = tele.MESSAGES[AS_JSON]
    assert info.definition.model is model
    msg = binding(tele, "kafka").encode(info.create({"device_id": "x"}, device="x"), topic="t")
    data = {**json.loads(msg.value), "battery_level": 0.5, "mains": True}
    dead: list[str] = []
    d = tele.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
    d.on(AS_JSON)(lambda ev, params: pytest.fail("handler called"))
    assert not d.dispatch(dataclasses.replace(msg, value=json.dumps(data).encode()))
    assert len(dead) == 1 and "oneof 'power'" in dead[0]


def test_protoc_output_is_deterministic(tmp_path: Path) -> None:
    runs = [
        api.generate([str(CATALOG)], "det_pb", formatter=Formatter(cache_dir=tmp_path / str(i), use_cache=False))
        for i in range(2)
    ]
    proto = [{str(p): t for p, t in r.files.items() if "_proto" in p.parts} for r in runs]
    assert proto[0] and proto[0] == proto[1]
