"""generator/formats/jsonschema/disjoint.py: whether two payload schemas can accept the same
value (conservative), checked against the generated pydantic models' own validation, and the
const / enum checks the Spark decoder reads."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from xrgen.formats.jsonschema.disjoint import disjoint, value_checks
from xrgen.model import ir
from xrgen.models import render_models

_counter = itertools.count()


def obj(required: tuple[str, ...] = (), **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


ON = obj(("online",), online={"type": "boolean", "const": True})
OFF = obj(("online",), online={"type": "boolean", "const": False})
STATE_DOC: dict[str, Any] = {
    "messages": {
        "STATE": obj(
            ("state", "timestamp"),
            state={"type": "string", "enum": ["online", "offline"]},
            timestamp={"type": "integer"},
        ),
    },
    "definitions": {
        "Birth": {
            "allOf": [
                {"$ref": "#/messages/STATE"},
                {"properties": {"state": {"enum": ["online"]}}},
            ]
        },
        "Death": {
            "allOf": [
                {"$ref": "#/messages/STATE"},
                {"properties": {"state": {"enum": ["offline"]}}},
            ]
        },
    },
}


def member(name: str) -> dict[str, Any]:
    return {**STATE_DOC, "$ref": f"#/definitions/{name}"}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (ON, OFF),
        (member("Birth"), member("Death")),
        ({"type": "string"}, {"type": "object"}),
        ({"type": ["string", "null"]}, {"type": "integer"}),
        ({"enum": ["a", "b"]}, {"enum": ["c", 3]}),
        ({"const": "x"}, {"type": "integer"}),
        # one side requires it, the other declares it: still apart (null counted there)
        (obj(("kind",), kind={"const": "a"}), obj(kind={"const": "b"})),
        # nested required members
        (
            obj(("head",), head=obj(("kind",), kind={"const": 1})),
            obj(("head",), head=obj(("kind",), kind={"const": 2})),
        ),
        # a union is apart when each of its members is
        ({"anyOf": [ON, {"type": "string"}]}, OFF),
        # a const against the type of the other side's property
        (obj(("n",), n={"const": "7"}), obj(("n",), n={"type": "integer"})),
    ],
)
def test_disjoint(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert disjoint(a, b)
    assert disjoint(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (ON, ON),
        (member("Birth"), STATE_DOC["messages"]["STATE"] | {"messages": STATE_DOC["messages"]}),
        ({}, OFF),
        (True, OFF),
        ({"type": "integer"}, {"type": "number"}),
        # the models take true for 1 (Literal[1] == True in Python)
        (obj(("v",), v={"const": True}), obj(("v",), v={"const": 1})),
        (obj(("v",), v={"enum": [0, 2]}), obj(("v",), v={"type": "boolean"})),
        # not required on either side: both may lack it
        (obj(kind={"const": "a"}), obj(kind={"const": "b"})),
        # not required on one side: its model takes null there
        (obj(("kind",), kind={"const": None}), obj(kind={"const": "b"})),
        # without "type" a schema with properties accepts any non-object as well
        ({"properties": {"k": {"const": 1}}, "required": ["k"]}, {"type": "string"}),
        # a $ref that does not resolve: the model is Any
        (obj(("online",), online={"$ref": "#/definitions/Nope"}), OFF),
        (obj(("online",), online={"$ref": "other.json#/x"}), OFF),
        # only one side says anything about the property
        (obj(("a",), a={"const": 1}), obj(("b",), b={"const": 2})),
        # one member of the union overlaps
        ({"oneOf": [ON, OFF]}, OFF),
        # draft-07 ignores keywords beside $ref: the narrower reading is not trusted
        (obj(("online",), online={"$ref": "#/definitions/B", "const": True}) | {"definitions": {"B": {"type": "boolean"}}}, OFF),
        # recursion is read as anything
        ({"$ref": "#"}, OFF),
    ],
)
def test_may_overlap(a: Any, b: Any) -> None:
    assert not disjoint(a, b)
    assert not disjoint(b, a)


def model(schema: dict[str, Any], tmp_path: Path) -> type[BaseModel]:
    """The pydantic model the generator makes of ``schema`` (``xrgen.models``), imported."""
    name = f"xrg_disjoint_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(render_models([ir.Payload(name, "json", schema, "Payload", "c#/p")]).code)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.Payload  # type: ignore[no-any-return]


def accepts(cls: type[BaseModel], value: Any) -> bool:
    try:
        cls.__pydantic_validator__.validate_json(json.dumps(value), strict=True)
    except ValidationError:
        return False
    return True


PROBES: list[Any] = [
    {"online": True},
    {"online": False},
    {"online": 1},
    {"online": 0},
    {"online": None},
    {"kind": "a"},
    {"kind": "b"},
    {"kind": None},
    {},
    {"state": "online", "timestamp": 1},
    {"state": "offline", "timestamp": 1},
    "online",
    1,
]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (ON, OFF),
        (obj(("kind",), kind={"const": "a"}), obj(kind={"const": "b"})),
        (obj(("online",), online={"const": True}), obj(("online",), online={"const": 1})),
        (obj(("kind",), kind={"const": None}), obj(kind={"const": "b"})),
    ],
)
def test_disjoint_agrees_with_the_generated_models(
    a: dict[str, Any], b: dict[str, Any], tmp_path: Path
) -> None:
    """Where ``disjoint`` says so, no probe is accepted by both generated models; where it
    does not, a probe shows the overlap."""
    ma, mb = model(a, tmp_path), model(b, tmp_path)
    both = [p for p in PROBES if accepts(ma, p) and accepts(mb, p)]
    if disjoint(a, b):
        assert both == []
    else:
        assert both, "the probes do not show the overlap"


def test_value_checks_follow_required_members_through_refs_and_all_of() -> None:
    assert value_checks(ON) == ((("online",), (True,)),)
    assert value_checks(member("Birth")) == ((("state",), ("online",)),)
    nested = obj(("head", "x"), head=obj(("kind",), kind={"enum": ["a", "b"]}), x={"const": 1.5})
    assert value_checks(nested) == ((("head", "kind"), ("a", "b")), (("x",), (1.5,)))


@pytest.mark.parametrize(
    "schema",
    [
        obj(kind={"const": "a"}),  # not required
        obj(("kind",), kind={"const": None}),  # null is no column value
        obj(("kind",), kind={"const": {"a": 1}}),  # not a scalar
        {"anyOf": [ON, OFF]},  # a union
        obj(("kind",), kind={"$ref": "#/nope"}),  # unreadable
    ],
)
def test_no_value_checks(schema: dict[str, Any]) -> None:
    assert value_checks(schema) == ()
