"""Start-up cost by what is imported (not timed: bench/bench_generate.py measures it): ``xrgen
--help`` and a warm ``xrgen generate`` / ``xrgen validate`` (nothing changed since the last run)
must not import the formatter, the renderer, the model generator or the schema validator.
Each command runs in a fresh interpreter that reports ``sys.modules`` after ``main``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ACME = ROOT / "catalogs" / "acme" / "catalog.json"
HEAVY = ("black", "jinja2", "datamodel_code_generator", "jsonschema")
#: runs ``xrgen.cli.main`` with the arguments given as JSON, then prints its exit code and the
#: top-level names of the modules imported
PROBE = """
import json, sys
from xrgen.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as e:
    code = e.code
print(json.dumps([code, sorted({m.split(".")[0] for m in sys.modules})]))
"""


def _imports(args: list[str], cache: Path) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "XRGEN_CACHE_DIR": str(cache)},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    code, modules = json.loads(done.stdout.splitlines()[-1])
    return code, set(modules)


def test_help_imports_no_pipeline(tmp_path: Path) -> None:
    code, modules = _imports(["--help"], tmp_path)
    assert code == 0
    assert not modules & {*HEAVY, "pydantic", "yaml"}


@pytest.mark.parametrize("command", ["generate", "validate"])
def test_a_warm_run_imports_no_pipeline(command: str, tmp_path: Path) -> None:
    args = [command, str(ACME)]
    if command == "generate":
        args += ["--out", str(tmp_path / "out"), "--package", "acme", "--quiet"]
    cold_code, cold = _imports(args, tmp_path / "cache")
    assert cold_code == 0 and "datamodel_code_generator" in cold  # the probe sees the pipeline
    warm_code, warm = _imports(args, tmp_path / "cache")
    assert warm_code == 0
    assert not warm & set(HEAVY), sorted(warm & set(HEAVY))
