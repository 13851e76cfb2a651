"""``xrgen diff`` on the real third-party sample catalogs (../shared/catalogs/xrcg-samples;
skipped when absent) and the project's own catalogs: each against itself reports nothing, each
against another never fails, and every Protobuf schema in them is read by the .proto parser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from xrgen import api
from xrgen.diff import diff_catalogs
from xrgen.diff.protobuf import parse_proto

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sample_catalogs import ABSENT_REASON, GOOD, PRESENT, SAMPLES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OWN = sorted(str(p) for p in (ROOT / "catalogs").glob("*/catalog.json") if p.parent.name != "cycle")
SAMPLE_PATHS = [str(SAMPLES / s) for s in GOOD]
needs_samples = pytest.mark.skipif(not PRESENT, reason=ABSENT_REASON)


@pytest.mark.parametrize("catalog", OWN, ids=lambda p: Path(p).parent.name)
def test_own_catalog_against_itself(catalog: str) -> None:
    result = diff_catalogs([catalog], [catalog], mode="full")
    assert not result.diagnostics.has_errors
    assert result.reports == []


@needs_samples
@pytest.mark.parametrize("sample", GOOD)
def test_sample_against_itself(sample: str) -> None:
    path = str(SAMPLES / sample)
    result = diff_catalogs([path], [path], mode="full", api_errors=True)
    assert not result.diagnostics.has_errors
    assert result.reports == [], [r.line() for r in result.reports]


@needs_samples
def test_samples_against_each_other() -> None:
    paths = SAMPLE_PATHS + OWN
    for old, new in zip(paths, paths[1:] + paths[:1], strict=True):
        result = diff_catalogs([old], [new], mode="full")
        assert not result.diagnostics.has_errors, (old, new)
        for r in result.reports:
            assert r.line().startswith(r.change.file + "#"), r.line()
            assert r.change.code.startswith("XRG5")


def _proto_texts(node: Any) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for v in node.values():
            out += _proto_texts(v)
    elif isinstance(node, list):
        for v in node:
            out += _proto_texts(v)
    elif isinstance(node, str) and "syntax" in node and "message" in node:
        out.append(node)
    return out


@needs_samples
def test_every_sample_proto_schema_parses() -> None:
    texts: list[str] = []
    for path in SAMPLE_PATHS:
        an = api.analyze([path])
        assert an.resolved is not None
        for g in an.resolved.groups:
            for m in g.messages:
                if m.schema is not None and m.schema.family == "protobuf":
                    texts += _proto_texts(m.schema.schema)
    assert texts, "the samples hold Protobuf schemas"
    for text in texts:
        assert parse_proto(text).messages
