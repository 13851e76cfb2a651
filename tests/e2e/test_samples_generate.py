"""Every real sample catalog (../shared/catalogs/xrcg-samples) through `xrgen generate`:
the good ones generate a package that imports, passes mypy --strict and builds and
round-trips its messages; the broken ones exit 1 with the right pointer and write nothing."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sample_catalogs import ABSENT_REASON, BROKEN, GOOD, PRESENT, SAMPLES
from sample_catalogs import package_name as _package

from xrgen.cli import main

if not PRESENT:
    pytest.skip(ABSENT_REASON, allow_module_level=True)


@pytest.mark.parametrize("sample", sorted(BROKEN))
def test_broken_samples_exit_1_with_pointer(sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["generate", str(SAMPLES / sample), "--out", str(out), "--package", "s", "--quiet"]) == 1
    assert BROKEN[sample] in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture(scope="module")
def generated_samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    for sample in GOOD:
        code = main(["generate", str(SAMPLES / sample), "--out", str(out), "--package", _package(sample), "--quiet"])
        assert code == 0, sample
    return out


@pytest.mark.parametrize("sample", GOOD)
def test_good_samples_import_and_round_trip(sample: str, generated_samples: Path) -> None:
    sys.path.insert(0, str(generated_samples))
    try:
        pkg = importlib.import_module(_package(sample))
        kafka = importlib.import_module(_package(sample) + ".bindings.kafka")
        jsonformat = importlib.import_module(_package(sample) + ".bindings.jsonformat")
    finally:
        sys.path.remove(str(generated_samples))
    assert pkg.MESSAGES
    for info in pkg.MESSAGES.values():
        assert info.definition.id == info.id
        if info.definition.envelope is None:
            continue
        # a CloudEvent of this definition, from decoded JSON, dispatched back to its handler
        attrs = {"specversion": "1.0", "id": "1", "source": "/s", "type": info.type or "t"}
        event = jsonformat.decode(jsonformat.encode(pkg.Event(attrs, b"x")))
        assert event.attributes["type"] == attrs["type"]
        wire = kafka.encode(event, mode="structured", topic="t")
        assert kafka.decode(wire).attributes["id"] == "1"


@pytest.mark.slow
def test_generated_samples_pass_mypy_strict(generated_samples: Path, tmp_path: Path) -> None:
    packages = [_package(s) for s in GOOD]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".m"),
         *[x for p in packages for x in ("-p", p)]],
        cwd=generated_samples, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(generated_samples)},
    )
    assert proc.returncode == 0, proc.stdout[-5000:]
