"""``xrgen inspect --json``: the resolved messages in the catalog's own attribute names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xrgen.cli import main

CATALOGS = Path(__file__).resolve().parents[2] / "catalogs"


def _inspect(capsys: pytest.CaptureFixture[str], *catalogs: Path) -> dict:
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
