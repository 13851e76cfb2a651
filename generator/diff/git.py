"""``--against REV``: the catalog as committed at a git revision, materialized in a temporary
folder with its path inside the repository kept (a file through ``git show REV:path``, a
split-file folder through ``git archive REV path``). A catalog that does not exist at REV is
new: there is nothing it must stay compatible with."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path


class GitError(Exception):
    """REV or the repository cannot be read (a usage error)."""


def _git(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as e:
        raise GitError(f"cannot run git: {e}") from e
    if done.returncode:
        raise GitError(done.stderr.decode(errors="replace").strip() or f"git {args[0]} failed")
    return done.stdout


def materialize(rev: str, source: str, into: Path) -> str | None:
    """Write ``source`` (a file or folder of the working tree) as committed at ``rev`` under
    ``into``; return the path to read, or ``None`` when it does not exist at ``rev``."""
    if "://" in source:
        raise GitError(f"--against needs catalogs in a git repository, not URLs ({source})")
    path = Path(source).resolve()
    anchor = path if path.is_dir() else path.parent
    while not anchor.exists():
        anchor = anchor.parent
    top = Path(_git(anchor, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    try:
        _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except GitError:
        raise GitError(f"unknown revision {rev!r} in {top}") from None
    rel = path.relative_to(top).as_posix()
    kind = subprocess.run(
        ["git", "cat-file", "-t", f"{rev}:{rel}"],
        cwd=top,
        capture_output=True,
        text=True,
        check=False,
    )
    if kind.returncode:
        return None
    target = into / rel
    if kind.stdout.strip() == "blob":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git(top, "show", f"{rev}:{rel}"))
        return str(target)
    data = _git(top, "archive", "--format=tar", rev, "--", rel)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            name = os.path.normpath(member.name)
            if member.isfile() and not name.startswith(("..", "/")):
                out = into / name
                out.parent.mkdir(parents=True, exist_ok=True)
                f = tar.extractfile(member)
                if f is not None:
                    out.write_bytes(f.read())
    return str(target)
