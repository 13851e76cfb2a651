"""Common catalog mistakes end where they are made: a diagnostic at generation, never a
surprise at run time. Each catalog is generated, imported and run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xrgen.cli import main

from conftest import Generated

CE = "CloudEvents/1.0"


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_message_omitting_its_groups_envelope_makes_cloudevents(
    tmp_path: Path, generated: Generated
) -> None:
    catalog = _write(tmp_path, {"messagegroups": {"shop": {"envelope": CE, "messages": {
        "shop.placed": {"messageid": "shop.placed",
                        "envelopemetadata": {"type": {"value": "shop.placed"}, "source": {"value": "/shop/{store}"}},
                        "dataschemaformat": "JsonSchema/draft-07",
                        "dataschema": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}}})
    pkg = generated(catalog)
    event = pkg.MESSAGES["shop.placed"].create({"n": 1}, store="berlin")
    assert event.attributes["specversion"] == "1.0" and event.attributes["source"] == "/shop/berlin"
    kafka = __import__(pkg.__name__ + ".bindings.kafka", fromlist=["encode"])
    seen: list[Any] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda *a: seen.append(("dead", a)))
    d.on_placed(lambda ev, params: seen.append((ev.data.n, params)))
    d.dispatch(kafka.encode(event, topic="orders"))
    assert seen == [(1, {"store": "berlin"})]


def test_camel_case_protocol_options_on_an_endpoint_are_read(
    tmp_path: Path, generated: Generated, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = _write(tmp_path, {"endpoints": {"orders.out": {
        "usage": ["producer"], "protocol": "KAFKA",
        "protocolOptions": {"endpoints": [{"bootstrap.servers": ["broker.example.com:9092"]}], "topic": "orders"}}}})
    assert main(["validate", str(catalog)]) == 0
    assert "warning XRG127: 'protocolOptions' read as 'protocoloptions'" in capsys.readouterr().err
    ep = generated(catalog).ENDPOINTS["orders.out"]
    assert ep.uris == ("broker.example.com:9092",) and ep.options["topic"] == "orders"
    assert ep.config()["bootstrap.servers"] == "broker.example.com:9092"


def test_a_topicfilter_on_an_mqtt_producer_is_warned_and_not_applied(
    tmp_path: Path, generated: Generated, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = _write(tmp_path, {"endpoints": {"devices.out": {
        "usage": ["producer"], "protocol": "MQTT/5.0",
        "protocoloptions": {"endpoints": [{"uri": "mqtt://broker.example.com:1883"}], "topicfilter": "devices/#"}}}})
    assert main(["validate", str(catalog)]) == 0
    assert "warning XRG149: MQTT/5.0 endpoint option 'topicfilter' is used by consumer or subscriber" in capsys.readouterr().err
    assert main(["validate", str(catalog), "--strict"]) == 1
    assert "topicfilter" not in generated(catalog).ENDPOINTS["devices.out"].config()


def test_a_dangling_ref_is_a_warning_and_an_error_under_strict(
    tmp_path: Path, generated: Generated, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = _write(tmp_path, {"messagegroups": {"g": {"envelope": CE, "messages": {"g.m": {
        "messageid": "g.m", "envelope": CE,
        "envelopemetadata": {"type": {"value": "g.m"}, "source": {"value": "/s"}},
        "dataschemaformat": "JsonSchema/draft-07",
        "dataschema": {"title": "Order", "type": "object",
                       "properties": {"customer": {"$ref": "#/definitions/Customr"}},
                       "definitions": {"Customer": {"type": "object"}}}}}}}})
    out = tmp_path / "out"
    assert main(["generate", str(catalog), "--out", str(out), "--package", "p", "--quiet", "--strict", "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert (
        "catalog.json#/messagegroups/g/messages/g.m/dataschema/properties/customer/$ref: error XRG157:"
        " $ref '#/definitions/Customr' names nothing in this schema (did you mean '#/definitions/Customer'?)"
    ) in err
    assert "--strict-refs" not in err and "$defs" not in err
    assert not out.exists()
    pkg = generated(catalog)
    assert pkg.models.Order.model_validate({"customer": [1, 2]}).customer == [1, 2]  # typed Any


def test_notes_never_fail_a_strict_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = _write(tmp_path, {"x-owner": "team", "messagegroups": {"g": {"envelope": CE, "version": 2, "messages": {
        "g.m": {"messageid": "g.m", "envelopemetadata": {"type": {"value": "g.m"}, "source": {"value": "/s"}}}}}}})
    assert main(["validate", str(catalog), "--strict"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert sorted(line.split(": ")[1] for line in err) == ["note XRG129", "note XRG129", "note XRG147"]
