"""xrgen.models: payload schemas -> pydantic v2 source, imported and exercised for real."""

from __future__ import annotations

import copy
import enum
import importlib.util
import itertools
import random
import shutil
import subprocess
import sys
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any
from uuid import UUID

import pytest
from pydantic import BaseModel, RootModel, ValidationError

from xrgen.model import ir
from xrgen.models import ModelsSource, render_models

_counter = itertools.count()


def load(src: ModelsSource, tmp_path: Path) -> ModuleType:
    """Write the rendered body to a file and import it as a real module."""
    name = f"xrg_models_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(src.code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def J(key: str, schema: Any, name: str) -> ir.Payload:
    return ir.Payload(key, "json", schema, name, f"cat.json#/{key}")


def A(key: str, schema: Any, name: str) -> ir.Payload:
    return ir.Payload(key, "avro", schema, name, f"cat.json#/{key}")


DRAFT04 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "id": "http://example.com/d4.json",
    "title": "D4",
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 10, "exclusiveMaximum": True},
        "thing": {"$ref": "#/definitions/Thing"},
        "absolute": {"$ref": "http://example.com/d4.json#/definitions/Thing"},
    },
    "required": ["n"],
    "definitions": {
        "Thing": {
            "type": "object",
            "properties": {"k": {"type": "string"}},
            "required": ["k"],
        }
    },
}

DRAFT07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "id": {"type": "string", "format": "uuid"},
        "link": {"type": "string", "format": "uri"},
        "mail": {"type": "string", "format": "email"},
        "level": {"type": "string", "enum": ["low", "high"]},
        "count": {"type": "integer"},
        "maybe": {"type": ["string", "null"]},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "qty": {"type": "integer", "minimum": 1},
                },
                "required": ["sku"],
            },
        },
        "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["when", "id", "count", "maybe"],
    "additionalProperties": False,
}

DRAFT2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Base": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": ["id"],
        },
        "Cat": {
            "type": "object",
            "properties": {"kind": {"const": "cat"}, "meow": {"type": "boolean"}},
            "required": ["kind"],
        },
        "Dog": {
            "type": "object",
            "properties": {"kind": {"const": "dog"}, "bark": {"type": "integer"}},
            "required": ["kind"],
        },
    },
    "allOf": [
        {"$ref": "#/$defs/Base"},
        {
            "type": "object",
            "properties": {
                "pet": {"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
            "required": ["pet"],
        },
    ],
}

HOSTILE_TEXT = 'ends """ with \\ and \'\'\' quotes\nsecond line ü \x00 """'
HOSTILE = {
    "title": "T",
    "description": HOSTILE_TEXT + "\\",
    "type": "object",
    "properties": {
        "class": {"type": "integer", "description": HOSTILE_TEXT},
        "def": {"type": "string"},
        "1abc": {"type": "string"},
        "a-b": {"type": "string"},
        "ünï": {"type": "string"},
        "model_config": {"type": "string"},
        "schema": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "x'); import os  #": {
            "type": "string",
            "enum": ["'); os.system('x') #", '"""', "\\"],
        },
    },
    "required": ["class", "a-b"],
}


def test_json_drafts_validate_good_and_bad(tmp_path: Path) -> None:
    src = render_models(
        [J("d4", DRAFT04, "D4"), J("d7", DRAFT07, "D7"), J("d20", DRAFT2020, "D20")]
    )
    assert src.classes == {"d4": "D4", "d7": "D7", "d20": "D20"}
    m = load(src, tmp_path)

    d4 = m.D4.model_validate({"n": 9, "thing": {"k": "a"}, "absolute": {"k": "b"}})
    assert isinstance(d4.thing, BaseModel) and type(d4.thing) is type(d4.absolute)
    with pytest.raises(ValidationError):
        m.D4.model_validate({"n": 10})  # exclusiveMaximum (draft-04 boolean form)
    with pytest.raises(ValidationError):
        m.D4.model_validate({})  # required missing

    good = {
        "when": "2024-01-02T03:04:05Z",
        "day": "2024-01-02",
        "id": "12345678-1234-5678-1234-567812345678",
        "link": "https://example.com/x",
        "mail": "a@example.com",
        "level": "low",
        "count": 3,
        "maybe": None,
        "items": [{"sku": "s1", "qty": 2}, {"sku": "s2"}],
        "labels": {"a": 1},
    }
    d7 = m.D7.model_validate(good)
    assert isinstance(d7.when, datetime) and isinstance(d7.day, date) and isinstance(d7.id, UUID)
    assert isinstance(d7.mail, str)
    assert isinstance(d7.level, enum.Enum) and d7.level.value == "low"
    assert (
        isinstance(d7.items, list)
        and isinstance(d7.items[0], BaseModel)
        and d7.items[1].qty is None
    )
    assert d7.labels == {"a": 1}
    assert m.D7.model_validate_json(d7.model_dump_json(by_alias=True)) == d7
    for bad in (
        {k: v for k, v in good.items() if k != "maybe"},  # required although nullable
        {**good, "level": "medium"},  # not in enum
        {**good, "items": [{"qty": 1}]},  # nested required missing
        {**good, "items": [{"sku": "s", "qty": 0}]},  # minimum
        {**good, "surprise": 1},  # additionalProperties: false
    ):
        with pytest.raises(ValidationError):
            m.D7.model_validate(bad)
    with pytest.raises(ValidationError):
        m.D7.model_validate_json(
            '{"when": "2024-01-02T03:04:05Z", "id": "12345678-1234-5678-1234-567812345678", '
            '"count": 3.7, "maybe": null}',
            strict=True,
        )

    d20 = m.D20.model_validate({"id": "x", "pet": {"kind": "dog", "bark": 3}, "either": 4})
    assert d20.pet.bark == 3 and d20.either == 4
    with pytest.raises(ValidationError):
        m.D20.model_validate({"pet": {"kind": "cat"}})  # id from allOf base is required
    with pytest.raises(ValidationError):
        m.D20.model_validate({"id": "x", "pet": {"kind": "cow"}})


def test_hostile_names_and_descriptions(tmp_path: Path) -> None:
    src = render_models([J("h", HOSTILE, "Hostile")])
    assert "import os" not in src.code.replace("x'); import os  #", "")
    m = load(src, tmp_path)
    wire = {
        "class": 1,
        "def": "d",
        "1abc": "n",
        "a-b": "x",
        "ünï": "u",
        "model_config": "c",
        "schema": "s",
        "date": "2024-02-03",
        "x'); import os  #": '"""',
    }
    h = m.Hostile.model_validate(wire)
    assert h.model_dump(by_alias=True, mode="json", exclude_none=True) == wire
    assert (
        m.Hostile.__doc__ is not None and '"""' in m.Hostile.__doc__ and "\\" in m.Hostile.__doc__
    )
    assert m.Hostile.model_fields["class_"].description == HOSTILE_TEXT
    assert m.Hostile(class_=2, a_b="y").model_dump(by_alias=True)["class"] == 2  # populate_by_name
    with pytest.raises(ValidationError):
        m.Hostile.model_validate({"a-b": "x"})


def test_root_shapes_refs_and_recursion(tmp_path: Path) -> None:
    payloads = [
        J(
            "arr",
            {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
            "ListRoot",
        ),
        J("enum", {"type": "string", "enum": ["a", "b"]}, "Color"),
        J(
            "ref",
            {
                "$ref": "#/definitions/In",
                "definitions": {"In": {"type": "object", "properties": {"z": {"type": "integer"}}}},
            },
            "RefRoot",
        ),
        J(
            "tree",
            {
                "type": "object",
                "properties": {"child": {"$ref": "#"}, "v": {"type": "integer"}},
            },
            "Tree",
        ),
        J("any", True, "Anything"),
    ]
    m = load(render_models(payloads), tmp_path)
    lst = m.ListRoot.model_validate([{"a": "x"}])
    assert isinstance(lst, RootModel) and isinstance(lst.root[0], BaseModel)
    color = m.Color.model_validate("a")
    assert isinstance(color, RootModel) and isinstance(color.root, enum.Enum)
    with pytest.raises(ValidationError):
        m.Color.model_validate("c")
    assert (
        m.RefRoot.model_validate({"z": 1}).z == 1
    )  # a $ref-only root is the referenced model itself
    tree = m.Tree.model_validate({"v": 1, "child": {"v": 2, "child": {"v": 3}}})
    assert isinstance(tree.child.child, m.Tree)
    assert m.Anything.model_validate({"x": [1]}).root == {"x": [1]}


def test_shape_dedup_makes_subclasses(tmp_path: Path) -> None:
    base = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "loc": {"type": "object", "properties": {"x": {"type": "number"}}},
        },
        "required": ["a"],
    }
    payloads = [
        J(
            f"k{i}",
            {
                **base,
                "title": f"T{i}",
                "$id": f"urn:x:{i}",
                "description": f'Payload {i} """',
            },
            f"Event{i}Data",
        )
        for i in range(5)
    ]
    src = render_models(payloads)
    assert src.code.count("(BaseModel)") == 2  # root + nested once
    m = load(src, tmp_path)
    for i in range(1, 5):
        cls = getattr(m, f"Event{i}Data")
        assert issubclass(cls, m.Event0Data) and cls.__doc__.rstrip() == f'Payload {i} """'
        assert cls.model_validate({"a": 1, "loc": {"x": 1.5}}).loc.x == 1.5
        with pytest.raises(ValidationError):
            cls.model_validate({})


def test_root_names_never_renamed(tmp_path: Path) -> None:
    payloads = [
        J(
            "foo",
            {
                "type": "object",
                "properties": {"loc": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            },
            "FooLoc",
        ),
        J(
            "foo2",
            {
                "type": "object",
                "properties": {"loc": {"type": "object", "properties": {"y": {"type": "string"}}}},
            },
            "Foo",
        ),
        J(
            "enum",
            {
                "type": "object",
                "properties": {
                    "e": {"type": "string", "enum": ["v"]},
                    "u": {"type": "string", "format": "uri"},
                },
            },
            "Enum",
        ),
        J(
            "any",
            {
                "type": "object",
                "properties": {"n": {"type": "string", "format": "uuid"}},
            },
            "UUID",
        ),
    ]
    src = render_models(payloads)
    m = load(src, tmp_path)
    assert src.classes == {
        "foo": "FooLoc",
        "foo2": "Foo",
        "enum": "Enum",
        "any": "UUID",
    }
    assert m.FooLoc.model_validate({"loc": {"x": 1}}).loc.x == 1
    assert m.Foo.model_validate({"loc": {"y": "s"}}).loc.y == "s"
    assert issubclass(m.Enum, BaseModel) and isinstance(
        m.Enum.model_validate({"e": "v"}).e, enum.Enum
    )
    assert isinstance(m.UUID.model_validate({"n": "12345678-1234-5678-1234-567812345678"}).n, UUID)
    assert any(code == "XRG301" for _, code, _ in src.diagnostics)


def test_unmappable_json_falls_back_with_diagnostics(tmp_path: Path) -> None:
    payloads = [
        J("ok", {"type": "object", "properties": {"a": {"type": "integer"}}}, "Ok"),
        J("bad", {"type": "object", "properties": []}, "Bad"),
        J(
            "ext",
            {"type": "object", "properties": {"r": {"$ref": "other.json#/x"}}},
            "Ext",
        ),
        J(
            "dangling",
            {"type": "object", "properties": {"r": {"$ref": "#/definitions/Nope"}}},
            "Dangling",
        ),
    ]
    src = render_models(payloads)
    codes = {(loc, code) for loc, code, _ in src.diagnostics}
    assert ("cat.json#/bad", "XRG320") in codes
    assert ("cat.json#/ext", "XRG321") in codes
    # a dangling local $ref is reported by validate, in the catalog's pointers (XRG157); the
    # model types it Any without datamodel-code-generator's warning and its advice
    assert not any(code == "XRG323" for _, code in codes)
    assert all("\n" not in msg for _, _, msg in src.diagnostics)
    m = load(src, tmp_path)
    assert m.Ok.model_validate({"a": 1}).a == 1
    assert m.Bad.model_validate({"anything": 1}).model_extra == {"anything": 1}
    assert m.Ext.model_validate({"r": {"free": True}}).r == {"free": True}
    assert m.Dangling.model_validate({"r": [1, "x"]}).r == [1, "x"]


AVRO_RECORD = {
    "type": "record",
    "name": "Reading",
    "namespace": "com.acme",
    "doc": 'Avro """ doc \\',
    "fields": [
        {"name": "class", "type": "int", "default": 3, "doc": "a keyword"},
        {"name": "deviceId", "type": "string"},
        {"name": "flag", "type": "boolean", "default": False},
        {"name": "big", "type": "long"},
        {"name": "ratio", "type": "float"},
        {"name": "exact", "type": "double", "default": 1.5},
        {"name": "raw", "type": "bytes", "default": "\u00ff\u0000"},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tod", "type": {"type": "int", "logicalType": "time-millis"}},
        {
            "name": "amount",
            "type": {
                "type": "bytes",
                "logicalType": "decimal",
                "precision": 6,
                "scale": 2,
            },
        },
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "nullable_required", "type": ["null", "int"]},
        {
            "name": "multi",
            "type": ["int", "string", {"type": "array", "items": "string"}],
        },
        {
            "name": "color",
            "type": {
                "type": "enum",
                "name": "Color",
                "symbols": ["RED", "GREEN", "None"],
            },
            "default": "GREEN",
        },
        {
            "name": "pos",
            "type": {
                "type": "record",
                "name": "Pos",
                "namespace": "com.acme.geo",
                "fields": [
                    {"name": "lat", "type": "double"},
                    {"name": "lon", "type": "double"},
                ],
            },
        },
        {"name": "track", "type": {"type": "array", "items": "com.acme.geo.Pos"}},
        {"name": "named", "type": {"type": "map", "values": "com.acme.geo.Pos"}},
        {"name": "hash", "type": {"type": "fixed", "name": "Md5", "size": 16}},
        {"name": "second_color", "type": "Color"},
        {"name": "next", "type": ["null", "Reading"], "default": None},
        {"name": "date", "type": "string", "default": "x"},
    ],
}

AVRO_GOOD = {
    "class": 1,
    "deviceId": "d",
    "big": 2**40,
    "ratio": 0.5,
    "ts": "2024-01-02T03:04:05Z",
    "tsu": "2024-01-02T03:04:05.123456Z",
    "day": "2024-01-02",
    "tod": "03:04:05",
    "amount": "1234.56",
    "uid": "12345678-1234-5678-1234-567812345678",
    "nullable_required": None,
    "multi": ["a"],
    "pos": {"lat": 1.0, "lon": 2.0},
    "track": [{"lat": 3.0, "lon": 4.0}],
    "named": {"home": {"lat": 5.0, "lon": 6.0}},
    "hash": "0123456789abcdef",
    "second_color": "RED",
}


def test_avro_every_type(tmp_path: Path) -> None:
    src = render_models([A("avro", AVRO_RECORD, "ReadingData")])
    assert src.diagnostics == [] and src.classes == {"avro": "ReadingData"}
    m = load(src, tmp_path)
    r = m.ReadingData.model_validate(AVRO_GOOD)
    assert (
        r.class_ == 1
        and r.device_id == "d"
        and r.flag is False
        and r.exact == 1.5
        and r.raw == b"\xff\x00"
    )
    assert isinstance(r.ts, datetime) and isinstance(r.day, date) and isinstance(r.tod, time)
    assert r.amount == Decimal("1234.56") and isinstance(r.uid, UUID)
    assert r.note is None and r.multi == ["a"] and r.next_ is None and r.date_ == "x"
    assert (
        isinstance(r.color, enum.Enum)
        and r.color.value == "GREEN"
        and type(r.second_color) is type(r.color)
    )
    assert (
        isinstance(r.pos, BaseModel)
        and type(r.track[0]) is type(r.pos)
        and type(r.named["home"]) is type(r.pos)
    )
    assert m.ReadingData.__doc__ == 'Avro """ doc \\'
    assert m.ReadingData.model_fields["class_"].description == "a keyword"
    assert r.model_dump(by_alias=True)["deviceId"] == "d"
    nested = m.ReadingData.model_validate({**AVRO_GOOD, "next": AVRO_GOOD})
    assert isinstance(nested.next_, m.ReadingData)
    for bad in (
        {
            k: v for k, v in AVRO_GOOD.items() if k != "nullable_required"
        },  # required even if nullable
        {**AVRO_GOOD, "hash": "short"},  # fixed size
        {**AVRO_GOOD, "second_color": "BLUE"},
        {**AVRO_GOOD, "amount": "12345.678"},  # decimal precision/scale
        {**AVRO_GOOD, "multi": 1.5},
    ):
        with pytest.raises(ValidationError):
            m.ReadingData.model_validate(bad)
    import json

    with pytest.raises(ValidationError):
        m.ReadingData.model_validate_json(json.dumps({**AVRO_GOOD, "big": 3.7}), strict=True)


def test_avro_roots_reuse_and_errors(tmp_path: Path) -> None:
    pos = {"type": "record", "name": "Pos", "fields": [{"name": "x", "type": "int"}]}
    payloads = [
        A("a", pos, "PosA"),
        A("b", pos, "PosB"),  # identical record, other payload: subclass
        A(
            "c",
            {
                "type": "record",
                "name": "Pos",
                "fields": [{"name": "y", "type": "string"}],
            },
            "PosC",
        ),
        A(
            "e",
            {"type": "enum", "name": "Suit", "symbols": ["HEARTS", "class"]},
            "SuitRoot",
        ),
        A("arr", {"type": "array", "items": pos}, "PosList"),
        A("u", ["null", "string", "long"], "Loose"),
        A(
            "bad",
            {
                "type": "record",
                "name": "Broken",
                "fields": [{"name": "z", "type": "Nowhere"}],
            },
            "Broken",
        ),
    ]
    src = render_models(payloads)
    assert [(loc, code) for loc, code, _ in src.diagnostics] == [("cat.json#/bad", "XRG322")]
    m = load(src, tmp_path)
    assert issubclass(m.PosB, m.PosA) and m.PosB.model_validate({"x": 1}).x == 1
    assert m.PosC.model_validate({"y": "s"}).y == "s"
    suit = m.SuitRoot.model_validate("class").root
    assert isinstance(suit, enum.Enum) and suit.name == "class_"
    assert type(m.PosList.model_validate([{"x": 1}]).root[0]) is m.PosA
    assert m.Loose.model_validate(None).root is None and m.Loose.model_validate(5).root == 5
    assert m.Broken.model_validate({"z": 1}).model_extra == {"z": 1}


def _keyword_shuffled(node: Any, rnd: random.Random, in_props: bool = False) -> Any:
    """The same schema with every object's key order shuffled, except property order."""
    if isinstance(node, list):
        return [_keyword_shuffled(v, rnd) for v in node]
    if not isinstance(node, dict):
        return node
    keys = list(node)
    if not in_props:
        rnd.shuffle(keys)
    return {
        k: _keyword_shuffled(node[k], rnd, in_props=(k == "properties" and not in_props))
        for k in keys
    }


def test_deterministic_output() -> None:
    payloads = [
        J("d4", DRAFT04, "D4"),
        J("d7", DRAFT07, "D7"),
        J("d20", DRAFT2020, "D20"),
        J("h", HOSTILE, "Hostile"),
        A("avro", AVRO_RECORD, "ReadingData"),
    ]
    first = render_models(payloads)
    assert render_models(copy.deepcopy(payloads)).code == first.code
    for seed in range(3):
        rnd = random.Random(seed)
        again = [
            ir.Payload(
                p.key,
                p.format,
                _keyword_shuffled(p.schema, rnd) if p.format == "json" else p.schema,
                p.model_name,
                p.location,
            )
            for p in payloads
        ]
        assert render_models(again).code == first.code


def test_mypy_strict_on_rendered_module(tmp_path: Path) -> None:
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    assert mypy, "mypy is a test dependency"
    payloads = [
        J("d4", DRAFT04, "D4"),
        J("d7", DRAFT07, "D7"),
        J("d20", DRAFT2020, "D20"),
        J("h", HOSTILE, "Hostile"),
        J("tree", {"type": "object", "properties": {"child": {"$ref": "#"}}}, "Tree"),
        J("enum", {"type": "string", "enum": ["a"]}, "Color"),
        J("dup", {**DRAFT07, "title": "Other"}, "D7Copy"),
        J("bad", {"type": "object", "properties": []}, "Bad"),
        A("avro", AVRO_RECORD, "ReadingData"),
        A("u", ["null", "string", "long"], "Loose"),
        A("fixed", {"type": "fixed", "name": "F", "size": 2}, "FixedRoot"),
    ]
    path = tmp_path / "rendered_models.py"
    path.write_text(render_models(payloads).code, encoding="utf-8")
    proc = subprocess.run(
        [
            mypy,
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
