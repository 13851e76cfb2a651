"""generator/spark_types.py and the formats' spark_type: payload and event schemas as Spark type JSON (pure, no pyspark)."""

from __future__ import annotations

from typing import Any

from xrgen.formats.avro import spark_type as avro_to_spark
from xrgen.formats.jsonschema import spark_type as json_schema_to_spark
from xrgen.spark_types import attribute_type, event_schema, payload_to_spark


def f(name: str, dtype: Any, nullable: bool = True) -> dict[str, Any]:
    return {"name": name, "type": dtype, "nullable": nullable, "metadata": {}}


def st(*fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "struct", "fields": list(fields)}


def arr(element: Any, contains_null: bool = True) -> dict[str, Any]:
    return {"type": "array", "elementType": element, "containsNull": contains_null}


def mp(value: Any, contains_null: bool = True) -> dict[str, Any]:
    return {
        "type": "map",
        "keyType": "string",
        "valueType": value,
        "valueContainsNull": contains_null,
    }


def test_json_object_required_and_primitives() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "ok": {"type": "boolean"},
            "at": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "blob": {"type": "string", "contentEncoding": "base64"},
            "price": {
                "type": "string",
                "format": "decimal",
                "precision": 10,
                "scale": 2,
            },
            "maybe": {"type": ["integer", "null"]},
        },
        "required": ["id", "n", "maybe"],
    }
    assert json_schema_to_spark(schema) == st(
        f("id", "string", False),
        f("n", "long", False),
        f("x", "double"),
        f("ok", "boolean"),
        f("at", "timestamp"),
        f("day", "date"),
        f("blob", "binary"),
        f("price", "decimal(10,2)"),
        f("maybe", "long", True),
    )


def test_json_arrays_maps_enums_and_type_lists() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
            "anything": {"type": "array"},
            "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
            "free": {"type": "object"},
            "unit": {"enum": ["C", "F"]},
            "level": {"enum": [1, 2, 3]},
            "num": {"type": ["integer", "number"]},
            "mixed": {"type": ["string", "integer"]},
            "decimal_default": {"type": "number", "format": "decimal"},
        },
    }
    assert json_schema_to_spark(schema) == st(
        f("tags", arr("string")),
        f("tuple", arr("string")),
        f("anything", arr("string")),
        f("labels", mp("long")),
        f("free", mp("string")),
        f("unit", "string"),
        f("level", "long"),
        f("num", "double"),
        f("mixed", "string"),
        f("decimal_default", "decimal(38,18)"),
    )


def test_json_refs_defs_and_recursion_falls_back_to_string() -> None:
    schema = {
        "type": "object",
        "properties": {
            "loc": {"$ref": "#/definitions/Loc"},
            "node": {"$ref": "#/$defs/Node"},
            "ext": {"$ref": "https://example.com/other.json"},
        },
        "required": ["loc"],
        "definitions": {
            "Loc": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "required": ["lat"],
            }
        },
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        },
    }
    assert json_schema_to_spark(schema) == st(
        f("loc", st(f("lat", "double", False), f("lon", "double")), False),
        f("node", st(f("name", "string"), f("children", arr("string")))),
        f("ext", "string"),
    )


def test_json_allof_merges_and_oneof_unions() -> None:
    schema = {
        "definitions": {
            "Base": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
            }
        },
        "allOf": [
            {"$ref": "#/definitions/Base"},
            {
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
        ],
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"r": {"type": "number"}},
                        "required": ["r"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "w": {"type": "number"},
                            "r": {"type": "number"},
                        },
                    },
                ]
            },
            "opt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    assert json_schema_to_spark(schema) == st(
        f("id", "string", False),
        f("n", "long", False),
        f("shape", st(f("r", "double"), f("w", "double"))),
        f("opt", "string"),
        f("either", "string"),
    )


def test_json_non_object_roots() -> None:
    assert json_schema_to_spark({"type": "array", "items": {"type": "integer"}}) == arr(
        "long"
    )
    assert json_schema_to_spark({"type": "string"}) == "string"
    assert json_schema_to_spark(True) == "string"
    assert json_schema_to_spark({}) == "string"


def test_avro_records_unions_and_logical_types() -> None:
    schema = {
        "type": "record",
        "name": "Reading",
        "namespace": "com.acme",
        "fields": [
            {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
            {"name": "value", "type": "double"},
            {"name": "count", "type": "int"},
            {"name": "note", "type": ["null", "string"], "default": None},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {
                "name": "amount",
                "type": {
                    "type": "bytes",
                    "logicalType": "decimal",
                    "precision": 9,
                    "scale": 3,
                },
            },
            {
                "name": "kind",
                "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]},
            },
            {"name": "raw", "type": {"type": "fixed", "name": "Raw", "size": 4}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "attrs", "type": {"type": "map", "values": ["null", "long"]}},
            {"name": "either", "type": ["string", "int"]},
            {"name": "wide", "type": ["int", "long"]},
            {"name": "again", "type": "Kind"},
            {"name": "next", "type": ["null", "Reading"]},
        ],
    }
    assert avro_to_spark(schema) == st(
        f("id", "string", False),
        f("value", "double", False),
        f("count", "integer", False),
        f("note", "string", True),
        f("at", "timestamp", False),
        f("day", "date", False),
        f("amount", "decimal(9,3)", False),
        f("kind", "string", False),
        f("raw", "binary", False),
        f("tags", arr("string", False), False),
        f("attrs", mp("long", True), False),
        f("either", st(f("member0", "string"), f("member1", "integer")), False),
        f("wide", "long", False),
        f("again", "string", False),
        f("next", "string", True),
    )


def test_payload_dispatch_and_event_schema() -> None:
    data = payload_to_spark(
        "json", {"type": "object", "properties": {"v": {"type": "number"}}}
    )
    assert data == st(f("v", "double"))
    assert payload_to_spark(None, None) is None
    assert payload_to_spark("avro", "string") == "string"
    assert (
        attribute_type("integer") == "integer"
        and attribute_type("uritemplate") == "string"
    )
    event = event_schema(
        data,
        [
            ("seq", "integer"),
            ("urgent", "boolean"),
            ("at", "timestamp"),
            ("sig", "binary"),
            ("region", "string"),
            ("time", "string"),
        ],
    )
    assert event == st(
        f("specversion", "string", False),
        f("id", "string", False),
        f("source", "string", False),
        f("type", "string", False),
        f("time", "timestamp"),
        f("datacontenttype", "string"),
        f("dataschema", "string"),
        f("subject", "string"),
        f("seq", "integer"),
        f("urgent", "boolean"),
        f("at", "timestamp"),
        f("sig", "binary"),
        f("region", "string"),
        f("traceparent", "string"),
        f("tracestate", "string"),
        f("data", data),
    )
    assert event_schema(None)["fields"][-1] == f("data", "binary")


def test_self_referential_schemas_map_to_a_bounded_type_with_a_warning(tmp_path: Any) -> None:
    """``{"anyOf": [{"$ref": "#"}, ...]}`` and a ``$ref`` cycle through a property: the
    recursive part is a JSON ``string``; generation warns (XRG325) instead of recursing."""
    import json

    from xrgen import api
    from xrgen.formats.jsonschema import spark_recursive

    root_any = {"anyOf": [{"$ref": "#"}, {"type": "string"}]}
    assert json_schema_to_spark(root_any) == "string" and spark_recursive(root_any)
    tree = {"type": "object", "properties": {"v": root_any, "n": {"type": "integer"}}}
    assert json_schema_to_spark(tree) == st(f("v", "string"), f("n", "long"))
    listed = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}}
    assert json_schema_to_spark(listed) == st(f("kids", arr("string")))
    assert not spark_recursive({"type": "object", "properties": {"a": {"type": "string"}}})

    catalog = {
        "messagegroups": {
            "g": {
                "messages": {
                    "m": {
                        "messageid": "m",
                        "envelope": "CloudEvents/1.0",
                        "envelopemetadata": {"type": {"value": "m"}},
                        "dataschemaformat": "JsonSchema/draft-07",
                        "dataschemauri": "#/schemagroups/s/schemas/r",
                    }
                }
            }
        },
        "schemagroups": {
            "s": {
                "schemas": {
                    "r": {"versions": {"1": {"format": "JsonSchema/draft-07", "schema": tree}}}
                }
            }
        },
    }
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    result = api.generate([str(path)], "recursive_pkg")
    codes = [d.code for d in result.diagnostics]
    assert result.ok and "XRG902" not in codes, codes
    assert "XRG325" in codes
    spark_py = next(text for rel, text in result.files.items() if str(rel).endswith("spark.py"))
    assert '"name":"v","type":"string"' in spark_py.replace(" ", "")


def test_protobuf_descriptor_set_for_spark_includes_imports() -> None:
    """What ``spark.py`` ships for ``from_protobuf``: protoc's FileDescriptorSet with
    ``--include_imports`` (imports first, the schema's own file last)."""
    from google.protobuf import descriptor_pb2  # type: ignore[import-untyped]

    from xrgen.formats.protobuf import spark_descriptors

    text = (
        'syntax = "proto3";\npackage ex;\nimport "google/protobuf/timestamp.proto";\n'
        "message Ev { string id = 1; google.protobuf.Timestamp at = 2; }\n"
    )
    found = spark_descriptors(text)
    assert found is not None
    name, raw = found
    files = descriptor_pb2.FileDescriptorSet.FromString(raw).file
    assert name == "ex.Ev"
    assert [f.name for f in files][0] == "google/protobuf/timestamp.proto"
    assert [m.name for m in files[-1].message_type] == ["Ev"]
    assert spark_descriptors("not proto") is None and spark_descriptors({"type": "x"}) is None
