"""The README's quick start, followed as written: its catalog, its command, its Python snippet.

The test reads the blocks out of README.md, so the quick start cannot drift from what xrgen does.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", README.read_text(), flags=re.M | re.S)


def _one(lang: str, marker: str) -> str:
    found = [b for b in _blocks(lang) if marker in b]
    assert len(found) == 1, f"README.md: expected one ```{lang} block with {marker!r}"
    return found[0]


def test_quick_start_runs_as_written(tmp_path: Path) -> None:
    catalog = json.loads(_one("json", '"messagegroups"'))
    (tmp_path / "orders.json").write_text(json.dumps(catalog, indent=2))

    command = shlex.split(_one("sh", "xrgen generate orders.json").strip())
    assert command[0] == "xrgen"
    gen = subprocess.run(
        [sys.executable, "-m", "xrgen", *command[1:], "--no-cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert gen.returncode == 0, gen.stderr
    assert gen.stderr == ""  # the README's catalog draws no warning
    assert (tmp_path / "shop" / "producer.py").is_file()

    (tmp_path / "quickstart.py").write_text(_one("python", "import shop"))
    run = subprocess.run(
        [sys.executable, "quickstart.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr

    console = _one("console", "python quickstart.py").splitlines()
    assert console[0] == "$ python quickstart.py"
    assert run.stdout.splitlines() == console[1:]


def test_validate_and_inspect_commands_work(tmp_path: Path) -> None:
    (tmp_path / "orders.json").write_text(_one("json", '"messagegroups"'))
    text = README.read_text()
    for line in ("xrgen validate orders.json", "xrgen inspect orders.json --json"):
        assert f"`{line}`" in text
        done = subprocess.run(
            [sys.executable, "-m", "xrgen", *shlex.split(line)[1:]],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, done.stderr
    inspected = json.loads(done.stdout)
    assert "shop.OrderPlaced" in inspected["messagegroups"]["shop.orders"]["messages"]


def test_readme_links_into_docs_resolve_or_are_announced() -> None:
    text = README.read_text()
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert links, "README.md links into docs/"
    index = (ROOT / "docs" / "README.md").read_text()
    for link in links:
        name = link.removeprefix("docs/")
        # every guide the README names is listed in the docs index too
        assert name == "README.md" or f"({name})" in index, f"docs/README.md does not list {name}"


def test_the_cli_pages_inspect_example_is_the_quick_start_catalogs(tmp_path: Path) -> None:
    """docs/cli.md shows `xrgen inspect orders.json` on the README's catalog: as it prints."""
    (tmp_path / "orders.json").write_text(_one("json", '"messagegroups"'))
    cli = (ROOT / "docs" / "cli.md").read_text()
    (example,) = [b for b in re.findall(r"^```console\n(.*?)^```$", cli, flags=re.M | re.S) if "xrgen inspect" in b]
    command, *expected = example.splitlines()
    assert command == "$ xrgen inspect orders.json"
    done = subprocess.run(
        [sys.executable, "-m", "xrgen", "inspect", "orders.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == expected
