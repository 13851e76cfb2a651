"""``xrgen export asyncapi`` as users run it (``python -m xrgen`` in a subprocess): output to
stdout or a file, YAML or JSON, the same bytes every run, ``--endpoint`` selection, and the
exit codes: 1 with catalog errors (nothing written), 2 for usage and I/O errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ENDPOINTS = ROOT / "catalogs" / "endpoints" / "catalog.json"
ACME = ROOT / "catalogs" / "acme" / "catalog.json"
CYCLE = ROOT / "catalogs" / "cycle" / "catalog.json"
#: warnings only (an unresolvable basemessage): exit 0, or 1 with --strict
WARNS = ROOT / "catalogs" / "resolution" / "catalog.json"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run cache of this module's own, outside the checkout."""
    monkeypatch.setenv("XRGEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "export-cache"))


def xrgen(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xrgen", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )


def test_yaml_on_stdout_and_json_in_a_file_are_one_document(tmp_path: Path) -> None:
    shown = xrgen("export", "asyncapi", ENDPOINTS)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith('asyncapi: "3.0.0"\n'), shown.stdout[:80]
    out = tmp_path / "api.json"
    written = xrgen("export", "asyncapi", ENDPOINTS, "-o", out)
    assert written.returncode == 0 and written.stdout == "", written.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == yaml.safe_load(shown.stdout)
    as_json = xrgen("export", "asyncapi", ENDPOINTS, "--format", "json")
    assert as_json.stdout == out.read_text(encoding="utf-8")
    assert xrgen("export", "asyncapi", ENDPOINTS, "-o", "-").stdout == shown.stdout
    forced = tmp_path / "api.json.txt"
    assert xrgen("export", "asyncapi", ENDPOINTS, "-o", forced, "--format", "yaml").returncode == 0
    assert forced.read_text(encoding="utf-8") == shown.stdout


def test_the_same_catalog_gives_the_same_bytes(tmp_path: Path) -> None:
    first, second = (xrgen("export", "asyncapi", ACME, ENDPOINTS) for _ in range(2))
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    out = tmp_path / "api.yaml"
    assert xrgen("export", "asyncapi", ACME, ENDPOINTS, "-o", out).returncode == 0
    before = out.stat().st_mtime_ns
    assert xrgen("export", "asyncapi", ACME, ENDPOINTS, "-o", out).returncode == 0
    assert out.read_text(encoding="utf-8") == first.stdout
    assert out.stat().st_mtime_ns == before  # unchanged: not rewritten


def test_a_changed_catalog_is_exported_again_and_warnings_come_back(tmp_path: Path) -> None:
    """A second run of an unchanged catalog is answered from the run cache (as validate is),
    with the same bytes and the same diagnostics; a change is seen."""
    catalog = tmp_path / "c.json"
    catalog.write_text(WARNS.read_text(encoding="utf-8"), encoding="utf-8")
    first, again = xrgen("export", "asyncapi", catalog), xrgen("export", "asyncapi", catalog)
    assert first.returncode == again.returncode == 0
    assert (first.stdout, first.stderr) == (again.stdout, again.stderr)
    assert "warning XRG" in again.stderr
    text = catalog.read_text(encoding="utf-8")
    doc = json.loads(text)
    group = next(iter(doc["messagegroups"].values()))
    group["description"] = "changed since the last export"
    catalog.write_text(json.dumps(doc), encoding="utf-8")
    changed = xrgen("export", "asyncapi", catalog)
    assert "changed since the last export" in changed.stdout


def test_stacked_catalogs_make_one_document() -> None:
    done = xrgen("export", "asyncapi", ACME, ENDPOINTS)
    doc = yaml.safe_load(done.stdout)
    names = {m["name"] for m in doc["components"]["messages"].values()}
    assert {"com.acme.Reading", "com.example.orders.OrderPlaced"} <= names


def test_endpoint_selection() -> None:
    done = xrgen(
        "export", "asyncapi", ENDPOINTS,
        "--endpoint", "com.example.orders.billing", "--endpoint", "com.example.alerts.raise",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = yaml.safe_load(done.stdout)
    assert set(doc["operations"]) == {"com.example.orders.billing", "com.example.alerts.raise"}
    assert set(doc["servers"]) == {"com.example.orders.billing", "com.example.alerts.raise"}
    assert {m["name"] for m in doc["components"]["messages"].values()} == {
        "com.example.orders.OrderPlaced",
        "com.example.orders.OrderShipped",
        "com.example.alerts.AlertRaised",
    }
    assert doc["info"]["x-xregistry-endpoints"] == [
        "com.example.orders.billing",
        "com.example.alerts.raise",
    ]


def test_an_unknown_endpoint_names_the_closest(tmp_path: Path) -> None:
    out = tmp_path / "api.yaml"
    done = xrgen(
        "export", "asyncapi", ENDPOINTS, "--endpoint", "com.example.orders.produce", "-o", out
    )
    assert done.returncode == 2
    assert "xrgen: error: --endpoint 'com.example.orders.produce' names no endpoint" in done.stderr
    assert "closest: com.example.orders.producer" in done.stderr
    assert not out.exists()
    none = xrgen("export", "asyncapi", ACME, "--endpoint", "x")
    assert none.returncode == 2 and "declares no endpoints" in none.stderr


def test_catalog_errors_exit_1_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "api.yaml"
    out.write_text("before\n")
    done = xrgen("export", "asyncapi", CYCLE, "-o", out)
    assert done.returncode == 1
    assert "catalog.json#/messagegroups/loop/messages/" in done.stderr
    assert "error XRG201" in done.stderr
    assert out.read_text() == "before\n" and done.stdout == ""


def test_warnings_pass_unless_strict() -> None:
    loose = xrgen("export", "asyncapi", WARNS)
    assert loose.returncode == 0 and "warning XRG" in loose.stderr and loose.stdout
    strict = xrgen("export", "asyncapi", WARNS, "--strict")
    assert strict.returncode == 1 and strict.stdout == ""


def test_python_naming_warnings_are_not_the_export_s(tmp_path: Path) -> None:
    """XRG301 (a Python name taken) concerns the generated package only."""
    catalog = tmp_path / "c.json"
    catalog.write_text(json.dumps({
        "messagegroups": {"g": {"messages": {
            mid: {"messageid": mid, "envelope": "CloudEvents/1.0",
                  "envelopemetadata": {"type": {"value": mid}, "source": {"value": "/s"}}}
            for mid in ("a.x", "b.x")
        }}}
    }))  # fmt: skip
    assert "XRG301" in xrgen("validate", catalog).stderr
    done = xrgen("export", "asyncapi", catalog, "--strict")
    assert done.returncode == 0 and "XRG301" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "the following arguments are required"),
        (("asyncapi",), "no catalogs given"),
        (("openapi", "x.json"), "invalid choice: 'openapi'"),
        (("asyncapi", "missing.json"), "missing.json"),
        (("asyncapi", ENDPOINTS, "--format", "xml"), "invalid choice: 'xml'"),
    ],
)
def test_usage_and_io_errors_exit_2(
    args: tuple[str | Path, ...], message: str, tmp_path: Path
) -> None:
    done = xrgen("export", *args, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert message in done.stderr, done.stderr


def test_an_unwritable_output_is_an_io_error(tmp_path: Path) -> None:
    done = xrgen("export", "asyncapi", ENDPOINTS, "-o", tmp_path / "no" / "such" / "dir.yaml")
    assert done.returncode == 2
    assert "xrgen: error: cannot write" in done.stderr
    assert not list(tmp_path.rglob("*.yaml"))


def test_settings_file_supplies_the_catalogs(tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text(ENDPOINTS.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.xrgen]\ncatalogs = ["catalog.json"]\n')
    done = xrgen("export", "asyncapi", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(done.stdout)["info"]["title"] == "catalog.json"


def test_a_reader_leaving_early_ends_quietly() -> None:
    done = subprocess.run(
        f"{sys.executable} -m xrgen export asyncapi {ACME} {ENDPOINTS} | head -c 10",
        shell=True, capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.stdout == "asyncapi: "
    # the catalogs' own notes only: no traceback, no broken-pipe message
    assert [line for line in done.stderr.splitlines() if ": note XRG" not in line] == []


def test_options_may_come_before_the_catalogs(tmp_path: Path) -> None:
    out = tmp_path / "api.yaml"
    done = xrgen("export", "asyncapi", "-o", out, "--format", "yaml", ACME, ENDPOINTS)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == xrgen("export", "asyncapi", ACME, ENDPOINTS).stdout
    stray = xrgen("export", "asyncapi", ACME, "--no-such-flag")
    assert stray.returncode == 2 and "unrecognized arguments: --no-such-flag" in stray.stderr
    assert xrgen("validate", ACME, "--strict", ENDPOINTS).returncode == 2  # as before


ERROR_CASES = sorted(
    p
    for p in (ROOT / "tests" / "errors").iterdir()
    if p.is_dir() and not p.name.startswith(("_", "."))
)


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda p: p.name)
def test_broken_catalogs_exit_as_validate_does(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error catalogs of tests/errors: the export's exit code is validate's, with no
    internal error and nothing written when it is not 0."""
    from xrgen.cli import main

    monkeypatch.chdir(case)
    sources = sorted(p.name for p in case.iterdir() if p.name.startswith("catalog"))
    out = tmp_path / "api.yaml"
    validated = main(["validate", *sources])
    capsys.readouterr()
    exported = main(["export", "asyncapi", *sources, "-o", str(out)])
    err = capsys.readouterr().err
    assert exported == validated, err
    assert "XRG9" not in err and "Traceback" not in err
    assert out.exists() == (exported == 0)
