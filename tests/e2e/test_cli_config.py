"""The command line with ``[tool.xrgen]`` settings, run as a user runs it (``python -m xrgen``
in a subprocess): flag pairs override the file, bad settings are usage errors (exit 2)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ACME = ROOT / "catalogs" / "acme" / "catalog.json"
#: a catalog with warnings (unresolvable basemessage): exit 0, or 1 with --strict
WARNS = ROOT / "catalogs" / "resolution" / "catalog.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "catalogs").mkdir()
    (tmp_path / "catalogs" / "acme.json").write_text(ACME.read_text())
    (tmp_path / "catalogs" / "warns.json").write_text(WARNS.read_text())
    return tmp_path


def xrgen(cwd: Path, settings: str, *args: str) -> subprocess.CompletedProcess[str]:
    (cwd / "pyproject.toml").write_text("[tool.xrgen]\n" + settings, encoding="utf-8")
    env = {**os.environ, "XRGEN_CACHE_DIR": str(cwd.parent / "xrgen-cache")}
    return subprocess.run(
        [sys.executable, "-m", "xrgen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


GENERATE = 'catalogs = "catalogs/acme.json"\nout = "src"\npackage = "acme"\n'


def test_catalogs_as_one_string_and_spark_pair(project: Path) -> None:
    spark = project / "src" / "acme" / "spark.py"
    assert xrgen(project, GENERATE + "spark = false\n", "generate", "--quiet").returncode == 0
    assert (project / "src" / "acme" / "producer.py").is_file() and not spark.exists()
    assert xrgen(project, GENERATE + "spark = false\n", "generate", "--spark").returncode == 0
    assert spark.is_file()
    assert xrgen(project, GENERATE + "spark = true\n", "generate", "--no-spark").returncode == 0
    assert not spark.exists()
    assert xrgen(project, GENERATE, "generate").returncode == 0  # default: spark.py
    assert spark.is_file()


@pytest.mark.slow
def test_pyproject_pair(project: Path) -> None:
    written = project / "src" / "pyproject.toml"
    assert xrgen(project, GENERATE + "pyproject = true\n", "generate", "--no-pyproject").returncode == 0
    assert not written.exists()
    assert xrgen(project, GENERATE + "pyproject = true\n", "generate").returncode == 0
    assert written.is_file()
    assert xrgen(project, GENERATE, "generate", "--pyproject").returncode == 0
    assert written.is_file()


def test_strict_pair(project: Path) -> None:
    warns = 'catalogs = ["catalogs/warns.json"]\n'
    assert xrgen(project, warns, "validate").returncode == 0
    assert xrgen(project, warns, "validate", "--strict").returncode == 1
    assert xrgen(project, warns + "strict = true\n", "validate").returncode == 1
    assert xrgen(project, warns + "strict = true\n", "validate", "--no-strict").returncode == 0


def test_arguments_replace_the_file_catalogs(project: Path) -> None:
    done = xrgen(project, 'catalogs = ["catalogs/warns.json"]\nstrict = true\n', "validate", "catalogs/acme.json")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ('spark = "false"\n', "[tool.xrgen] spark: input should be a valid boolean, got 'false'"),
        ("sprak = false\n", "[tool.xrgen] sprak: unknown key"),
        ("catalogs = [1]\n", "[tool.xrgen] catalogs[0]: input should be a valid string, got 1"),
        ("strict = [\n", "cannot read [tool.xrgen]"),
    ],
)
def test_bad_settings_are_usage_errors(project: Path, settings: str, expected: str) -> None:
    done = xrgen(project, settings, "validate", "catalogs/acme.json")
    assert done.returncode == 2
    assert done.stderr.startswith(f"xrgen: error: pyproject.toml: {expected}")
    assert done.stdout == ""


def test_config_file_named_on_the_command_line(project: Path) -> None:
    done = xrgen(project, "", "validate", "--config", "other.toml", "catalogs/acme.json")
    assert (done.returncode, done.stderr.startswith("xrgen: error: other.toml: cannot read")) == (2, True)
    sub = project / "sub"
    sub.mkdir()
    (sub / "settings.toml").write_text('[tool.xrgen]\ncatalogs = ["../catalogs/warns.json"]\nstrict = true\n')
    done = xrgen(project, "", "validate", "--config", "sub/settings.toml")
    assert done.returncode == 1 and "error XRG" in done.stderr  # catalogs found from sub/


def test_generated_pyproject_states_the_runtime_floors(project: Path) -> None:
    assert xrgen(project, GENERATE, "generate", "--pyproject").returncode == 0
    generated = tomllib.loads((project / "src" / "pyproject.toml").read_text())["project"]
    runtime = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())["project"]
    assert generated["requires-python"] == runtime["requires-python"]
    extras = generated["optional-dependencies"]
    assert extras == {name: [f"xrgen-runtime[{name}]"] for name in runtime["optional-dependencies"]}
    (requirement,) = generated["dependencies"]
    assert requirement.startswith("xrgen-runtime>=")
