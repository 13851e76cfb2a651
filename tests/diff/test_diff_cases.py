"""``xrgen diff`` case folders: ``old.json`` and ``new.json``, and per mode the expected
output: ``backward.txt``, ``forward.txt``, ``full.txt`` (``--mode``), ``default.txt`` (the
declared mode, else backward) and ``api.txt`` (``--api``), each ``exit: N`` and the change
lines. ``XRGEN_UPDATE_DIFF=1`` rewrites them (review the diff like code)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xrgen import cli

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.iterdir() if (p / "old.json").is_file())
RUNS = {
    "backward": ["--mode", "backward"],
    "forward": ["--mode", "forward"],
    "full": ["--mode", "full"],
    "default": [],
    "api": ["--api"],
}


def run(folder: Path, flags: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = cli.main(["diff", "old.json", "new.json", *flags])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    return f"exit: {code}\n{out}"


@pytest.mark.parametrize("case", CASES)
def test_case(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    folder = HERE / case
    for name, flags in RUNS.items():
        got = run(folder, flags, capsys)
        expected = folder / f"{name}.txt"
        if os.environ.get("XRGEN_UPDATE_DIFF") == "1":
            expected.write_text(got)
        assert got == expected.read_text(), f"{case} {name}"


#: cases whose edit is no change at all
UNCHANGED = {"descriptions-only", "http-header-name-case-changed"}


def test_every_case_reports_a_change_unless_it_is_no_change() -> None:
    for case in CASES:
        lines = (HERE / case / "full.txt").read_text().splitlines()
        assert (len(lines) > 1) == (case not in UNCHANGED), case
