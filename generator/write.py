"""Write the file map under ``--out``: atomic per file, unchanged files untouched, files of an
earlier run that are no longer generated removed (via a manifest), nothing outside ``--out``
ever touched. ``check`` compares instead of writing and returns a unified diff."""

from __future__ import annotations

import difflib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Mapping
from operator import methodcaller
from pathlib import Path, PurePosixPath
from typing import IO

MANIFEST = ".xrgen-manifest.json"


class UnsafePath(ValueError):
    pass


def _target(out: Path, rel: PurePosixPath) -> Path:
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise UnsafePath(f"refusing to write outside --out: {rel}")
    path = out.joinpath(*rel.parts)
    if os.path.commonpath([out.resolve(), path.resolve()]) != str(out.resolve()):
        raise UnsafePath(f"refusing to write outside --out: {rel}")
    return path


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def _manifest(out: Path, package: str) -> list[PurePosixPath]:
    text = _read(out / package / MANIFEST)
    try:
        names = json.loads(text) if text else []
    except json.JSONDecodeError:
        return []
    return [PurePosixPath(n) for n in names if isinstance(n, str)]


def _manifest_text(files: Mapping[PurePosixPath, str]) -> str:
    names = sorted(str(p) for p in files)
    return json.dumps(names, indent=1) + "\n"


def stale(out: Path, package: str, files: Mapping[PurePosixPath, str]) -> list[PurePosixPath]:
    """Files an earlier run generated that this run does not."""
    return [p for p in _manifest(out, package) if p not in files and p.parts[:1] == (package,)]


def _umask() -> int:
    """The process umask, read without changing it where the OS says it (Linux), else by
    setting it for an instant: to 0o077, so that a file another thread creates meanwhile is
    at worst more private than it should be, never more open."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def replace_atomically(
    path: Path, write: Callable[[IO[bytes]], object], *, prefix: str, mode: int | None = None
) -> None:
    """Write a new ``path`` through ``write`` (a binary file) and move it into place in one
    step: readers see the old file or the new one, never a part. The temporary file sits
    beside ``path`` (``prefix`` + random) and is removed when anything fails. ``mode``: the
    permission bits; without it the file stays private (mkstemp's 0o600), as caches should."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _mode(path: Path, default: int) -> int:
    """The permission bits of the file ``path`` replaces (a user's chmod survives), else
    ``default``."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return default


def write(out: Path, package: str, files: Mapping[PurePosixPath, str]) -> list[PurePosixPath]:
    """Write ``files`` (paths relative to ``out``); return the paths that changed."""
    out.mkdir(parents=True, exist_ok=True)
    # what open() gives a new file; mkstemp makes 0o600 and os.replace keeps it, which left the
    # package readable by its owner only (generated as root in an image build, imported by the
    # service's user: PermissionError)
    new_mode = 0o666 & ~_umask()
    obsolete = stale(out, package, files)  # from the previous manifest, before it is replaced
    all_files = dict(files)
    all_files[PurePosixPath(package, MANIFEST)] = _manifest_text(files)
    changed = []
    for rel, text in sorted(all_files.items()):
        path = _target(out, rel)
        if _read(path) == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(
            path,
            methodcaller("write", text.encode("utf-8")),
            prefix="." + path.name + ".",
            mode=_mode(path, new_mode),
        )
        changed.append(rel)
    for rel in obsolete:
        path = _target(out, rel)
        if path.is_file():
            path.unlink()
            changed.append(rel)
    return changed


def check(out: Path, package: str, files: Mapping[PurePosixPath, str]) -> str:
    """Unified diff of what ``write`` would change ('' when nothing would)."""
    chunks: list[str] = []
    for rel, text in sorted(files.items()):
        old = _read(_target(out, rel))
        if old == text:
            continue
        chunks.extend(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"a/{rel}" if old is not None else "/dev/null",
                tofile=f"b/{rel}",
            )
        )
    for rel in stale(out, package, files):
        old = _read(_target(out, rel)) or ""
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True), [], fromfile=f"a/{rel}", tofile="/dev/null"
            )
        )
    return "".join(chunks)
