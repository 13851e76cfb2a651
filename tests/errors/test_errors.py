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

from generator.diagnostics import Diagnostics
from generator.load import load
from generator.validate import validate

CASES_DIR = Path(__file__).resolve().parent
CASES = sorted(
    p.name for p in CASES_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
)


def run_case(case: Path) -> list[str]:
    """Load and validate a case's catalog; return the sorted diagnostic lines."""
    sources = sorted(p.name for p in case.iterdir() if p.name.startswith("catalog"))
    diags = Diagnostics()
    validate(load(sources, diags), diags)
    return [str(d) for d in diags.sorted()]


@pytest.mark.parametrize("case", CASES)
def test_error_case(
    case: str, snapshot: SnapshotAssertion, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(CASES_DIR / case)
    lines = run_case(CASES_DIR / case)
    assert any(" error XRG" in line or " warning XRG" in line for line in lines)
    assert lines == snapshot
