"""Shared fixtures.

``runtime_package``: the xrgen_runtime package (runtime/xrgen_runtime), for unit tests of codecs
and engines that do not need a generated catalog.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

# the compiled runtime modules follow their sources (once, in the controller of an xdist run;
# before anything imports the runtime)
if not os.environ.get("PYTEST_XDIST_WORKER"):
    import subprocess

    subprocess.run(
        [sys.executable, str(Path(__file__).parent.parent / "scripts" / "compile_runtime.py")],
        check=True,
    )

from xrgen import api  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "runtime" / "xrgen_runtime"
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "catalogs" / "xrcg-samples"

_counter = itertools.count()

#: tests/wheels checks installed wheels; scripts/test_wheels.sh runs it in a fresh environment
collect_ignore = [] if os.environ.get("XRGEN_WHEEL_TEST") else ["wheels"]


# --------------------------------------------------------------------------- parallel workers

#: folders whose tests share an expensive session resource: under pytest-xdist with
#: ``--dist loadgroup`` (``make test``) each folder's tests run on one worker, so the resource
#: starts once per run: tests/spark the local SparkSession (and the standalone cluster),
#: tests/brokers the private Kafka (Tansu) and Pulsar brokers (tests/brokers/conftest.py),
#: tests/asyncapi the exported documents read back by the AsyncAPI parser (node)
SESSION_GROUPS = ("tests/spark/", "tests/brokers/", "tests/asyncapi/")


def _unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its ``SESSION_GROUPS`` folder, else its module."""
    for folder in SESSION_GROUPS:
        if nodeid.startswith(folder):
            return folder
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook; absent where xdist is not installed
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` with these groups: a folder of ``SESSION_GROUPS`` is one unit of
    work, every other test module another (so a module's fixtures run once too). Units go to
    whichever worker is free, in the order ``pytest_collection_modifyitems`` gives them: the
    long ones first, so that none of them starts last. (xdist's own ``xdist_group`` marks work
    by renaming node ids, which has no effect under pytest 9.2; the scheduler needs no mark.)"""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SessionGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    config.option.loadscopereorder = False  # keep the collection's order of units
    return SessionGroups(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the long units first (longest processing time first): the Spark
    folder, then every module or group holding a test marked ``slow``, then the rest, each in
    collection order. Every worker sorts alike, as xdist requires."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = {_unit(item.nodeid) for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        unit = _unit(item.nodeid)
        return 0 if unit == SESSION_GROUPS[0] else 1 if unit in slow or unit in SESSION_GROUPS else 2

    items.sort(key=rank)


@pytest.fixture(scope="session")
def runtime_package() -> ModuleType:
    return importlib.import_module("xrgen_runtime")


# --------------------------------------------------------------------------- generated packages

CATALOGS = ROOT / "catalogs"


def generate_into(dest: Path, sources: list[str], package: str, **kw: object) -> object:
    """Run the real pipeline (api.generate + write) into ``dest``; return the api.Result."""
    from xrgen.format import Formatter
    from xrgen.write import write

    result = api.generate(sources, package, formatter=Formatter(cache_dir=dest / ".cache"), **kw)  # type: ignore[arg-type]
    if result.ok:
        write(dest, package, result.files)
    return result


class Generated:
    """Generates packages once per session and imports them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[tuple[tuple[str, ...], str], ModuleType] = {}

    def __call__(self, *sources: str | Path, package: str | None = None, **kw: Any) -> ModuleType:
        srcs = tuple(str(s) for s in sources)
        name = package or f"gen_{next(_counter)}"
        key = (srcs, name)
        if key in self._cache:
            return self._cache[key]
        dest = self.root / name
        result = generate_into(dest, list(srcs), name, **kw)
        assert result.ok, "\n".join(str(d) for d in result.diagnostics.sorted())
        sys.path.insert(0, str(dest))
        try:
            module = importlib.import_module(name)
        finally:
            sys.path.remove(str(dest))
        self._cache[key] = module
        return module


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return Generated(tmp_path_factory.mktemp("gen"))


@pytest.fixture(scope="session")
def acme(generated: Generated) -> ModuleType:
    """The bundled sample catalog, generated as package ``acme``."""
    return generated(CATALOGS / "acme" / "catalog.json", package="acme")


def require_shared() -> Path:
    """The real sample catalogs from ../shared, or a clean skip when absent."""
    if not SAMPLES.is_dir():
        pytest.skip("../shared/catalogs/xrcg-samples is not beside the checkout")
    return SAMPLES
