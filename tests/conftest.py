"""Shared fixtures.

``runtime_package``: the static runtime (templates/runtime/) copied into a fresh importable
package, for unit tests of codecs and engines that do not need a generated catalog.
"""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "templates" / "runtime"
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "catalogs" / "xrcg-samples"

_counter = itertools.count()


def copy_runtime(dest_root: Path, name: str) -> Path:
    """Copy templates/runtime into ``dest_root/name`` as an importable package."""
    pkg = dest_root / name
    shutil.copytree(RUNTIME, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    init = pkg / "__init__.py"
    if not init.exists():
        init.write_text("from ._core import *  # noqa: F401,F403\nfrom ._core import DecodeError, Event\n")
    return pkg


@pytest.fixture(scope="session")
def runtime_package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    root = tmp_path_factory.mktemp("rt")
    name = f"xrt_{next(_counter)}"
    copy_runtime(root, name)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(root))
