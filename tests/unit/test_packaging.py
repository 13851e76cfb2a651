"""The distributions list every package of their source folders.

Both pyproject.toml files name their packages explicitly (the generator/ folder is installed as
`xrgen`), so a new subpackage that is not listed is missing from the wheel: the editable install
the tests use still finds it, but `pip install xrgen` and the pre-commit hooks fail to import.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _listed(pyproject: Path) -> set[str]:
    return set(tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["packages"])


def _packages(folder: Path, name: str) -> set[str]:
    return {
        ".".join([name, *init.parent.relative_to(folder).parts])
        for init in folder.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }


def test_every_generator_package_is_in_the_wheel() -> None:
    listed = _listed(ROOT / "pyproject.toml")
    missing = _packages(ROOT / "generator", "xrgen") - listed
    assert not missing, f"add to [tool.setuptools] packages of pyproject.toml: {sorted(missing)}"


def test_every_template_folder_is_in_the_wheel() -> None:
    listed = _listed(ROOT / "pyproject.toml")
    folders = {p.parent for p in (ROOT / "templates").rglob("*.j2")}
    names = {".".join(["xrgen._templates", *f.relative_to(ROOT / "templates").parts]) for f in folders}
    assert names <= listed, sorted(names - listed)


def test_every_runtime_package_is_in_the_wheel() -> None:
    runtime = ROOT / "runtime"
    missing = _packages(runtime / "xrgen_runtime", "xrgen_runtime") - _listed(runtime / "pyproject.toml")
    assert not missing, f"add to [tool.setuptools] packages of runtime/pyproject.toml: {sorted(missing)}"
