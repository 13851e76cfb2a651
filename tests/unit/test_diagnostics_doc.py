"""docs/diagnostics.md and the generator agree: every code the generator emits has a row with
an example, and every row's code is emitted somewhere in generator/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "diagnostics.md"
CODE = re.compile(r"XRG\d{3}")
ROW = re.compile(r"^\| (XRG(\d{3})(?:-(\d{3}))?) \|(.*)$")
EXAMPLE = re.compile(r"^\S+#\S*: (error|warning|note) (XRG\d{3}): \S.*$")


def _used() -> dict[str, list[str]]:
    """code -> the generator files that mention it."""
    used: dict[str, list[str]] = {}
    for path in sorted((ROOT / "generator").rglob("*.py")):
        for code in sorted(set(CODE.findall(path.read_text()))):
            used.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return used


def _rows() -> list[tuple[str, list[str], list[str]]]:
    """(row label, codes it covers, cells after the code) for every table row."""
    rows = []
    for line in DOC.read_text().splitlines():
        m = ROW.match(line)
        if m:
            first, last = int(m.group(2)), int(m.group(3) or m.group(2))
            assert first <= last, line
            codes = [f"XRG{n:03d}" for n in range(first, last + 1)]
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(4))][:-1]
            rows.append((m.group(1), codes, cells))
    return rows


def _examples(cell: str) -> list[str]:
    """The code spans of an example cell (`x` or `` x `` when x holds a backtick)."""
    return [m.group(2).strip() for m in re.finditer(r"(`+)(.+?)\1", cell)]


def test_the_table_is_found() -> None:
    assert len(_rows()) >= 50
    assert "| code | severity | meaning | example |" in DOC.read_text()


def test_every_code_the_generator_emits_has_a_row() -> None:
    documented = {code for _, codes, _ in _rows() for code in codes}
    missing = {c: files for c, files in _used().items() if c not in documented}
    assert not missing, f"codes without a row in docs/diagnostics.md: {missing}"


def test_every_row_is_a_code_the_generator_emits() -> None:
    used = _used()
    for label, codes, _ in _rows():
        unused = [c for c in codes if c not in used]
        assert not unused, f"docs/diagnostics.md row {label}: {unused} appear nowhere in generator/"


def test_rows_are_sorted_and_unique() -> None:
    codes = [code for _, row, _ in _rows() for code in row]
    assert codes == sorted(codes)
    assert len(codes) == len(set(codes))


def test_every_row_has_a_matching_example() -> None:
    for label, codes, cells in _rows():
        assert len(cells) == 3, f"{label}: expected | code | severity | meaning | example |"
        severity, _, cell = cells
        examples = _examples(cell)
        assert examples, f"{label}: no example (a `file#/pointer: severity {codes[0]}: message` line)"
        for example in examples:
            m = EXAMPLE.match(example)
            assert m, f"{label}: {example!r} is not `file#/pointer: error|warning|note XRGnnn: message`"
            assert m.group(2) in codes, f"{label}: the example is of {m.group(2)}"
            assert m.group(1) in severity, f"{label}: a {m.group(1)} example in a {severity!r} row"
