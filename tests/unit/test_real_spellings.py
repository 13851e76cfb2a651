"""What real catalogs write: legacy documents, named schema types with pointers, ``schemauri``,
templated ``time``, registry-relative ``dataschema``, and CloudEvents messages left without a
``type`` (with the closest basemessage suggested)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from xrgen import api
from xrgen.cloudevents import absolute_dataschema, registry_base

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {
        "Birth": {"type": "object", "title": "Birth", "properties": {"seq": {"type": "integer"}}},
        "Death": {"type": "object", "title": "Death", "properties": {"at": {"type": "string"}}},
    },
}


def _ce(mid: str, **extra: Any) -> dict[str, Any]:
    meta = {"type": {"value": mid}, "source": {"value": "/s"}}
    meta.update(extra.pop("meta", {}))
    return {"messageid": mid, "envelope": "CloudEvents/1.0", "envelopemetadata": meta, **extra}


def _analyze(tmp_path: Path, doc: dict[str, Any]) -> tuple[api.Analysis, list[str]]:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    analysis = api.analyze([str(path)])
    return analysis, [
        f"{d.pointer} {d.severity} {d.code}: {d.message}" for d in analysis.diagnostics
    ]


def _schemas() -> dict[str, Any]:
    return {
        "sg": {
            "schemas": {
                "s": {
                    "format": "JsonSchema/draft-07",
                    "versions": {"v1.0": {"format": "JsonSchema/draft-07", "schema": SCHEMA}},
                }
            }
        }
    }


def test_legacy_definition_groups_are_read(tmp_path: Path) -> None:
    doc = {
        "definitionGroups": {
            "g": {"definitions": {"g.A": _ce("g.A", schemauri="#/schemagroups/sg/schemas/s:Birth")}}
        },
        "schemaGroups": _schemas(),
    }
    analysis, diags = _analyze(tmp_path, doc)
    assert analysis.catalog is not None
    (msg,) = analysis.catalog.messages()
    assert msg.id == "g.A" and msg.payload is not None
    assert msg.payload.model_name == "Birth"
    assert any("legacy collection 'definitionGroups'" in d for d in diags)
    assert any("'schemauri' read as 'dataschemauri'" in d for d in diags)
    assert not any(" error " in d for d in diags), diags


def test_a_document_without_collections_is_an_error(tmp_path: Path) -> None:
    _, diags = _analyze(tmp_path, {"groups": {"g": {}}})
    assert diags == [
        " error XRG114: the document holds no xRegistry collection (messagegroups,"
        " schemagroups, endpoints); it has 'groups'"
    ]


def test_named_type_with_a_pointer(tmp_path: Path) -> None:
    ref = "#/schemagroups/sg/schemas/s/versions/v1.0:definitions/Death"
    doc = {
        "messagegroups": {
            "g": {
                "messages": {
                    "g.D": _ce("g.D", dataschemauri=ref, dataschemaformat="JsonSchema/draft-07")
                }
            }
        },
        "schemagroups": _schemas(),
    }
    analysis, diags = _analyze(tmp_path, doc)
    assert analysis.catalog is not None, diags
    (msg,) = analysis.catalog.messages()
    assert msg.payload is not None and msg.payload.model_name == "Death"
    assert msg.payload.schema["$ref"] == "#/definitions/Death"


def test_time_template_is_the_fixed_time_warning(tmp_path: Path) -> None:
    doc = {
        "messagegroups": {
            "g": {
                "messages": {
                    "g.T": _ce("g.T", meta={"time": {"type": "timestamp", "value": "{when}"}})
                }
            }
        }
    }
    analysis, diags = _analyze(tmp_path, doc)
    assert [d.split(":")[0] for d in diags] == [
        "/messagegroups/g/messages/g.T/envelopemetadata/time/value warning XRG137"
    ]
    assert analysis.catalog is not None
    (msg,) = analysis.catalog.messages()
    assert msg.placeholders == ()  # time is set when an event is created, never a parameter


def test_relative_dataschema_is_left_out_of_local_catalogs(tmp_path: Path) -> None:
    doc = {
        "messagegroups": {
            "g": {
                "messages": {
                    "g.R": _ce("g.R", meta={"dataschema": {"value": "#/schemagroups/sg/schemas/s"}})
                }
            }
        }
    }
    analysis, diags = _analyze(tmp_path, doc)
    assert any("XRG144" in d and "left out" in d for d in diags)
    assert analysis.catalog is not None
    (msg,) = analysis.catalog.messages()
    assert "dataschema" not in {a.name for a in msg.attributes}


def test_relative_dataschema_from_a_registry_url() -> None:
    base = registry_base("https://reg.example/api/registry/messagegroups/g?inline=*")
    assert base == "https://reg.example/api/registry"
    assert absolute_dataschema(base, "#/schemagroups/sg/schemas/s") == (
        "https://reg.example/api/registry/schemagroups/sg/schemas/s"
    )
    assert registry_base("catalog.json") is None


def test_a_cloudevent_without_type_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    base = _ce("g.Base")
    child = {"basemessage": "#/messagegroups/g/messages/g.Bsae", "envelope": "CloudEvents/1.0"}
    doc = {"messagegroups": {"g": {"messages": {"g.Base": base, "g.Child": child}}}}
    analysis, diags = _analyze(tmp_path, doc)
    assert (
        "/messagegroups/g/messages/g.Child/basemessage warning XRG202: basemessage"
        " '#/messagegroups/g/messages/g.Bsae' does not exist (did you mean"
        " '#/messagegroups/g/messages/g.Base'?); the message stands on its own"
    ) in diags
    assert any(
        d.startswith("/messagegroups/g/messages/g.Child/envelopemetadata/type error XRG146") for d in diags
    )
    assert analysis.diagnostics.has_errors
