"""``xrgen validate`` reports what ``xrgen generate`` would (DESIGN section 5): on every catalog
of catalogs/ and every error case of tests/errors, both commands exit with the same code and
report the same set of diagnostic codes (validate writes nothing, generate into a temporary
folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xrgen.cli import main

ROOT = Path(__file__).resolve().parents[2]
ERRORS = ROOT / "tests" / "errors"
CASES = [
    *((p, ("catalog.json",)) for p in sorted((ROOT / "catalogs").iterdir()) if p.is_dir()),
    *(
        (p, tuple(sorted(c.name for c in p.iterdir() if c.name.startswith("catalog"))))
        for p in sorted(ERRORS.iterdir())
        if p.is_dir() and not p.name.startswith(("_", "."))
    ),
]
_CODE = re.compile(r": (?:error|warning) (XRG\d+): ")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, set[str]]:
    code = main(argv)
    err = capsys.readouterr().err
    return code, set(_CODE.findall(err))


@pytest.mark.parametrize(
    ("folder", "sources"), CASES, ids=[f"{p.parent.name}/{p.name}" for p, _ in CASES]
)
def test_validate_reports_what_generate_would(
    folder: Path,
    sources: tuple[str, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert sources
    monkeypatch.chdir(folder)
    monkeypatch.setenv("XRGEN_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    generated = _run(
        ["generate", *sources, "--out", str(out), "--package", "case", "--quiet", "--no-cache"],
        capsys,
    )
    validated = _run(["validate", *sources], capsys)
    assert validated == generated
    # and again from the run cache (a catalog without errors is not checked twice)
    assert _run(["validate", *sources], capsys) == generated
