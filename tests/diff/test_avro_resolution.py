"""The Avro rules against a real Avro implementation: for each OLD/NEW pair and direction,
fastavro writes datums with the writer schema (covering every enum symbol and union branch)
and reads them with the reader schema; the data must resolve exactly when ``compare_avro``
reports nothing breaking that direction."""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from xrgen.diff.avro import compare_avro

fastavro = (
    pytest.importorskip("fastavro") if os.environ.get("CI") != "true" else __import__("fastavro")
)

HERE = Path(__file__).resolve().parent


def _tick_pairs() -> list[tuple[str, Any, Any]]:
    """The Avro payloads of the case folders (schema Tick)."""
    out = []
    for folder in sorted(HERE.iterdir()):
        if not (folder / "old.json").is_file() or not folder.name.startswith("avro"):
            continue
        docs = [json.loads((folder / f).read_text()) for f in ("old.json", "new.json")]
        vers = [d["schemagroups"]["com.ex.schemas"]["schemas"]["Tick"]["versions"] for d in docs]
        out.append((folder.name, vers[0]["1"]["schema"], vers[1]["1"]["schema"]))
    return out


def rec(name: str, *fields: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": list(fields), **extra}


def f(name: str, t: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": t, **extra}


ENUM = {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}
PAIRS: list[tuple[str, Any, Any]] = [
    *_tick_pairs(),
    ("record-renamed-alias", rec("A", f("x", "int")), rec("B", f("x", "int"), aliases=["A"])),
    ("record-renamed", rec("A", f("x", "int")), rec("B", f("x", "int"))),
    (
        "fixed-size",
        rec("R", f("h", {"type": "fixed", "name": "H", "size": 4})),
        rec("R", f("h", {"type": "fixed", "name": "H", "size": 8})),
    ),
    ("to-optional", rec("R", f("x", "string")), rec("R", f("x", ["null", "string"], default=None))),
    (
        "from-optional",
        rec("R", f("x", ["null", "string"], default=None)),
        rec("R", f("x", "string")),
    ),
    ("union-promotion", rec("R", f("x", ["null", "int"])), rec("R", f("x", ["null", "long"]))),
    (
        "array-items-promoted",
        rec("R", f("xs", {"type": "array", "items": "float"})),
        rec("R", f("xs", {"type": "array", "items": "double"})),
    ),
    (
        "map-values-changed",
        rec("R", f("m", {"type": "map", "values": "string"})),
        rec("R", f("m", {"type": "map", "values": "int"})),
    ),
    (
        "nested-field-added",
        rec("R", f("in", rec("In", f("a", "int")))),
        rec("R", f("in", rec("In", f("a", "int"), f("b", "int")))),
    ),
    (
        "enum-symbol-added-old-default",
        rec("R", f("c", {**ENUM, "default": "RED"})),
        rec("R", f("c", {**ENUM, "symbols": ["RED", "GREEN", "BLUE"], "default": "RED"})),
    ),
    (
        "enum-symbol-added",
        rec("R", f("c", ENUM)),
        rec("R", f("c", {**ENUM, "symbols": ["RED", "GREEN", "BLUE"]})),
    ),
    ("long-to-int", rec("R", f("x", "long")), rec("R", f("x", "int"))),
    ("bytes-to-string", rec("R", f("x", "bytes")), rec("R", f("x", "string"))),
    (
        "field-removed-default",
        rec("R", f("x", "int"), f("y", "int", default=0)),
        rec("R", f("x", "int")),
    ),
]


def _datum(schema: Any, i: int, names: dict[str, Any]) -> Any:
    if isinstance(schema, str):
        if schema in names:
            return _datum(names[schema], i, names)
        return {
            "null": None,
            "boolean": True,
            "int": 7,
            "long": 7,
            "float": 1.5,
            "double": 1.5,
            "bytes": b"x",
            "string": "x",
        }[schema]
    if isinstance(schema, list):
        return _datum(schema[i % len(schema)], i, names)
    t = schema["type"]
    if t in ("record", "enum", "fixed"):
        names[schema["name"]] = schema
    if t == "record":
        return {fd["name"]: _datum(fd["type"], i, names) for fd in schema["fields"]}
    if t == "enum":
        return schema["symbols"][i % len(schema["symbols"])]
    if t == "fixed":
        return b"\0" * schema["size"]
    if t == "array":
        return [_datum(schema["items"], i, names)]
    if t == "map":
        return {"k": _datum(schema["values"], i, names)}
    return _datum(t, i, names)


def resolves(writer: Any, reader: Any) -> bool:
    w = fastavro.parse_schema(copy.deepcopy(writer))
    r = fastavro.parse_schema(copy.deepcopy(reader))
    for i in range(4):  # enough to take every symbol and branch of these schemas
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, w, _datum(writer, i, {}))
        buf.seek(0)
        try:
            fastavro.schemaless_reader(buf, w, r)
        except Exception:  # fastavro raises SchemaResolutionError, and others for bad data
            return False
    return True


#: pairs whose bytes resolve while their meaning changes (a logical type added: an int read as a
#: date): the rules report them breaking both ways, schema resolution cannot see it
SEMANTIC = {"avro-logical-type-changed"}


@pytest.mark.parametrize(("name", "old", "new"), PAIRS, ids=[p[0] for p in PAIRS])
def test_verdicts_match_fastavro(name: str, old: Any, new: Any) -> None:
    findings = compare_avro(old, new)
    for direction, writer, reader in (("backward", old, new), ("forward", new, old)):
        predicted = not any(direction in x.breaks for x in findings)
        if name in SEMANTIC:
            assert resolves(writer, reader) and not predicted, (name, direction)
            continue
        assert resolves(writer, reader) == predicted, (name, direction, findings)
