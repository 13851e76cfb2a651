"""``xrgen diff`` case folders: ``old.json`` and ``new.json``, and per mode the expected
output: ``backward.txt``, ``forward.txt``, ``full.txt`` (``--mode``), ``default.txt`` (the
declared mode, else backward) and ``api.txt`` (``--api``), each ``exit: N`` and the change
lines. ``XRGEN_UPDATE_DIFF=1`` rewrites them (review the diff like code). The summary on stderr
is checked against the change lines of every run: breaking wire changes (errors outside the
generated-API codes), generated-API changes (XRG590-XRG594, errors with ``--api``) and compatible
changes (the other warnings)."""

from __future__ import annotations

import os
import re
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


#: the generated-API rules (docs/diff.md, "Generated Python API")
API_CODES = {"XRG590", "XRG591", "XRG592", "XRG593", "XRG594"}
LINE = re.compile(r"#[^ ]*: (error|warning) (XRG\d{3}): ")


def run(folder: Path, flags: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        code = cli.main(["diff", "old.json", "new.json", *flags])
    finally:
        os.chdir(cwd)
    got = capsys.readouterr()
    return f"exit: {code}\n{got.out}", got.err


def changes(n: int, what: str) -> str:
    return f"{n} {what} change{'' if n == 1 else 's'}"


def expected_summary(output: str, api_errors: bool) -> tuple[str, str]:
    """How the summary must start and end for ``exit: N`` and these change lines."""
    code, *lines = output.splitlines()
    wire = api = compatible = 0
    for line in lines:
        match = LINE.search(line)
        assert match, line
        severity, rule = match.groups()
        if rule in API_CODES:
            api += 1
        elif severity == "error":
            wire += 1
        else:
            compatible += 1
    if code == "exit: 1":
        verdict = "NOT compatible"
    elif api:
        verdict = "compatible on the wire, generated API changed"
    else:
        verdict = "compatible"
    counts = f"{changes(wire, 'breaking wire')}, {changes(api, 'generated-API')}, {changes(compatible, 'compatible')}"
    tail = ")"
    if api:
        tail = "; --api: API changes are errors)" if api_errors else "; API changes are warnings)"
    return f"xrgen diff: {verdict} ({counts}; mode ", tail


@pytest.mark.parametrize("case", CASES)
def test_case(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    folder = HERE / case
    for name, flags in RUNS.items():
        got, err = run(folder, flags, capsys)
        expected = folder / f"{name}.txt"
        if os.environ.get("XRGEN_UPDATE_DIFF") == "1":
            expected.write_text(got)
        assert got == expected.read_text(), f"{case} {name}"
        head, tail = expected_summary(got, api_errors=name == "api")
        summary = err.splitlines()[-1]
        assert summary.startswith(head) and summary.endswith(tail), (case, name, summary)


#: cases whose edit is no change at all
UNCHANGED = {"descriptions-only", "http-header-name-case-changed"}


def test_every_case_reports_a_change_unless_it_is_no_change() -> None:
    for case in CASES:
        lines = (HERE / case / "full.txt").read_text().splitlines()
        assert (len(lines) > 1) == (case not in UNCHANGED), case
