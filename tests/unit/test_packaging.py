"""The distributions hold every package of their source folders.

The generator's pyproject.toml names its packages explicitly (the generator/ folder is installed
as `xrgen`), so a new subpackage that is not listed is missing from the wheel: the editable
install the tests use still finds it, but `pip install xrgen` and the pre-commit hooks fail to
import. The runtime's finds its packages (a binding is a package of its own, added without
editing anything else).
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
    from setuptools import find_packages

    runtime = ROOT / "runtime"
    find = tomllib.loads((runtime / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    found = set(find_packages(str(runtime), include=find["include"]))
    packages = _packages(runtime / "xrgen_runtime", "xrgen_runtime")
    assert found == packages, sorted(found ^ packages)
    assert "xrgen_runtime.bindings.kafka" in found


def _runtime_extras() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())
    extras: dict[str, list[str]] = data["project"]["optional-dependencies"]
    return extras


def test_the_all_extra_is_every_other_extra() -> None:
    extras = _runtime_extras()
    (requirement,) = extras["all"]
    named = requirement.removeprefix("xrgen-runtime[").removesuffix("]").split(",")
    assert sorted(named) == sorted(set(extras) - {"all"})


def _install_section() -> str:
    readme = (ROOT / "README.md").read_text()
    return readme[readme.index("## Install\n") : readme.index("\n## ", readme.index("## Install\n") + 1)]


def test_the_readme_names_every_runtime_extra() -> None:
    section = _install_section()
    for name in _runtime_extras():
        assert f"`{name}`" in section, f"README's Install section does not name the extra {name!r}"


def test_the_install_from_a_clone_is_documented_and_run_by_test_wheels() -> None:
    """The README's clone install is the command scripts/test_wheels.sh runs in a fresh venv,
    and every page that shows `pip install 'xrgen-runtime[...]'` shows the clone spelling too."""
    command = "pip install ./runtime ."
    assert f"\n{command}" in _install_section()
    assert '/bin/pip" install -q ./runtime .\n' in (ROOT / "scripts" / "test_wheels.sh").read_text()
    pages = [ROOT / "README.md", ROOT / "runtime" / "README.md", *(ROOT / "docs").glob("*.md")]
    for page in pages:
        text = page.read_text()
        if "pip install 'xrgen-runtime[" in text:
            assert "pip install './runtime[" in text, page
