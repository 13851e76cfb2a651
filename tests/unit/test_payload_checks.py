"""Checks that keep generated packages importable and their validation linear-time."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_models import load

from xrgen.diagnostics import Diagnostics
from xrgen.formats import check_payloads
from xrgen.formats.jsonschema.payloads import nfkc_aliases, pattern_problem, ref_cycle
from xrgen.model import ir
from xrgen.models import render_models
from xrgen.payload_checks import rust_regex_only, unresolved_names


@pytest.mark.parametrize(
    ("pattern", "code"),
    [
        ("^[a-z]+$", None),
        (r"^\d{3}-\p{L}+$", None),
        ("[(?=]", None),  # lookaround characters inside a class are plain characters
        ("(?=a)a", "XRG340"),
        ("(?<!a)b", "XRG340"),
        (r"(a)\1", "XRG340"),
        ("([a", "XRG341"),
        ("*a", "XRG341"),
    ],
)
def test_pattern_problem(pattern: str, code: str | None) -> None:
    problem = pattern_problem(pattern)
    assert (problem[0] if problem else None) == code


def test_patterns_the_rust_engine_runs_take_linear_time() -> None:
    """The reason for XRG340: ``(a+)+$`` backtracks exponentially in ``re``; on the Rust
    engine (what generated models use) it stays fast."""
    from pydantic_core import SchemaValidator, ValidationError
    from pydantic_core import core_schema as cs

    v = SchemaValidator(cs.str_schema(pattern="^(a+)+$", regex_engine="rust-regex"))
    started = time.perf_counter()
    with pytest.raises(ValidationError):
        v.validate_python("a" * 5000 + "!")
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize(
    ("schema", "cycle"),
    [
        ({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}, ["/$defs/A", "/$defs/B", "/$defs/A"]),
        ({"$ref": "#"}, ["", ""]),
        ({"allOf": [{"$ref": "#/definitions/X"}], "definitions": {"X": {"allOf": [{"$ref": "#"}]}}}, ["", "/definitions/X", ""]),
        ({"type": "object", "properties": {"next": {"$ref": "#"}}}, None),
        ({"type": "array", "items": {"$ref": "#"}}, None),
        ({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}}, "$ref": "#/$defs/A"}, None),
        ({"$ref": "#/$defs/missing"}, None),
        ({"enum": [{"$ref": "#"}]}, None),
        ({"anyOf": [{"$ref": "#"}]}, ["", ""]),
        ({"oneOf": [{"$ref": "#"}, {"type": "string"}]}, None),
    ],
)
def test_ref_cycle(schema: object, cycle: list[str] | None) -> None:
    assert ref_cycle(schema) == cycle


def payload(schema: object, name: str = "M") -> ir.Payload:
    return ir.Payload("k" + name, "json", schema, name, "c.json#/schemas/" + name)


def test_check_payloads_locates_each_problem() -> None:
    diags = Diagnostics()
    check_payloads(
        (
            payload({"properties": {"a": {"pattern": "(?=x)"}, "b": {"enum": [{"pattern": "(?="}]}}}, "A"),
            payload({"patternProperties": {"([": {}}}, "B"),
            payload({"$ref": "#"}, "C"),
        ),
        diags,
    )
    assert [(d.code, d.file, d.pointer) for d in diags] == [
        ("XRG340", "c.json", "/schemas/A/properties/a/pattern"),
        ("XRG341", "c.json", "/schemas/B/patternProperties/(["),
        ("XRG342", "c.json", "/schemas/C"),
    ]


def test_unresolved_names() -> None:
    code = (
        "from pydantic import BaseModel, RootModel\n"
        "from typing import Literal, Annotated\n"
        "class A(BaseModel):\n"
        "    x: B | None = None\n"
        "    y: Literal['not_a_name'] = 'not_a_name'\n"
        "    z: Annotated[str, 'meta data'] = ''\n"
        "class B(RootModel['Missing']):\n"
        "    root: 'Missing'\n"
        "class C(Gone):\n"
        "    pass\n"
    )
    assert sorted(unresolved_names(code)) == [("B", "Missing"), ("B", "Missing"), ("C", "Gone")]
    assert unresolved_names("class A:\n    pass\n", ("A", "Root")) == [("Root", "Root")]


def test_rust_regex_only() -> None:
    code = 'class A(BaseModel):\n    model_config = ConfigDict(\n        populate_by_name=True,\n        regex_engine="python-re",\n    )\n'
    assert "python-re" not in rust_regex_only(code)
    compile(rust_regex_only(code), "m", "exec")


def test_nfkc_aliases() -> None:
    schemas = [
        ("c.json#/a", {"properties": {"ﬁle": {}, "file": {}, "ℌ": {}}}),
        ("c.json#/b", {"properties": {"ﬁle": {}, "file_2": {}}}),
    ]
    aliases, warnings = nfkc_aliases(schemas)
    assert aliases == {"ﬁle": "file_3", "ℌ": "H"}
    assert [w[0] for w in warnings] == ["c.json#/a/properties/ﬁle", "c.json#/b/properties/ﬁle"]


def test_nfkc_colliding_properties_keep_both_fields_and_their_wire_names(tmp_path: Path) -> None:
    src = render_models((payload({"type": "object", "properties": {"ﬁle": {"type": "string"}, "file": {"type": "integer"}}}),))
    model = load(src, tmp_path).M
    value = model.model_validate({"ﬁle": "x", "file": 1})
    assert value.model_dump(by_alias=True) == {"ﬁle": "x", "file": 1}


def test_strings_inside_field_arguments_are_data_not_forward_references() -> None:
    """A JSON Schema ``example`` becomes ``Field(examples=['x'])``: 'x' names nothing."""
    code = (
        "from typing import Annotated\n"
        "from pydantic import BaseModel, Field\n"
        "class M(BaseModel):\n"
        "    a: Annotated[str | None, Field(examples=['x', {'k': 'y'}], default_factory=Made)] = None\n"
    )
    assert unresolved_names(code) == [("M", "Made")]
