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

from xrgen import api

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "runtime" / "xrgen_runtime"
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "catalogs" / "xrcg-samples"

_counter = itertools.count()

#: tests/wheels checks installed wheels; scripts/test_wheels.sh runs it in a fresh environment
collect_ignore = [] if os.environ.get("XRGEN_WHEEL_TEST") else ["wheels"]


# --------------------------------------------------------------------------- parallel workers

#: session resources a run starts once per worker that uses them: the local SparkSession (every
#: test under tests/spark), the private Kafka (Tansu) and Pulsar brokers (tests/brokers/conftest.py)
_SESSION_GROUPS = (("spark", None), ("kafka", "kafka_bootstrap"), ("pulsar", "pulsar_url"))


def _group(item: pytest.Item) -> str | None:
    fixtures = getattr(item, "fixturenames", ())
    for group, fixture in _SESSION_GROUPS:
        if fixture is None:
            if item.path.is_relative_to(ROOT / "tests" / group):
                return group
        elif fixture in fixtures:
            return group
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist with ``--dist loadgroup`` (``make test``), the tests that share one
    of the expensive session resources run on one worker, so each resource starts once per run;
    every other test goes to whichever worker is free."""
    for item in items:
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


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
