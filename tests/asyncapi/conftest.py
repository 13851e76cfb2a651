"""The official AsyncAPI parser (npm @asyncapi/parser with the Avro and Protobuf schema
parsers, installed by ``make setup`` into tests/asyncapi/node) and the exported documents of
every sample catalog, parsed once per session.

Without node or the installed parser the tests skip locally and fail under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sample_catalogs import GOOD, SAMPLES

from xrgen import api
from xrgen.export.asyncapi import dump, from_analysis

from .edge_catalog import CATALOG
from conftest import require_shared

NODE_DIR = Path(__file__).resolve().parent / "node"
ROOT = NODE_DIR.parents[2]
CATALOGS = ROOT / "catalogs"
#: sample catalogs with catalog errors (no document; tests/e2e checks their exit code)
BROKEN_SAMPLES = frozenset({"cycle"})


def require_parser() -> str:
    """The node binary, with the parser installed; skip (fail under CI) without."""
    node = shutil.which("node")
    installed = (NODE_DIR / "node_modules" / "@asyncapi" / "parser").is_dir()
    if node is None or not installed:
        reason = (
            "node is not installed"
            if node is None
            else "run `make setup` (npm ci in tests/asyncapi/node)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(
                f"the AsyncAPI parser is missing: {reason} (CI=true: required)",
                pytrace=False,
            )
        pytest.skip(f"the AsyncAPI parser is missing: {reason}")
    return node


def run_node(*args: str) -> Any:
    node = require_parser()
    done = subprocess.run(
        [node, str(NODE_DIR / "validate.mjs"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=NODE_DIR,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


@dataclass
class Exported:
    """One catalog exported and read back by the official parser."""

    name: str
    analysis: api.Analysis
    document: dict[str, Any]
    path: Path
    parsed: dict[str, Any]

    @property
    def problems(self) -> list[dict[str, Any]]:
        """The parser's errors and warnings (its infos and hints are advice, e.g. that
        AsyncAPI 3.1 exists)."""
        return [d for d in self.parsed["diagnostics"] if d["severity"] in ("error", "warning")]

    @property
    def model(self) -> dict[str, Any]:
        return self.parsed["model"]  # type: ignore[no-any-return]


def export_all(catalogs: dict[str, str], folder: Path) -> dict[str, Exported]:
    """Export each catalog (name -> source) as YAML into ``folder`` and parse them all with
    one run of the parser."""
    docs: dict[str, tuple[api.Analysis, dict[str, Any], Path]] = {}
    for name, source in catalogs.items():
        analysis = api.analyze([source])
        assert (
            not analysis.diagnostics.has_errors
        ), f"{name}: {[str(d) for d in analysis.diagnostics.sorted()][:3]}"
        doc = from_analysis(analysis)
        path = folder / (name.replace("/", "__") + ".yaml")
        path.write_text(dump(doc, "yaml"), encoding="utf-8")
        docs[name] = (analysis, doc, path)
    parsed = run_node(*(str(p) for _, _, p in docs.values()))
    return {
        name: Exported(name, analysis, doc, path, parsed[str(path)])
        for name, (analysis, doc, path) in docs.items()
    }


@pytest.fixture(scope="session")
def sample_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Exported]:
    """catalogs/* (the project's samples) and the edge catalog (edge_catalog.py), exported and
    parsed."""
    require_parser()
    folder = tmp_path_factory.mktemp("asyncapi-samples")
    catalogs = {
        p.parent.name: str(p)
        for p in sorted(CATALOGS.glob("*/catalog.json"))
        if p.parent.name not in BROKEN_SAMPLES
    }
    edge = folder / "edge.json"
    edge.write_text(json.dumps(CATALOG), encoding="utf-8")
    catalogs["edge"] = str(edge)
    return export_all(catalogs, folder)


@pytest.fixture(scope="session")
def real_exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Exported]:
    """The real third-party catalogs of ../shared (skipped when absent), exported and parsed."""
    require_shared()
    require_parser()
    return export_all({s: str(SAMPLES / s) for s in GOOD}, tmp_path_factory.mktemp("asyncapi-real"))
