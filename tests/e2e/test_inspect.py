"""``xrgen inspect``: the resolved message groups and endpoints in the catalog's own attribute
names (``--json``), and as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xrgen.cli import main

CATALOGS = Path(__file__).resolve().parents[2] / "catalogs"


def _inspect(capsys: pytest.CaptureFixture[str], *catalogs: Path) -> dict:
    """The message groups of ``xrgen inspect --json``."""
    return _document(capsys, *catalogs)["messagegroups"]


def _document(capsys: pytest.CaptureFixture[str], *catalogs: Path) -> dict:
    assert main(["inspect", "--json", *map(str, catalogs)]) == 0
    return json.loads(capsys.readouterr().out)


def test_basemessage_chain_merges_back_up(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _inspect(capsys, CATALOGS / "resolution" / "catalog.json")
    leaf = doc["chains"]["messages"]["leaf"]
    assert leaf["messageid"] == "leaf"
    meta = leaf["envelopemetadata"]
    assert meta["type"]["value"] == "chains.leaf"  # own scalar wins
    assert meta["subject"] == {"type": "string", "description": "from root", "value": "fixed"}  # deep merge
    assert meta["source"]["value"] == "/tenants/{tenant}"  # inherited through two levels
    assert leaf["protocol"] == "MQTT/5.0"
    assert leaf["protocoloptions"]["qos"] == 2  # from middle
    assert leaf["protocoloptions"]["user_properties"] == [{"name": "b", "value": "2"}]  # arrays replace
    assert leaf["location"].endswith("catalog.json#/messagegroups/chains/messages/leaf")


def test_xref_keeps_own_id_and_is_not_transitive(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _inspect(capsys, CATALOGS / "resolution" / "catalog.json")
    aliases = doc["aliases"]["messages"]
    assert set(aliases) == {"leafalias", "metaalias"}  # aliasofalias and danglingalias left out
    assert aliases["leafalias"]["messageid"] == "leafalias"
    assert aliases["leafalias"]["envelopemetadata"]["type"]["value"] == "chains.leaf"
    assert aliases["metaalias"]["protocoloptions"]["qos"] == 1
    # a group xref looks like its target, with its own id
    assert set(doc["groupalias"]["messages"]) == set(doc["chains"]["messages"])


def test_schema_resolution_newest_version_and_implied_attributes(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _inspect(capsys, CATALOGS / "acme" / "catalog.json")
    reading = doc["com.acme.base"]["messages"]["com.acme.Reading"]
    assert reading["dataschema"]["description"] == "One measured value."  # version 2, the newest
    meta = reading["envelopemetadata"]
    assert meta["specversion"]["value"] == "1.0" and meta["id"]["required"] is True
    assert meta["datacontenttype"]["value"] == "application/json"
    batch = doc["com.acme.base"]["messages"]["com.acme.ReadingBatch"]
    assert batch["protocol"] == "HTTP" and batch["envelopemetadata"]["source"]["value"] == "/plants/{plant}/sensors/{sensor}"


def test_stacking_later_shadows_earlier(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    override = tmp_path / "override.json"
    override.write_text(json.dumps({"messagegroups": {"chains": {"envelope": "CloudEvents/1.0", "messages": {
        "root": {"envelope": "CloudEvents/1.0", "description": "overridden",
                 "envelopemetadata": {"type": {"value": "chains.root2"}, "source": {"value": "/o"}}}}}}}))
    doc = _inspect(capsys, CATALOGS / "resolution" / "catalog.json", override)
    root = doc["chains"]["messages"]["root"]
    assert root["envelopemetadata"]["type"]["value"] == "chains.root2"
    assert root["location"].startswith(str(override)) or root["location"].endswith("override.json#/messagegroups/chains/messages/root")
    assert "middle" in doc["chains"]["messages"]  # the earlier document's other messages stay


def test_endpoints_with_their_resolved_options_and_messages(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _document(capsys, CATALOGS / "endpoints" / "catalog.json")
    assert set(doc) == {"messagegroups", "endpoints"}
    billing = doc["endpoints"]["com.example.orders.billing"]
    assert billing["usage"] == ["consumer"] and billing["protocol"] == "KAFKA"
    assert billing["uris"] == ["{host}:{port}"]
    assert billing["options"]["consumergroup"] == "billing-{tenant}"
    assert billing["options"]["autooffsetreset"] == "earliest"
    assert billing["messagegroups"] == ["com.example.orders"]
    assert billing["messages"] == list(doc["messagegroups"]["com.example.orders"]["messages"])
    assert billing["location"].endswith("catalog.json#/endpoints/com.example.orders.billing")
    device = doc["endpoints"]["com.example.legacy.device"]
    assert device["options"] == {"topic": "legacy/{tenant}/{device}/status", "qos": 1, "cleansession": True}


def test_text_lists_groups_messages_and_endpoints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(CATALOGS / "endpoints" / "catalog.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index(next(line for line in out if line.startswith("endpoint com.example.orders.billing ")))
    assert out[start].startswith("endpoint com.example.orders.billing  usage=consumer protocol=KAFKA  (")
    block = out[start + 1 : out.index(next(line for line in out[start + 1 :] if not line.startswith("  ")))]
    assert "  uris: {host}:{port}" in block
    assert "  consumergroup: billing-{tenant}" in block
    assert any(line.startswith("  messages: com.example.orders.") for line in block)


def test_a_message_omitting_its_groups_envelope_is_shown_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "c.json"
    catalog.write_text(json.dumps({"messagegroups": {"g": {"envelope": "CloudEvents/1.0", "messages": {
        "g.m": {"messageid": "g.m", "envelopemetadata": {"type": {"value": "g.m"}, "source": {"value": "/s"}}}}}}}))
    assert main(["inspect", str(catalog)]) == 0
    out, err = capsys.readouterr()
    assert "  g.m  envelope=CloudEvents/1.0 protocol=-  (" in out
    assert "note XRG147: the message declares no 'envelope'; it takes its group's 'CloudEvents/1.0'" in err
