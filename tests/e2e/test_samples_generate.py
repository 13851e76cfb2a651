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

from generator.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared" / "catalogs" / "xrcg-samples"
if not SAMPLES.is_dir():
    pytest.skip("../shared/catalogs/xrcg-samples is not beside the checkout", allow_module_level=True)

#: sample -> the pointer of the broken reference it must report (exit 1)
BROKEN = {
    "protocols/kafka-producer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/kafka-consumer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/nats-producer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/nats-consumer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "message-definitions/mqtt-sparkplugB.xreg.json": "#/messagegroups/Eclipse.SparkplugB.Device/messages/DBIRTH/dataschemauri: error XRG210",
    "message-definitions/minimal-avro2.xreg.json": ": error XRG135",
}
ALL = sorted(
    str(p.relative_to(SAMPLES))
    for p in SAMPLES.rglob("*")
    if p.suffix in (".json", ".yaml") and "separate-schema" not in p.parts and "split-files" not in p.parts
) + ["split-files"]
GOOD = [s for s in ALL if s not in BROKEN]


@pytest.mark.parametrize("sample", sorted(BROKEN))
def test_broken_samples_exit_1_with_pointer(sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["generate", str(SAMPLES / sample), "--out", str(out), "--package", "s", "--quiet"]) == 1
    assert BROKEN[sample] in capsys.readouterr().err
    assert not out.exists()


def _package(sample: str) -> str:
    return "s_" + "".join(c if c.isalnum() else "_" for c in sample.rsplit(".", 2)[0])


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


def test_generated_samples_pass_mypy_strict(generated_samples: Path, tmp_path: Path) -> None:
    packages = [_package(s) for s in GOOD]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".m"),
         *[x for p in packages for x in ("-p", p)]],
        cwd=generated_samples, capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(generated_samples)},
    )
    assert proc.returncode == 0, proc.stdout[-5000:]
