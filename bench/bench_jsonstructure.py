"""JSON Structure generation benchmark: time per schema against JSON Schema schemas of the
same shape, measured in the same run.

Two catalogs of ``N`` messages, each message with its own schema of one shape (an object of
12 members: string, 32- and 64-bit integers, double, boolean, date-time, date, uuid, decimal,
an enum, an array of a nested 3-member object, a map of strings; 4 required), one written in
JSON Structure, one in JSON Schema (draft-07). Every round renames the members (so no cache
of a schema check or of a formatted chunk serves it) and times, interleaved:

- ``generate``: ``api.generate`` of the whole catalog (load, validate with the format's schema
  validator, resolve, build, models, Spark types, render, black), a fresh formatter each time;
- ``models``: the format's stages alone: the schema check and ``models.render_models`` of the
  catalog's payloads.

Prints the median per schema of each, and the ratio JSON Structure / JSON Schema. Target: the
``generate`` ratio at most 1.0. Run: ``python bench/bench_jsonstructure.py [--quick]``.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

QUICK = "--quick" in sys.argv
N = 10 if QUICK else 30
ROUNDS = 3 if QUICK else 7
META = "https://json-structure.org/meta/core/v0/#"


def structure(i: int, salt: str) -> dict[str, Any]:
    return {
        "$schema": META,
        "$id": f"https://example.com/s{i}",
        "name": f"Reading{i}",
        "type": "object",
        "properties": {
            f"name{salt}": {"type": "string", "maxLength": 40},
            f"count{salt}": {"type": "int32"},
            f"sequence{salt}": {"type": "int64"},
            f"value{salt}": {"type": "double"},
            f"ok{salt}": {"type": "boolean"},
            f"at{salt}": {"type": "datetime"},
            f"day{salt}": {"type": "date"},
            f"id{salt}": {"type": "uuid"},
            f"price{salt}": {"type": "decimal", "precision": 10, "scale": 2},
            f"unit{salt}": {"type": "string", "enum": ["C", "F", "K"]},
            f"lines{salt}": {
                "type": "array",
                "items": {
                    "type": "object",
                    "name": f"Line{i}",
                    "properties": {
                        "sku": {"type": "string"},
                        "amount": {"type": "int32"},
                        "note": {"type": "string"},
                    },
                    "required": ["sku"],
                },
            },
            f"labels{salt}": {"type": "map", "values": {"type": "string"}},
        },
        "required": [f"name{salt}", f"count{salt}", f"at{salt}", f"id{salt}"],
    }


def jsonschema(i: int, salt: str) -> dict[str, Any]:
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": f"Reading{i}",
        "type": "object",
        "properties": {
            f"name{salt}": {"type": "string", "maxLength": 40},
            f"count{salt}": {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
            f"sequence{salt}": {"type": "integer", "format": "int64"},
            f"value{salt}": {"type": "number"},
            f"ok{salt}": {"type": "boolean"},
            f"at{salt}": {"type": "string", "format": "date-time"},
            f"day{salt}": {"type": "string", "format": "date"},
            f"id{salt}": {"type": "string", "format": "uuid"},
            f"price{salt}": {"type": "number", "multipleOf": 0.01},
            f"unit{salt}": {"type": "string", "enum": ["C", "F", "K"]},
            f"lines{salt}": {
                "type": "array",
                "items": {
                    "type": "object",
                    "title": f"Line{i}",
                    "properties": {
                        "sku": {"type": "string"},
                        "amount": {"type": "integer"},
                        "note": {"type": "string"},
                    },
                    "required": ["sku"],
                },
            },
            f"labels{salt}": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": [f"name{salt}", f"count{salt}", f"at{salt}", f"id{salt}"],
    }


def catalog(kind: str, salt: str) -> dict[str, Any]:
    fmt = "JsonStructure/draft-04" if kind == "structure" else "JsonSchema/draft-07"
    make = structure if kind == "structure" else jsonschema
    messages, schemas = {}, {}
    for i in range(N):
        mid = f"bench.M{i}"
        messages[mid] = {
            "messageid": mid,
            "envelope": "CloudEvents/1.0",
            "envelopemetadata": {"type": {"value": mid}, "source": {"value": "/b"}},
            "dataschemaformat": fmt,
            "dataschemauri": f"#/schemagroups/s/schemas/S{i}",
        }
        schemas[f"S{i}"] = {"format": fmt, "versions": {"1": {"format": fmt, "schema": make(i, salt)}}}
    return {
        "messagegroups": {"bench": {"envelope": "CloudEvents/1.0", "messages": messages}},
        "schemagroups": {"s": {"schemas": schemas}},
    }


def run_generate(path: Path, work: Path) -> float:
    from xrgen import api
    from xrgen.format import Formatter

    t = time.perf_counter()
    result = api.generate([str(path)], "bench_pkg", formatter=Formatter(cache_dir=work, use_cache=False))
    took = time.perf_counter() - t
    assert result.ok, [str(d) for d in result.diagnostics][:3]
    return took


def run_models(path: Path) -> float:
    from xrgen import api, formats
    from xrgen.diagnostics import Diagnostics
    from xrgen.models import render_models

    analysis = api.analyze([str(path)])
    assert analysis.catalog is not None
    payloads = analysis.catalog.payloads
    diags = Diagnostics()
    t = time.perf_counter()
    for p in payloads:
        module = formats.module(p.format)
        assert module is not None
        module.check(p.schema, None, "bench.json", "", diags)
    render_models(payloads)
    return time.perf_counter() - t


def main() -> None:
    times: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for r in range(ROUNDS + 1):  # round 0 warms imports up and is not counted
            for kind in ("jsonschema", "structure") if r % 2 else ("structure", "jsonschema"):
                path = work / f"{kind}{r}.json"
                path.write_text(json.dumps(catalog(kind, f"r{r}")))
                gen = run_generate(path, work / f"fmt{kind}{r}")
                path.write_text(json.dumps(catalog(kind, f"m{r}")))
                mod = run_models(path)
                if r:
                    times.setdefault((kind, "generate"), []).append(gen / N)
                    times.setdefault((kind, "models"), []).append(mod / N)
    print(f"{N} schemas per catalog, median of {ROUNDS} interleaved rounds (ms per schema)")
    for stage in ("generate", "models"):
        js = statistics.median(times[("jsonschema", stage)]) * 1000
        st = statistics.median(times[("structure", stage)]) * 1000
        print(f"{stage:9} JSON Schema {js:7.2f}  JSON Structure {st:7.2f}  ratio {st / js:.2f}")


if __name__ == "__main__":
    main()
