"""Error cases: each folder here holds a catalog (``catalog*`` files or folders, stacked in name
order) and the snapshot holds the diagnostics it must produce, sorted, one per line.

Run from inside the case folder so diagnostics name the files as a user would type them.
Snapshots are reviewed like code; update them only with ``pytest --snapshot-update`` for new
cases (``tox -e regen``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from xrgen.cli import main

CASES_DIR = Path(__file__).resolve().parent
CASES = sorted(
    p.name for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
)


def run_case(case: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``xrgen generate`` the case's catalog; return the exit code line and the diagnostics."""
    sources = sorted(p.name for p in case.iterdir() if p.name.startswith("catalog"))
    code = main(["generate", *sources, "--out", str(out), "--package", "case", "--quiet", "--no-cache"])
    err = capsys.readouterr().err
    if code != 0:
        assert not out.exists()  # with an error nothing is written
    return [f"exit {code}", *err.splitlines()]


@pytest.mark.parametrize("case", CASES)
def test_error_case(
    case: str,
    snapshot: SnapshotAssertion,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(CASES_DIR / case)
    lines = run_case(CASES_DIR / case, tmp_path / "out", capsys)
    assert any(" error XRG" in line or " warning XRG" in line for line in lines)
    assert lines == snapshot
