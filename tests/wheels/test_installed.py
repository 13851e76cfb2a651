"""The built wheels as a user installs them (run by scripts/test_wheels.sh in a fresh virtual
environment holding only the two wheels and the test tools: no client library, no pyspark)."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ACME = ROOT / "catalogs" / "acme" / "catalog.json"


def test_both_distributions_come_from_site_packages() -> None:
    purelib = Path(sysconfig.get_paths()["purelib"]).resolve()
    for module in ("xrgen", "xrgen_runtime"):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        assert Path(spec.origin).resolve().is_relative_to(purelib), spec.origin


def test_only_the_xrgen_import_names_are_installed() -> None:
    purelib = sysconfig.get_paths()["purelib"]
    installed = {d.metadata["Name"]: d for d in importlib.metadata.distributions(path=[purelib])}
    tops: set[str] = set()
    for dist in ("xrgen", "xrgen-runtime"):
        for f in installed[dist].files or ():
            top = f.parts[0]
            if not top.endswith((".dist-info", ".data")) and top != "..":
                tops.add(top.removesuffix(".py"))
    assert tops == {"xrgen", "xrgen_runtime"}
    for name in ("generator", "xrgen_templates"):
        assert importlib.machinery.PathFinder.find_spec(name, [purelib]) is None


def test_console_script_and_module_agree() -> None:
    script = Path(sys.executable).with_name("xrgen")
    by_script = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    by_module = subprocess.run([sys.executable, "-m", "xrgen", "--help"], capture_output=True, text=True)
    assert by_script.returncode == by_module.returncode == 0
    assert by_script.stdout == by_module.stdout and "generate" in by_script.stdout


def test_a_generated_package_imports_runs_and_passes_mypy_without_client_libraries(
    tmp_path: Path,
) -> None:
    """Every generated module, spark.py included, passes mypy --strict where neither pyspark
    nor a client library is installed (docs/generated-api.md)."""
    for library in ("confluent_kafka", "paho", "proton", "nats", "httpx", "pulsar", "rocketmq", "pyspark"):
        assert importlib.util.find_spec(library) is None, f"{library} is installed here"
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", str(ACME), "--out", str(out), "--package", "acme",
         "--quiet", "--no-cache"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "acme" / "spark.py").is_file() and (out / "acme" / "adapters").is_dir()
    run = subprocess.run(
        [sys.executable, "-c",
         "import acme, xrgen_runtime\n"
         "from acme.bindings import kafka\n"
         "ev = acme.MESSAGES['com.acme.Reading'].create({'value': 1.5}, plant='p1', sensor='s1')\n"
         "got = []\n"
         "d = acme.consumer.Dispatcher(dead_letter=lambda *a: got.append(a[1]))\n"
         "d.on_reading(lambda e, p: got.append(e.data.value))\n"
         "assert d.dispatch(kafka.encode(ev, mode='structured')).handled\n"
         "assert got == [1.5] and acme.Event is xrgen_runtime.Event\n"],
        cwd=out, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "acme"],
        cwd=out, capture_output=True, text=True,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_a_json_structure_catalog_generates_from_the_installed_wheels(tmp_path: Path) -> None:
    """The format's package and its schema validator (``json-structure``) come with xrgen."""
    out = tmp_path / "out"
    catalog = ROOT / "catalogs" / "jsonstructure" / "catalog.json"
    done = subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", str(catalog), "--out", str(out), "--package", "shop",
         "--quiet", "--no-cache"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    run = subprocess.run(
        [sys.executable, "-c",
         "import shop\n"
         "ev = shop.MESSAGES['example.shop.PriceList'].create({'tea': '2.50'}, shop='s')\n"
         "assert str(ev.data.root['tea']) == '2.50'\n"],
        cwd=out, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr


def test_an_adapter_says_which_library_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ImportError):
        importlib.import_module("xrgen_runtime.adapters.kafka")
