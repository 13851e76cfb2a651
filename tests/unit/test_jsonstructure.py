"""JSON Structure in the pipeline: every spelling real catalogs use is read (no XRG152),
schemas are checked by the ``json-structure`` validator (XRG159), deep links and named types
resolve into the document, hostile schema text stays inert, unmappable schemas get a
permissive model (XRG326), and the output is deterministic."""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from sample_catalogs import ABSENT_REASON, PRESENT, SAMPLES

from xrgen import api, formats
from xrgen.format import Formatter
from xrgen.formats.spelling import schema_format_family, schema_format_version

META = "https://json-structure.org/meta/core/v0/#"


def _doc(schema: Any, fmt: str = "JsonStructure/draft-04", **message: Any) -> dict[str, Any]:
    meta = {"type": {"value": "t.M"}, "source": {"value": "/s"}}
    msg = {"messageid": "t.M", "envelope": "CloudEvents/1.0", "envelopemetadata": meta}
    msg.update(message or {"dataschemaformat": fmt, "dataschemauri": "#/schemagroups/g/schemas/s"})
    return {
        "messagegroups": {"t": {"messages": {"t.M": msg}}},
        "schemagroups": {
            "g": {"schemas": {"s": {"format": fmt, "versions": {"1": {"format": fmt, "schema": schema}}}}}
        },
    }


def _generate(tmp_path: Path, doc: dict[str, Any], package: str = "pkg") -> api.Result:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    return api.generate([str(path)], package, formatter=Formatter(cache_dir=tmp_path / "fmt"))


def _codes(result: api.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


def _import(tmp_path: Path, result: api.Result, package: str) -> Any:
    out = tmp_path / "out"
    for rel, text in result.files.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module(package)
    finally:
        sys.path.remove(str(out))


@pytest.mark.parametrize(
    "spelled",
    ["JsonStructure/draft-04", "JSONStructure/draft-02", "jsonstructure", "JSON-Structure/draft-03"],
)
def test_spellings_name_the_format(spelled: str) -> None:
    assert schema_format_family(spelled) == formats.jsonstructure.NAME
    assert formats.content_type(formats.jsonstructure.NAME) == "application/json"


def test_version_is_kept_as_written() -> None:
    assert schema_format_version("JsonStructure/draft-04") == "draft-04"


@pytest.mark.skipif(not PRESENT, reason=ABSENT_REASON)
def test_every_spelling_a_real_catalog_uses_is_modeled() -> None:
    """No XRG152 or XRG220 for any JSON Structure spelling in the real catalogs."""
    pattern = re.compile(r'"(?:dataschema)?format"\s*:\s*"(json[^"/]*structure[^"]*)"', re.I)
    spellings: set[str] = set()
    files = []
    for path in SAMPLES.rglob("*.json"):
        found = pattern.findall(path.read_text(errors="replace"))
        if found:
            spellings.update(found)
            files.append(path)
    assert spellings and files
    for spelled in spellings:
        assert schema_format_family(spelled) == formats.jsonstructure.NAME, spelled
    for path in files:
        result = api.generate([str(path)], "inkjet")
        assert result.ok, [str(d) for d in result.diagnostics]
        assert not {"XRG152", "XRG220", "XRG326"} & set(_codes(result)), path
        catalog = api.analyze([str(path)]).catalog
        assert catalog is not None
        assert {p.format for p in catalog.payloads} == {formats.jsonstructure.NAME}


@pytest.mark.skipif(not PRESENT, reason=ABSENT_REASON)
def test_the_real_inkjet_catalog_is_typed(tmp_path: Path) -> None:
    result = api.generate(
        [str(SAMPLES / "message-definitions" / "inkjet-jstruct.xreg.json")], "inkjet_js"
    )
    pkg = _import(tmp_path, result, "inkjet_js")
    event = pkg.MESSAGES["Fabrikam.InkJetPrinter.InkLow"].create(
        {"tenantid": "t", "deviceid": "d", "cartridgeId": "c", "inkColor": "Cyan", "remainingLevel": 5},
        tenantid="t",
        deviceid="d",
    )
    assert event.data.ink_color is pkg.models.InkColor.Cyan
    with pytest.raises(ValueError):
        pkg.models.InkLowEventData.model_validate(
            {"tenantid": "t", "deviceid": "d", "cartridgeId": "c", "inkColor": "Cyan", "remainingLevel": 2**31}
        )
    started = pkg.models.PrintJobStartedEventData.model_fields["start_time"].annotation
    assert "DateTimeText" in str(started) or "datetime" in str(started)


def test_invalid_schema_is_an_error_with_its_pointer(tmp_path: Path) -> None:
    schema = {
        "$schema": META,
        "$id": "https://x/s",
        "name": "S",
        "type": "object",
        "properties": {"p": {"type": "tuple", "name": "P", "properties": {"a": {"type": "string"}}}},
    }
    result = _generate(tmp_path, _doc(schema))
    assert not result.ok and not result.files
    (diag,) = [d for d in result.diagnostics if d.code == "XRG159"]
    assert "/versions/1/schema/properties/p" in diag.pointer
    assert diag.severity == "error"


def test_a_document_of_definitions_only_is_valid_and_deep_linked(tmp_path: Path) -> None:
    schema = {
        "$schema": META,
        "$id": "https://x/people",
        "definitions": {
            "Ns": {
                "Person": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "boss": {"type": {"$ref": "#/definitions/Ns/Person"}}},
                }
            }
        },
    }
    for uri in (
        "#/schemagroups/g/schemas/s/versions/1/definitions/Ns/Person",
        "#/schemagroups/g/schemas/s/versions/1#/definitions/Ns/Person",
        "#/schemagroups/g/schemas/s:Person",
    ):
        doc = _doc(schema, dataschemaformat="JsonStructure/draft-04", dataschemauri=uri)
        result = _generate(tmp_path, doc)
        assert result.ok, (uri, [str(d) for d in result.diagnostics])
        catalog = api.analyze([str(tmp_path / "c.json")]).catalog
        assert catalog is not None
        (payload,) = catalog.payloads
        assert payload.model_name == "Person" and payload.schema["$root"] == "#/definitions/Ns/Person"


def test_hostile_schema_text_stays_inert(tmp_path: Path) -> None:
    """Names are identifiers (the validator refuses others), some of them Python's or
    pydantic's; descriptions and values carry code-like text."""
    evil = 'x"""; import os; os.system("echo pwned") #\\'
    schema = {
        "$schema": META,
        "$id": "https://x/evil",
        "name": "BaseModel",
        "description": evil,
        "type": "object",
        "properties": {
            "class": {"type": "string", "description": evil},
            "model_config": {"type": "int64"},
            "__init__": {"type": "string", "enum": [evil, "mro", "name"]},
            "Field": {"type": {"$ref": "#/definitions/Annotated"}},
            "count": {"type": "tuple", "name": "NamedTuple", "properties": {"_x": {"type": "int8"}, "index": {"type": "uuid"}}, "tuple": ["_x", "index"]},
            "const": {"type": "string", "const": evil},
        },
        "definitions": {"Annotated": {"type": "choice", "name": "Literal", "choices": {"Field": {"type": "string"}, "mro": {"type": "int32"}}}},
    }
    result = _generate(tmp_path, _doc(schema), package="evil_js")
    assert result.ok, [str(d) for d in result.diagnostics]
    pkg = _import(tmp_path, result, "evil_js")
    (model,) = [m.model for m in pkg.MESSAGES.values()]
    doc = {"class": "c", "model_config": "7", "__init__": evil, "Field": {"mro": 3}, "count": [1, "12345678-1234-4234-8234-123456789abc"], "const": evil}
    value = model.model_validate_json(json.dumps(doc), strict=True)
    assert json.loads(value.model_dump_json(by_alias=True, exclude_unset=True)) == doc
    assert model.__doc__ is not None and "pwned" in model.__doc__


def test_unmappable_schema_gets_a_permissive_model(tmp_path: Path) -> None:
    schema = {"$schema": META, "$id": "https://x/u", "name": "U", "type": "object",
              "properties": {"a": {"type": {"$ref": "#/definitions/Missing"}}}}
    doc = _doc(schema, dataschemaformat="JsonStructure/draft-04", dataschema=schema)
    result = _generate(tmp_path, doc)
    assert "XRG326" in _codes(result) or "XRG159" in _codes(result)


def test_generation_is_deterministic(tmp_path: Path) -> None:
    catalog = Path(__file__).resolve().parents[2] / "catalogs" / "jsonstructure" / "catalog.json"
    first = api.generate([str(catalog)], "shop")
    second = api.generate([str(catalog)], "shop")
    assert first.files == second.files


#: the specification's examples (JSON Structure Core draft-04: 3.2.3.1, 3.2.3.5, 3.2.3.7.1)
SPEC_EXAMPLES = [
    (
        {"name": "Person", "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "int32"}},
         "required": ["name"], "additionalProperties": False},
        [{"name": "Ann", "age": 30}, {"name": "Bo"}],
        [{"age": 3}, {"name": "x", "age": 2**31}, {"name": "x", "extra": 1}],
    ),
    (
        {"type": "tuple", "name": "Person", "properties": {"name": {"type": "string"}, "age": {"type": "int32"}},
         "tuple": ["name", "age"]},
        [["Alice", 42]],
        [["Alice"], [42, "Alice"], {"name": "Alice", "age": 42}],
    ),
    (
        {"type": "choice", "name": "MyChoice", "choices": {"string": {"type": "string"}, "int32": {"type": "int32"}}},
        [{"string": "Hello, world!"}, {"int32": 42}],
        [{"string": 42}, {"string": "a", "int32": 1}, {}],
    ),
]


@pytest.mark.parametrize(("schema", "valid", "invalid"), SPEC_EXAMPLES)
def test_the_specifications_examples(tmp_path: Path, schema: Any, valid: Any, invalid: Any) -> None:
    from json_structure import InstanceValidator

    document = {"$schema": META, "$id": "https://example.com/spec", **schema}
    package = "spec_" + schema["type"]
    result = _generate(tmp_path, _doc(document, dataschemaformat="JsonStructure/draft-04", dataschema=document), package)
    assert result.ok, [str(d) for d in result.diagnostics]
    pkg = _import(tmp_path, result, package)
    (info,) = pkg.MESSAGES.values()
    for instance in valid:
        value = info.model.model_validate_json(json.dumps(instance), strict=True)
        assert json.loads(value.model_dump_json(by_alias=True, exclude_unset=True)) == instance
        assert InstanceValidator(document).validate_instance(instance) == []
    for instance in invalid:
        with pytest.raises(ValueError):
            info.model.model_validate_json(json.dumps(instance), strict=True)
        assert InstanceValidator(document).validate_instance(instance), instance
