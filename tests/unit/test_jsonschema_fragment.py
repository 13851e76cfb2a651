"""A member of a JSON Schema document as a payload schema (formats/_shared/fragment.py),
and schema references with a pointer after ``:`` or ``#`` through the real pipeline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xrgen import api
from xrgen.formats._shared.fragment import fragment, node_at, pointer_tokens

STATE = {
    "type": "object",
    "properties": {
        "state": {"type": "string", "enum": ["online", "offline"]},
        "timestamp": {"type": "integer"},
    },
    "required": ["state", "timestamp"],
}
DOC: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "https://example.com/state.json",
    "messages": {
        "STATE": STATE,
        "STATEBirth": {
            "allOf": [
                {"$ref": "#/messages/STATE"},
                {"properties": {"state": {"enum": ["online"]}}},
            ]
        },
        "Moment": {"properties": {"at": {"$ref": "#/messages/STATE/properties/timestamp"}}},
        "Absolute": {"$ref": "https://example.com/state.json#/messages/STATE"},
        "Tree": {"properties": {"kids": {"type": "array", "items": {"$ref": "#/messages/Tree"}}}},
        "Dangling": {"properties": {"x": {"$ref": "#/messages/Nope"}}},
        "Whole": {"properties": {"doc": {"$ref": "#"}}},
        "Data": {"enum": [{"$ref": "#/not/a/reference"}]},
    },
    "definitions": {
        "Kept": {"properties": {"s": {"$ref": "#/messages/STATE"}}},
        "STATE": {"type": "string"},  # the copy of messages/STATE must not take this name
    },
}


def resolves(doc: dict[str, Any]) -> list[str]:
    """Every local ``$ref`` of ``doc`` that does not resolve in it."""
    bad: list[str] = []
    todo: list[Any] = [doc]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo += node
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith("#"):
                    if node_at(doc, pointer_tokens(value[2:])) is None:
                        bad.append(value)
                elif key != "enum":
                    todo.append(value)
    return bad


def test_a_definition_keeps_the_document_as_it_is() -> None:
    doc = {"$schema": "s", "definitions": {"A": {"type": "string"}}, "title": "x", "type": "object"}
    assert fragment(doc, "definitions/A") == {
        "$schema": "s",
        "definitions": {"A": {"type": "string"}},
        "$ref": "#/definitions/A",
        "title": "A",
    }


def test_a_member_elsewhere_is_copied_with_what_it_refers_to() -> None:
    out = fragment(DOC, "messages/STATEBirth")
    assert out is not None
    assert out["$ref"] == "#/definitions/STATEBirth"
    assert out["title"] == "STATEBirth"
    defs = out["definitions"]
    assert defs["STATEBirth"]["allOf"][0] == {"$ref": "#/definitions/STATE_2"}
    assert defs["STATE_2"] == STATE
    assert defs["STATE"] == {"type": "string"}
    # what the kept definitions refer to is copied too
    assert defs["Kept"]["properties"]["s"] == {"$ref": "#/definitions/STATE_2"}
    assert resolves(out) == []
    assert "messages" not in out


@pytest.mark.parametrize(
    ("member", "ref"),
    [
        ("Moment", "#/definitions/STATE_2/properties/timestamp"),  # into a copied member
        ("Absolute", "#/definitions/STATE_2"),  # by the document's $id
    ],
)
def test_references_into_and_by_id(member: str, ref: str) -> None:
    out = fragment(DOC, f"messages/{member}")
    assert out is not None and resolves(out) == []
    assert ref in json.dumps(out)


def test_recursion_the_document_root_and_data() -> None:
    tree = fragment(DOC, "messages/Tree")
    assert tree is not None and resolves(tree) == []
    items = tree["definitions"]["Tree"]["properties"]["kids"]["items"]
    assert items == {"$ref": "#/definitions/Tree"}
    whole = fragment(DOC, "messages/Whole")
    assert whole is not None
    assert resolves(whole) == ["#/messages/Nope"]  # the document's own, left as written
    root = whole["definitions"]["Whole"]["properties"]["doc"]["$ref"]
    assert root == "#/definitions/Document"
    assert whole["definitions"]["Document"]["messages"]["Whole"] is not None
    data = fragment(DOC, "messages/Data")
    assert data is not None
    assert data["definitions"]["Data"] == {"enum": [{"$ref": "#/not/a/reference"}]}


def test_a_reference_that_does_not_resolve_is_left_as_written() -> None:
    out = fragment(DOC, "messages/Dangling")
    assert out is not None
    assert out["definitions"]["Dangling"]["properties"]["x"] == {"$ref": "#/messages/Nope"}


@pytest.mark.parametrize("pointer", ["", "messages/Nope", "messages/STATE/required"])
def test_no_such_member(pointer: str) -> None:
    assert fragment(DOC, pointer) is None


# --------------------------------------------------------------------------- the pipeline


#: DOC without its member whose $ref dangles (a catalog holding it gets warning XRG157)
RESOLVING = {**DOC, "messages": {k: v for k, v in DOC["messages"].items() if k != "Dangling"}}


def analyze(
    tmp_path: Path, ref: str, schema: dict[str, Any] = RESOLVING
) -> tuple[api.Analysis, list[str]]:
    doc = {
        "messagegroups": {
            "g": {
                "messages": {
                    "g.Birth": {
                        "messageid": "g.Birth",
                        "protocol": "MQTT/3.1.1",
                        "protocoloptions": {"topic_name": "spBv1.0/STATE/h"},
                        "dataschemaformat": "JsonSchema/draft-07",
                        "dataschemauri": ref,
                    }
                }
            }
        },
        "schemagroups": {
            "sg": {
                "schemas": {
                    "s": {
                        "format": "JsonSchema/draft-07",
                        "versions": {"v1.0": {"format": "JsonSchema/draft-07", "schema": schema}},
                    }
                }
            }
        },
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    analysis = api.analyze([str(path)])
    return analysis, [f"{d.pointer} {d.severity} {d.code}: {d.message}" for d in analysis.diagnostics]


@pytest.mark.parametrize("sep", [":", "#/"])
def test_a_member_reference_is_typed(tmp_path: Path, sep: str) -> None:
    ref = f"#/schemagroups/sg/schemas/s/versions/v1.0{sep}messages/STATEBirth"
    analysis, diags = analyze(tmp_path, ref)
    assert diags == []
    assert analysis.catalog is not None
    (msg,) = analysis.catalog.messages()
    assert msg.payload is not None and msg.payload.model_name == "STATEBirth"
    result = api.generate([str(tmp_path / "c.json")], "pkg", spark=False)
    assert [str(d) for d in result.diagnostics.sorted()] == []
    models = next(t for p, t in result.files.items() if p.name == "models.py")
    assert "Any" not in models
    assert "class STATEBirth(" in models


def test_a_name_that_names_no_member_is_a_warning(tmp_path: Path) -> None:
    _, diags = analyze(tmp_path, "#/schemagroups/sg/schemas/s/versions/v1.0:definitions/Nope")
    assert diags == [
        "/messagegroups/g/messages/g.Birth/dataschemauri warning XRG213: dataschemauri: no"
        " member 'definitions/Nope' in the JSON Schema; the root schema is used"
    ]


def test_a_name_that_is_the_root_title_is_the_root(tmp_path: Path) -> None:
    ref = "#/schemagroups/sg/schemas/s/versions/v1.0:Host"
    analysis, diags = analyze(tmp_path, ref, {**RESOLVING, "title": "Host"})
    assert diags == []
    assert analysis.catalog is not None
    (msg,) = analysis.catalog.messages()
    assert msg.payload is not None and msg.payload.model_name == "Host"


def test_a_dangling_member_reference_is_warned_in_the_documents_pointers(tmp_path: Path) -> None:
    _, diags = analyze(tmp_path, "#/schemagroups/sg/schemas/s/versions/v1.0:messages/STATE", DOC)
    assert diags == [
        "/schemagroups/sg/schemas/s/versions/v1.0/schema/messages/Dangling/properties/x/$ref"
        " warning XRG157: $ref '#/messages/Nope' names nothing in this schema; the value is"
        " typed Any"
    ]
