"""The package lists of both distributions name every subpackage in the source tree, so an
installed (non-editable) xrgen or xrgen-runtime never lacks a module the source imports."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _subpackages(folder: Path, name: str) -> set[str]:
    return {
        ".".join([name, *p.parent.relative_to(folder).parts])
        for p in folder.rglob("__init__.py")
        if "__pycache__" not in p.parts
    }


def _listed(pyproject: Path) -> set[str]:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return set(data["tool"]["setuptools"]["packages"])


def test_xrgen_lists_every_generator_subpackage() -> None:
    listed = _listed(ROOT / "pyproject.toml")
    assert _subpackages(ROOT / "generator", "xrgen") <= listed


def test_xrgen_runtime_lists_every_runtime_subpackage() -> None:
    runtime = ROOT / "runtime"
    listed = _listed(runtime / "pyproject.toml")
    assert _subpackages(runtime / "xrgen_runtime", "xrgen_runtime") == listed
