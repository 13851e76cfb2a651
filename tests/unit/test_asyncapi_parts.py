"""The pure pieces of the AsyncAPI export: the YAML writer, ``$ref`` rebasing of JSON Schema
payloads, the Protobuf root annotation, endpoint URIs as servers, and determinism."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from xrgen import api
from xrgen.export.asyncapi import dump, from_analysis
from xrgen.export.asyncapi_payloads import rebase, root_annotated
from xrgen.export.asyncapi_protocols import lookup, parse_uri
from xrgen.export.yaml_emit import dump as yaml_dump

ROOT = Path(__file__).resolve().parents[2]

TRICKY = [
    "", " ", "yes", "No", "ON", "off", "y", "n", "null", "Null", "~", "true", "False", "1.0",
    "0x10", "010", "1e5", ".5", "+1", "-", "- a", "a: b", "a:b", "#c", "a #b", " lead",
    "trail ", "multi\nline", "multi\nline\n", "a\n\n", "\n", "\nlead", "tab\there", "a\tb\nc",
    "\u2028", "x\u2029y", "\x85", "\ufeff", "\x00nul", "\x7f", "é", "日本", "😀", "{x}",
    "[x]", "*a", "&a", "!t", "%d", "@a", "`a", "'q'", '"q"', "|", ">", "?", ":", ",",
    "2001-12-14", "1:20", "<<", "=", "$ref", "#/components/schemas/X", "a  b", "a b ",
    "line1\n  indented\nline3", "back\\slash", "CRLF\r\nline", "ends with colon:",
    ".inf", "-.inf", ".nan", "NaN", "x-origin", "application/cloudevents+json",
]  # fmt: skip


def _load(text: str) -> Any:
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def test_tricky_strings_read_back_as_written() -> None:
    doc = {s or "empty": s for s in TRICKY} | {"list": TRICKY, "keys": {s: 1 for s in TRICKY}}
    assert _load(yaml_dump(doc)) == doc


def test_scalars_read_back_with_their_types() -> None:
    doc = {
        "i": 1, "neg": -7, "big": 2**70, "f": 1.5, "tiny": 1e-05, "huge": 1e100, "zero": -0.0,
        "t": True, "f2": False, "none": None, "empty_map": {}, "empty_list": [],
        "nested": [[1, [2]], {"a": [{"b": {}}]}, []],
    }  # fmt: skip
    back = _load(yaml_dump(doc))
    assert back == doc
    assert isinstance(back["huge"], float) and isinstance(back["tiny"], float)
    inf = _load(yaml_dump({"x": math.inf, "y": -math.inf, "z": math.nan}))
    assert inf["x"] == math.inf and inf["y"] == -math.inf and math.isnan(inf["z"])


def test_multi_line_text_is_a_literal_block() -> None:
    text = yaml_dump({"description": "first line\nsecond line"})
    assert text == "description: |-\n  first line\n  second line\n"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_any_json_value_reads_back(value: Any) -> None:
    assert _load(yaml_dump(value)) == value


def test_rebase_points_local_refs_into_the_component() -> None:
    schema = {
        "$id": "https://x.example/s.json",
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/A"},
            "self": {"$ref": "#"},
            "byid": {"$ref": "https://x.example/s.json#/definitions/A"},
            "other": {"$ref": "https://elsewhere.example/t.json#/A"},
            "list": {"items": [{"$ref": "#/$defs/B"}], "anyOf": [{"$ref": "#/definitions/A"}]},
            "data": {"const": {"$ref": "#/kept"}, "enum": [{"$ref": "#/kept"}], "examples": [{"$ref": "#"}]},
        },
        "definitions": {"A": {"type": "string"}, "$ref": {"$ref": "#/definitions/A"}},
        "$defs": {"B": {"not": {"$ref": "#/definitions/A"}}},
    }  # fmt: skip
    out = rebase(schema, "/components/schemas/S", "https://x.example/s.json")
    p = out["properties"]
    assert p["a"] == {"$ref": "#/components/schemas/S/definitions/A"}
    assert p["self"] == {"$ref": "#/components/schemas/S"}
    assert p["byid"] == {"$ref": "#/components/schemas/S/definitions/A"}
    assert p["other"] == {"$ref": "https://elsewhere.example/t.json#/A"}
    assert p["list"]["items"] == [{"$ref": "#/components/schemas/S/$defs/B"}]
    assert p["list"]["anyOf"] == [{"$ref": "#/components/schemas/S/definitions/A"}]
    assert p["data"] == schema["properties"]["data"]  # type: ignore[index]
    assert out["definitions"]["$ref"] == {"$ref": "#/components/schemas/S/definitions/A"}
    assert out["$defs"]["B"]["not"] == {"$ref": "#/components/schemas/S/definitions/A"}
    assert schema["properties"]["a"] == {"$ref": "#/definitions/A"}  # type: ignore[index]


def test_rebase_writes_draft04_bounds_in_their_later_form() -> None:
    schema = {
        "properties": {
            "a": {"minimum": 1, "exclusiveMinimum": True},
            "b": {"maximum": 5, "exclusiveMaximum": False},
            "c": {"exclusiveMinimum": True},
            "d": {"exclusiveMinimum": 2},
            "e": {"default": {"minimum": 1, "exclusiveMinimum": True}},
        }
    }
    p = rebase(schema, "/x")["properties"]
    assert p["a"] == {"exclusiveMinimum": 1}
    assert p["b"] == {"maximum": 5}
    assert p["c"] == {}
    assert p["d"] == {"exclusiveMinimum": 2}
    assert p["e"] == {"default": {"minimum": 1, "exclusiveMinimum": True}}


def test_rebase_of_deep_nesting_costs_no_stack() -> None:
    schema: dict[str, Any] = {"$ref": "#"}
    for _ in range(20_000):
        schema = {"items": schema}
    out = rebase(schema, "/c")
    for _ in range(20_000):
        out = out["items"]
    assert out == {"$ref": "#/c"}


def test_root_annotation_marks_the_first_top_level_message() -> None:
    one = 'syntax = "proto3";\nmessage A { string x = 1; }\n'
    assert root_annotated(one) == one
    text = (
        'syntax = "proto3";\n// message Fake { }\n/* message Fake2 { } */\n'
        'option x = "message Q {";\nmessage A {\n  message Inner { string y = 1; }\n'
        "  Inner i = 1;\n}\nmessage B { A a = 1; }\n"
    )
    out = root_annotated(text)
    assert out.replace("// @RootNode\n", "", 1) == text
    assert "// @RootNode\nmessage A {" in out


def test_endpoint_uris_as_servers() -> None:
    kafka, mqtt, http = lookup("KAFKA"), lookup("MQTT/5.0"), lookup("HTTP")

    def read(uri: str, pmap: Any) -> tuple[str, str, str]:
        a = parse_uri(uri, pmap)
        return a.protocol, a.host, a.path

    assert read("{host}:{port}", kafka) == ("kafka", "{host}:{port}", "")
    assert read("SASL_SSL://b:9093", kafka) == ("kafka-secure", "b:9093", "")
    assert read("mqtts://user@broker:8883/a/b", mqtt) == ("secure-mqtt", "broker:8883", "/a/b")
    assert read("wss://h/mqtt", mqtt) == ("wss", "h", "/mqtt")
    assert read("https://{host}/hooks/{t}?v=1#f", http) == ("https", "{host}", "/hooks/{t}")
    assert read("bunny://h", lookup("BunnyMQ/0.9")) == ("bunny", "h", "")
    assert lookup("BunnyMQ/0.9").default == "bunnymq" and lookup(None).default == "unknown"


def test_the_document_is_the_same_for_the_same_catalog() -> None:
    sources = [str(ROOT / "catalogs" / "acme" / "catalog.json"), str(ROOT / "catalogs" / "endpoints" / "catalog.json")]
    texts = {dump(from_analysis(api.analyze(sources)), fmt) for fmt in ("yaml",) for _ in range(2)}
    assert len(texts) == 1
