"""docs/cli.md and ``--help`` agree: every flag of every command is in its section of the page,
and every flag the page (or the README) names exists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
FLAG = re.compile(r"(?<![\w-])(--?[a-z][a-z0-9-]*)")


def _help(*command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "xrgen", *command, "--help"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _help_flags(text: str) -> set[str]:
    """Flags of the options part of argparse's help (not the usage line)."""
    options = text.split("options:", 1)[1]
    return {f for line in options.splitlines() if line.startswith("  -") for f in FLAG.findall(line)}


def _sections() -> dict[str, str]:
    """Page sections by command: '## `xrgen`' -> '', '## `xrgen generate`' -> 'generate'."""
    parts = re.split(r"^## `xrgen ?([a-z]*)`\n", DOC.read_text(), flags=re.M)
    return {parts[i]: parts[i + 1].split("\n## ", 1)[0] for i in range(1, len(parts), 2)}


def _table_flags(section: str) -> set[str]:
    """Flags in the first cell of the section's table rows."""
    cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {f for cell in cells for f in FLAG.findall(cell)}


def _commands() -> list[str]:
    usage = _help().split("\n", 1)[0]
    found = re.search(r"\{([a-z,]+)\}", usage)
    assert found, usage
    return found.group(1).split(",")


def test_every_command_has_a_section_listing_exactly_its_flags() -> None:
    sections = _sections()
    commands = _commands()
    assert set(sections) == {"", *commands}, f"docs/cli.md sections {sorted(sections)}"
    for command in ["", *commands]:
        text = _help(*([command] if command else []))
        wanted, documented = _help_flags(text), _table_flags(sections[command])
        name = f"xrgen {command}".strip()
        assert wanted <= documented, f"docs/cli.md `{name}` lacks {sorted(wanted - documented)}:\n{text}"
        assert documented <= wanted, f"docs/cli.md `{name}` lists {sorted(documented - wanted)}, which --help does not have"


@pytest.mark.slow
@pytest.mark.parametrize("page", ["docs/cli.md", "README.md"])
def test_every_flag_the_page_names_exists(page: str) -> None:
    known = {f for c in ["", *_commands()] for f in _help_flags(_help(*([c] if c else [])))}
    # python's own -m, and the commands of other tools (`pre-commit try-repo ...`)
    text = re.sub(r"https?://\S+|python -m|`pre-commit [^`]*`", "", (ROOT / page).read_text())
    named = set(FLAG.findall(text))
    assert named, page
    assert named <= known, f"{page} names flags xrgen does not have: {sorted(named - known)}"


@pytest.mark.parametrize("command", ["generate", "validate"])
def test_no_cache_means_what_the_page_says(command: str) -> None:
    """The --no-cache row of the command's table is the flag's help text."""
    row = next(line for line in _sections()[command].splitlines() if line.startswith("| `--no-cache`"))
    meaning = row.split("|")[2].strip()
    assert meaning in " ".join(_help(command).split()), (command, meaning)
