"""XRG330: definitions that no wire message can tell apart (generator/overlap.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xrgen import api


def message(ce_type: str, source: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"type": {"value": ce_type}}
    if source is not None:
        meta["source"] = {"type": "uritemplate", "value": source}
    return {"envelope": "CloudEvents/1.0", "envelopemetadata": meta, **extra}


def ct_message(content_type: str) -> dict[str, Any]:
    m = message("t", "/s")
    m["envelopemetadata"]["datacontenttype"] = {"value": content_type}
    return m


def flagged(tmp_path: Path, messages: dict[str, Any], **group: Any) -> list[str]:
    doc = {
        "messagegroups": {
            "g": {"envelope": "CloudEvents/1.0", "messages": messages, **group},
        }
    }
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    result = api.analyze([str(path)])
    assert not result.diagnostics.has_errors, [str(d) for d in result.diagnostics.items]
    return [str(d) for d in result.diagnostics.items if d.code == "XRG330"]


def test_same_checks_are_flagged_with_both_names(tmp_path: Path) -> None:
    found = flagged(
        tmp_path,
        {
            "a": message("t", "/p/{plant}"),
            "b": message("t", "/p/{site}"),  # another placeholder name, same texts
            "c": message("t", "/p/{plant}", protocol="KAFKA"),  # bound: more specific
            "d": message("t", "/q/{plant}"),
            "e": message("t"),
        },
    )
    assert len(found) == 1
    assert found[0].startswith(
        f"{tmp_path / 'catalog.json'}#/messagegroups/g/messages/b: warning XRG330"
    )
    assert "'b'" in found[0] and "'a'" in found[0]


def test_options_constants_and_content_types_tell_apart(tmp_path: Path) -> None:
    kafka = {"protocol": "KAFKA"}
    found = flagged(
        tmp_path,
        {
            "a": message("t", **kafka, protocoloptions={"topic": "x"}),
            "b": message("t", **kafka, protocoloptions={"topic": "y"}),
            "c": message("t", **kafka, protocoloptions={"topic": "x", "partition": 3}),
            "d": ct_message("application/json"),
            "e": ct_message("application/xml"),
            "f": ct_message("application/JSON; charset=utf-8"),
        },
    )
    # partition may change in transit and is never matched: c is a; f is d
    assert [line.split("#", 1)[1].split(":", 1)[0] for line in found] == [
        "/messagegroups/g/messages/c",
        "/messagegroups/g/messages/f",
    ]


def test_an_xref_alias_is_its_target(tmp_path: Path) -> None:
    found = flagged(
        tmp_path,
        {"a": message("t", "/s"), "b": {"xref": "/messagegroups/g/messages/a"}},
    )
    assert found == []


def test_required_attributes(tmp_path: Path) -> None:
    def required(name: str) -> dict[str, Any]:
        m = message("t")
        m["envelopemetadata"][name] = {"type": "string", "required": True}
        return m

    found = flagged(
        tmp_path,
        {"a": message("t"), "b": required("tenant"), "c": required("source")},
    )
    # every CloudEvent has a source: requiring it tells c from nothing
    assert [line.split("#", 1)[1].split(":", 1)[0] for line in found] == [
        "/messagegroups/g/messages/c"
    ]


def with_payload(schema: dict[str, Any], fmt: str = "JsonSchema/draft-07") -> dict[str, Any]:
    return message("t", "/s", dataschemaformat=fmt, dataschema=schema)


def online(value: Any, **more: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"online": {"const": value}, **more},
        "required": ["online"],
    }


def test_payloads_that_may_overlap_are_flagged(tmp_path: Path) -> None:
    found = flagged(
        tmp_path,
        {
            "a": with_payload(online(True)),
            "b": with_payload(online(True, watts={"type": "number"})),  # same online
            "c": with_payload({"type": "object"}),  # accepts what a accepts
            "d": with_payload({}),  # accepts anything
            "e": with_payload(online(1)),  # the models take true for 1
        },
    )
    assert [line.split("#", 1)[1].split(":", 1)[0] for line in found] == [
        "/messagegroups/g/messages/b",
        "/messagegroups/g/messages/c",
        "/messagegroups/g/messages/d",
        "/messagegroups/g/messages/e",
    ]
    assert all("'a'" in line for line in found)
    assert "payload schemas that may accept the same payload" in found[0]


def test_disjoint_payloads_are_not_flagged(tmp_path: Path) -> None:
    found = flagged(
        tmp_path,
        {
            "on": with_payload(online(True)),
            "off": with_payload(online(False)),
            "text": with_payload({"type": "string"}),
            "list": with_payload({"type": "array"}),
        },
    )
    assert found == []


def test_the_first_overlapping_earlier_definition_is_named(tmp_path: Path) -> None:
    found = flagged(
        tmp_path,
        {
            "on": with_payload(online(True)),
            "off": with_payload(online(False)),
            "off2": with_payload(online(False)),
        },
    )
    assert len(found) == 1
    assert found[0].split("#", 1)[1].startswith("/messagegroups/g/messages/off2:")
    assert "apart from 'off'" in found[0]


def test_other_formats_may_overlap(tmp_path: Path) -> None:
    avro = {"type": "record", "name": "R", "fields": [{"name": "online", "type": "boolean"}]}
    both = {"json": with_payload(online(True)), "avro": with_payload(avro, fmt="Avro/1.11.1")}
    for m in both.values():  # Avro as JSON text: the same content type
        m["envelopemetadata"]["datacontenttype"] = {"value": "application/json"}
    found = flagged(tmp_path, both)
    assert len(found) == 1 and "'avro'" in found[0]
