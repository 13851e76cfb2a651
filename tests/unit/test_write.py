"""The package is written whole: checked first, built beside ``--out/PACKAGE``, swapped in by
renames under a lock; concurrent runs never mix and a killed run leaves the old or the new
package (its leftovers go with the next run)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path, PurePosixPath

import pytest

from xrgen import write as w
from xrgen.write import MANIFEST, ForeignFile, UnsafePath, write

#: writes a file map in which every file says which run wrote it (argv: out, tag, files, size)
WRITER = """
import sys
from pathlib import Path, PurePosixPath
from xrgen.write import write
out, tag, n, size = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
files = {PurePosixPath("p", f"m{i:04d}.py"): f"# {tag}\\n" + "x" * size for i in range(n)}
files[PurePosixPath("p", "sub", "__init__.py")] = f"# {tag}\\n"
print("ready", flush=True)
sys.stdin.readline()
write(out, "p", files)
"""


def tags(pkg: Path) -> set[str]:
    """The run tags found in the package's files (one when it is whole)."""
    found = set()
    for path in pkg.rglob("*.py"):
        found.add(path.read_text().splitlines()[0])
    return found


def start_writer(out: Path, tag: str, n: int = 300, size: int = 2000) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(out), tag, str(n), str(size)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def go(*procs: subprocess.Popen[str]) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.flush()


@pytest.mark.slow
def test_concurrent_runs_never_mix(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for trial in range(20):
        a, b = start_writer(out, f"A{trial}"), start_writer(out, f"B{trial}")
        go(a, b)
        assert a.wait(60) == 0 and b.wait(60) == 0
        found = tags(out / "p")
        assert found in ({f"# A{trial}"}, {f"# B{trial}"}), (trial, found)
        assert len(list((out / "p").glob("*.py"))) == 300
    assert sorted(p.name for p in out.iterdir()) == ["p"]  # no lock file left behind


#: enters the lock of out/p ``rounds`` times and logs "in"/"out" with its pid (argv: out, rounds)
LOCKER = """
import os, sys, time
from pathlib import Path
from xrgen.write import _locked
out, rounds = Path(sys.argv[1]), int(sys.argv[2])
log = os.open(out / "log", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
print("ready", flush=True)
sys.stdin.readline()
for _ in range(rounds):
    with _locked(out, "p"):
        os.write(log, f"in {os.getpid()}\\n".encode())
        time.sleep(0.001)
        os.write(log, f"out {os.getpid()}\\n".encode())
"""


@pytest.mark.slow
def test_the_lock_file_is_removed_and_runs_still_take_turns(tmp_path: Path) -> None:
    """The holder removes the lock file before it releases the lock; runs that waited on the
    removed file start over with the path's current one, so no two are ever inside together."""
    out = tmp_path / "out"
    out.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", LOCKER, str(out), "60"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go(*procs)
    assert all(proc.wait(120) == 0 for proc in procs)
    lines = (out / "log").read_text().splitlines()
    assert len(lines) == 4 * 60 * 2
    for enter, leave in zip(lines[::2], lines[1::2], strict=True):
        assert enter.startswith("in ") and leave == "out " + enter[3:], (enter, leave)
    assert sorted(p.name for p in out.iterdir()) == ["log"]


@pytest.mark.slow
def test_killed_run_leaves_old_or_new_and_next_run_cleans_up(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = {PurePosixPath("p", f"m{i:04d}.py"): "# old\n" for i in range(2000)}
    old[PurePosixPath("p", "sub", "__init__.py")] = "# old\n"
    write(out, "p", old)
    outcomes = set()
    for delay in (0.05, 0.1, 0.2, 0.3, 0.5, 0.8):
        proc = start_writer(out, "new", n=2000, size=20_000)
        go(proc)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        found = tags(out / "p")
        assert found in ({"# old"}, {"# new"}), (delay, found)
        assert len(list((out / "p").glob("*.py"))) == 2000
        outcomes.add(next(iter(found)))
        if found == {"# new"}:
            write(out, "p", old)  # start the next trial from the old package
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".p.xrgen-new-")]
    write(out, "p", {**old, PurePosixPath("p", "m0000.py"): "# old 2\n"})
    assert sorted(p.name for p in out.iterdir()) == ["p"]  # no lock file left behind
    assert "# old" in outcomes or leftovers  # at least one kill landed mid-write


def test_fallback_swap_and_its_recovery(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without RENAME_EXCHANGE the swap is two renames; a run killed between them leaves the
    old package in a temporary folder, which the next run puts back before anything else."""
    monkeypatch.setattr(w, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    write(out, "p", {PurePosixPath("p/a.py"): "a = 1\n"})
    write(out, "p", {PurePosixPath("p/a.py"): "a = 2\n"})
    assert (out / "p" / "a.py").read_text() == "a = 2\n"
    os.rename(out / "p", out / ".p.xrgen-old-x")  # killed between the renames
    w._remove_leftovers(out, "p")
    assert (out / "p" / "a.py").read_text() == "a = 2\n"


def test_exchange_is_used_on_linux(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux") or w._renameat2() is None:
        pytest.skip("renameat2 is Linux-only")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("a")
    (tmp_path / "b").mkdir()
    assert w._exchange(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "b" / "x").read_text() == "a" and not (tmp_path / "a" / "x").exists()


def test_unsafe_path_refused_before_any_write(tmp_path: Path) -> None:
    files = {
        PurePosixPath("p/a.py"): "a = 1\n",
        PurePosixPath("p/../../escape.py"): "x",
    }
    with pytest.raises(UnsafePath):
        write(tmp_path / "out", "p", files)
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.py").exists()


def test_unchanged_files_keep_their_inode_and_user_files_stay(tmp_path: Path) -> None:
    files = {PurePosixPath("p/a.py"): "a = 1\n", PurePosixPath("p/b.py"): "b = 1\n"}
    write(tmp_path, "p", files)
    before = (tmp_path / "p" / "a.py").stat().st_ino
    (tmp_path / "p" / "notes.txt").write_text("mine")
    changed = write(tmp_path, "p", {**files, PurePosixPath("p/b.py"): "b = 2\n"})
    assert changed == [PurePosixPath("p/b.py")]
    assert (tmp_path / "p" / "a.py").stat().st_ino == before
    assert (tmp_path / "p" / "notes.txt").read_text() == "mine"
    assert write(tmp_path, "p", {**files, PurePosixPath("p/b.py"): "b = 2\n"}) == []
    # a file the previous run generated and this one does not is removed
    assert write(tmp_path, "p", {PurePosixPath("p/a.py"): "a = 1\n"}) == [
        PurePosixPath(f"p/{MANIFEST}"),
        PurePosixPath("p/b.py"),
    ]
    assert not (tmp_path / "p" / "b.py").exists()
    assert json.loads((tmp_path / "p" / MANIFEST).read_text()) == ["p/a.py"]


def test_pyproject_not_written_by_xrgen_is_never_replaced(tmp_path: Path) -> None:
    mine = '[project]\nname = "mine"\n'
    (tmp_path / "pyproject.toml").write_text(mine)
    files = {
        PurePosixPath("p/a.py"): "a = 1\n",
        PurePosixPath("pyproject.toml"): "# Generated by xrgen 0 from c.json. DO NOT EDIT.\n",
    }
    with pytest.raises(ForeignFile, match="it was not written by xrgen"):
        write(tmp_path, "p", files)
    assert (tmp_path / "pyproject.toml").read_text() == mine
    assert not (tmp_path / "p").exists()
    (tmp_path / "pyproject.toml").write_text("# Generated by xrgen 0 from old.json. DO NOT EDIT.\n")
    write(tmp_path, "p", files)
    assert (tmp_path / "pyproject.toml").read_text() == files[PurePosixPath("pyproject.toml")]


def test_user_symlinks_stay_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    files = {PurePosixPath("p/a.py"): "a = 1\n"}
    write(tmp_path / "o", "p", files)
    (tmp_path / "o" / "p" / "link.txt").symlink_to(outside)
    write(tmp_path / "o", "p", {PurePosixPath("p/a.py"): "a = 2\n"})
    assert (tmp_path / "o" / "p" / "link.txt").is_symlink()
    assert outside.read_text() == "secret"
    (tmp_path / "o" / "p" / "a.py").unlink()
    (tmp_path / "o" / "p" / "a.py").symlink_to(outside)  # a generated file replaced by a link
    with pytest.raises(UnsafePath):
        write(tmp_path / "o", "p", {PurePosixPath("p/a.py"): "a = 3\n"})
    assert outside.read_text() == "secret"
