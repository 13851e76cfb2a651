"""Definitions that tie on everything the wire carries, told apart by their payloads
(catalogs/payloads and the real Sparkplug B sample): the dispatcher gives each event to the
first definition, in catalog order, whose payload model accepts it."""

from __future__ import annotations

import copy
import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sample_events import own_wires
from xrgen_runtime import MqttMessage
from xrgen_runtime.testing import example_event

from xrgen import api, overlap

from conftest import CATALOGS, Generated, require_shared

CATALOG = CATALOGS / "payloads" / "catalog.json"


@pytest.fixture(scope="module")
def pkg(generated: Generated) -> ModuleType:
    return generated(CATALOG, package="payload_ties")


def dispatcher(pkg: ModuleType, ids: Any = None) -> tuple[Any, list[Any], list[Any]]:
    received: list[tuple[str, Any]] = []
    dead: list[tuple[str, str]] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda _w, r, detail: dead.append((r, detail)))
    for message_id in pkg.MESSAGES if ids is None else ids:
        d.on(message_id)(lambda ev, _p, mid=message_id: received.append((mid, ev)))
    return d, received, dead


def test_the_catalog_ties_and_does_not_warn() -> None:
    analysis = api.analyze([str(CATALOG)])
    assert analysis.catalog is not None
    assert [str(d) for d in analysis.diagnostics] == []
    tied = [[m.id for m in group] for group in overlap.ties(analysis.catalog)]
    assert tied == [
        ["payloads.lamp.On", "payloads.lamp.Off"],
        ["payloads.host.Death", "payloads.host.Birth"],
    ]


def test_every_message_reaches_its_own_handler(pkg: ModuleType) -> None:
    d, received, dead = dispatcher(pkg)
    delivered = 0
    for message_id in pkg.MESSAGES:
        event = example_event(pkg, message_id)
        for codec, mode, wire in own_wires(pkg, message_id, event):
            received.clear()
            result = d.dispatch(wire)
            assert result.handled and not dead, (message_id, codec, mode, dead)
            ((got, ev),) = received
            assert got == message_id, (codec, mode)
            assert ev.data == event.data
            delivered += 1
    assert delivered >= 6  # CloudEvents in every binding and mode; plain MQTT


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_the_payload_constant_picks_the_definition(pkg: ModuleType, mode: str) -> None:
    d, received, dead = dispatcher(pkg)
    for message_id, online in (("payloads.lamp.On", True), ("payloads.lamp.Off", False)):
        event = pkg.MESSAGES[message_id].create({"online": online, "watts": 4.5}, lamp="l1")
        wire = importlib.import_module(pkg.__name__ + ".bindings.kafka").encode(
            event, mode=mode, topic="lamps"
        )
        received.clear()
        result = d.dispatch(wire)
        assert result.message_id == message_id and result.handled, dead
        ((got, ev),) = received
        assert got == message_id and ev.data.online is online
        assert ev.attributes["source"] == "/lamps/l1"


def state(host: str, value: str) -> MqttMessage:
    body = json.dumps({"state": value, "timestamp": 1700000000000}).encode()
    return MqttMessage(topic=f"spBv1.0/STATE/{host}", payload=body, qos=1, retain=True)


def test_birth_and_death_on_one_topic(pkg: ModuleType) -> None:
    d, received, dead = dispatcher(pkg)
    for value, expected in (("online", "payloads.host.Birth"), ("offline", "payloads.host.Death")):
        received.clear()
        assert d.dispatch(state("h1", value)).handled, dead
        ((got, ev),) = received
        assert got == expected
        assert ev.data.state.value == value


def test_a_payload_that_no_definition_accepts_is_the_first_ones_validation_error(
    pkg: ModuleType,
) -> None:
    d, received, dead = dispatcher(pkg)
    result = d.dispatch(state("h1", "restarting"))
    assert not result.handled and received == []
    assert (result.message_id, result.reason) == ("payloads.host.Death", "validation-error")
    ((reason, detail),) = dead
    assert reason == "validation-error" and detail.startswith("payloads.host.Death: ")


def test_without_the_accepting_definitions_handler(pkg: ModuleType) -> None:
    # Death has no handler: a Death payload is not Birth's (validation fails there)
    d, received, dead = dispatcher(pkg, ["payloads.host.Birth"])
    result = d.dispatch(state("h1", "offline"))
    assert (result.message_id, result.reason) == ("payloads.host.Death", "no-handler")
    assert received == []
    d.dispatch(state("h1", "online"))
    assert [mid for mid, _ in received] == ["payloads.host.Birth"]


# --------------------------------------------------------------------------- the real sample

SPARKPLUG = "message-definitions/mqtt-sparkplugB.xreg.json"
STATE_GROUP = "Eclipse.SparkplugB.HostApplicationState"


def sparkplug_state(dest: Path) -> Path:
    """The real sample's STATE message group and its JSON schema document, as published,
    with the three names the sample gets wrong corrected (nothing else): it references schema
    group 'Sparkplug' (the group is 'Eclipse.Sparkplug'), points at 'definitions/STATE...' in a
    document that keeps them under 'messages', and that document's ``$ref``s say
    '#/definitions/STATE' for its 'messages/STATE'."""
    sample = json.loads((require_shared() / SPARKPLUG).read_text())
    group = copy.deepcopy(sample["messagegroups"][STATE_GROUP])
    for message in group["messages"].values():
        pointer = message["dataschemauri"].replace(":definitions/", ":messages/")
        message["dataschemauri"] = pointer.replace("/Sparkplug/", "/Eclipse.Sparkplug/")
    schemas = copy.deepcopy(sample["schemagroups"])
    document = schemas["Eclipse.Sparkplug"]["schemas"]["SparkplugB.JSON"]["versions"]["v1.0"]
    text = json.dumps(document["schema"]).replace('"#/definitions/STATE"', '"#/messages/STATE"')
    document["schema"] = json.loads(text)
    path = dest / "sparkplug-state.json"
    path.write_text(json.dumps({"messagegroups": {STATE_GROUP: group}, "schemagroups": schemas}))
    return path


def test_the_published_sparkplug_sample_reports_its_broken_references() -> None:
    analysis = api.analyze([str(require_shared() / SPARKPLUG)])
    found = {(d.pointer, d.code) for d in analysis.diagnostics}
    base = f"/messagegroups/{STATE_GROUP}/messages"
    assert (f"{base}/STATE.Birth/dataschemauri", "XRG210") in found
    assert (f"{base}/STATE.Death/dataschemauri", "XRG210") in found


def test_sparkplug_birth_and_death_reach_their_own_handlers(
    generated: Generated, tmp_path_factory: pytest.TempPathFactory
) -> None:
    source = sparkplug_state(tmp_path_factory.mktemp("sparkplug"))
    analysis = api.analyze([str(source)])
    codes = {d.code for d in analysis.diagnostics}
    assert not codes & {"XRG210", "XRG213", "XRG321", "XRG323", "XRG330"}, codes
    sp = generated(source, package="sparkplug_state")
    birth, death = sp.MESSAGES["STATE.Birth"].model, sp.MESSAGES["STATE.Death"].model
    # typed: required state and timestamp, each model with its own state value
    assert set(birth.model_fields) == {"state", "timestamp"}
    assert birth.model_fields["timestamp"].annotation is int
    assert [s.value for s in birth.model_fields["state"].annotation] == ["online"]
    assert [s.value for s in death.model_fields["state"].annotation] == ["offline"]
    d, received, dead = dispatcher(sp)
    for value, expected in (("online", "STATE.Birth"), ("offline", "STATE.Death")):
        received.clear()
        assert d.dispatch(state("scada", value)).handled, dead
        assert [mid for mid, _ in received] == [expected]
