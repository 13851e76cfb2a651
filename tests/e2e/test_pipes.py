"""Unix manners: every command that prints exits quietly when its reader has closed the pipe
(``xrgen inspect ... | head``): no diagnostic, and the exit code the command has with a reader
that reads everything (a ``--check`` that finds differences still exits 1).

Each command runs twice, as a real process: once with stdout read to the end, once with stdout
(or stderr) a pipe whose reading end is already closed, so every write fails with EPIPE, whether
in the middle of the output (more than a buffer's worth) or in the last flush."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every case runs the CLI twice as a process

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "catalogs"
ACME = CATALOGS / "acme" / "catalog.json"
DIFF = ROOT / "tests" / "diff" / "message-removed"


def xrgen(args: list[str], cwd: Path, closed: str | None = None) -> tuple[int, str, str]:
    """Run ``python -m xrgen ARGS``; ``closed``: "stdout" or "stderr", a pipe nobody reads."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader left before the first byte
    streams: dict[str, int] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if closed is not None:
        streams[closed] = write_end
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "xrgen", *args],
            cwd=cwd,
            text=True,
            timeout=300,
            env={**os.environ, "XRGEN_CACHE_DIR": str(cwd / ".cache")},
            **streams,  # type: ignore[arg-type]
        )
    finally:
        os.close(write_end)
    return proc.returncode, proc.stdout or "", proc.stderr or ""


def big_catalog(path: Path, messages: int = 400) -> Path:
    """A catalog whose ``inspect`` output is far larger than a pipe's buffer."""
    path.write_text(
        json.dumps(
            {
                "messagegroups": {
                    "big": {
                        "envelope": "CloudEvents/1.0",
                        "messages": {
                            f"big.M{i}": {
                                "messageid": f"big.M{i}",
                                "envelope": "CloudEvents/1.0",
                                "envelopemetadata": {"type": {"value": f"big.M{i}"}},
                                "protocol": "KAFKA",
                                "protocoloptions": {"topic": f"topic-{i}"},
                            }
                            for i in range(messages)
                        },
                    }
                }
            }
        )
    )
    return path


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pipes")
    big_catalog(root / "big.json")
    return root


#: name -> (arguments, the stream the reader closes); every command that writes to stdout, and
#: the ones whose output is on stderr
COMMANDS: dict[str, tuple[list[str], str]] = {
    "help": (["--help"], "stdout"),
    "generate --help": (["generate", "--help"], "stdout"),
    "version": (["--version"], "stdout"),
    "inspect": (["inspect", str(ACME)], "stdout"),
    "inspect big": (["inspect", "big.json"], "stdout"),
    "inspect --json": (["inspect", str(ACME), "--json"], "stdout"),
    "inspect --json big": (["inspect", "big.json", "--json"], "stdout"),
    "generate --check": (["generate", str(ACME), "--out", "stale", "--package", "acme", "--check", "--quiet"], "stdout"),
    "diff": (["diff", str(DIFF / "old.json"), str(DIFF / "new.json")], "stdout"),
    "diff --json": (["diff", str(DIFF / "old.json"), str(DIFF / "new.json"), "--json"], "stdout"),
    "diff summary": (["diff", str(DIFF / "old.json"), str(DIFF / "new.json")], "stderr"),
    "validate": (["validate", str(CATALOGS / "hostile" / "catalog.json")], "stderr"),
    "validate bad": (["validate", str(CATALOGS / "cycle" / "catalog.json")], "stderr"),
    "generate diagnostics": (
        ["generate", str(CATALOGS / "resolution" / "catalog.json"), "--out", "gen", "--package", "w", "--quiet"],
        "stderr",
    ),
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_closed_pipe_ends_the_output_quietly(name: str, work: Path) -> None:
    args, closed = COMMANDS[name]
    code, out, err = xrgen(args, work)
    printed = out if closed == "stdout" else err
    assert printed, f"{name}: the command prints nothing on {closed}, so the test shows nothing"
    got_code, got_out, got_err = xrgen(args, work, closed=closed)
    assert got_code == code, (name, got_err)
    if closed == "stdout":
        assert got_err == err, name  # the same diagnostics, and nothing about the pipe
    else:
        assert got_out == out, name
    if name == "generate diagnostics":
        assert (work / "gen" / "w" / "__init__.py").is_file()  # written all the same


def test_head_reads_one_line_and_the_pipeline_succeeds(work: Path) -> None:
    """As a user types it, with pipefail: the whole pipeline exits 0 and stderr stays empty."""
    command = f"{sys.executable} -m xrgen inspect big.json --json | head -n 1"
    for _ in range(3):
        proc = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "{\n", "")
