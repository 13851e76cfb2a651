"""Every exported document is valid AsyncAPI 3.0 for the official parser: the catalogs of
this project and the real third-party catalogs of ../shared, YAML and JSON alike."""

from __future__ import annotations

from pathlib import Path

import yaml

from xrgen.export.asyncapi import dump

from .conftest import Exported, run_node


def _assert_valid(exports: dict[str, Exported]) -> None:
    bad = {
        name: [
            f"{d['severity']} {d['code']} at {d['path']}: {d['message'][:300]}" for d in e.problems
        ]
        for name, e in exports.items()
        if e.problems or not e.parsed["parsed"]
    }
    assert not bad, bad


def test_every_sample_catalog_exports_a_valid_document(
    sample_exports: dict[str, Exported],
) -> None:
    assert {"acme", "endpoints", "avro", "protobuf", "xml", "hostile"} <= set(sample_exports)
    _assert_valid(sample_exports)


def test_every_real_catalog_exports_a_valid_document(
    real_exports: dict[str, Exported],
) -> None:
    assert len(real_exports) >= 30
    _assert_valid(real_exports)


def test_the_parser_reads_every_schema_format(
    sample_exports: dict[str, Exported], real_exports: dict[str, Exported]
) -> None:
    """The parser resolved a payload of each kind: AsyncAPI schema (JSON Schema), Avro and
    Protobuf through their schema parsers (which read them into JSON Schema); an XSD it has
    no parser for reaches its readers as written, under its schemaFormat."""
    messages = [
        m
        for e in [*sample_exports.values(), *real_exports.values()]
        for m in e.model["messages"].values()
    ]
    formats = {m["schemaFormat"] for m in messages if m["schemaFormat"]}
    assert "application/vnd.aai.asyncapi;version=3.0.0" in formats
    assert "application/vnd.apache.avro;version=1.9.0" in formats
    assert "application/vnd.google.protobuf;version=3" in formats
    xsd = [m["payload"] for m in messages if m["contentType"] == "application/xml"]
    assert xsd and all(
        p["schemaFormat"] == "application/xml" and "<xs:schema" in p["schema"] for p in xsd
    )
    for kind in ("protobuf", "avro"):  # read into JSON Schema under the format's name
        read = [m["payload"]["schema"] for m in messages if kind in (m["schemaFormat"] or "")]
        assert read and all(p["type"] == "object" and p["properties"] for p in read), kind


def test_json_output_is_the_same_document(
    sample_exports: dict[str, Exported], tmp_path: Path
) -> None:
    paths = {}
    for name in ("endpoints", "acme", "hostile", "protobuf"):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(dump(sample_exports[name].document, "json"), encoding="utf-8")
    parsed = run_node(*(str(p) for p in paths.values()))
    for name, path in paths.items():
        got = parsed[str(path)]
        assert got["parsed"], name
        assert not [d for d in got["diagnostics"] if d["severity"] in ("error", "warning")], name
        assert got["model"] == sample_exports[name].model, name


def test_yaml_reads_alike_in_yaml_1_1_and_1_2(
    sample_exports: dict[str, Exported],
) -> None:
    """The YAML text is the document for PyYAML (YAML 1.1) and js-yaml (YAML 1.2), the reader
    of the AsyncAPI tools."""
    paths = [str(e.path) for e in sample_exports.values()]
    read = run_node("--yaml", *paths)
    for e in sample_exports.values():
        assert read[str(e.path)] == e.document, e.name
        assert yaml.safe_load(e.path.read_text(encoding="utf-8")) == e.document, e.name
