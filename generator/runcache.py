"""The run cache of the command line: a run whose inputs are unchanged (catalog bytes, options,
limits, the xrgen code and templates, black's version, the installed runtime) returns the
previous result without doing any work.

One pickle file per run under ``<cache root>/runs``, named by the hash of those inputs; only
results without errors are kept, and only the most recently used runs (``RUNS_KEPT``,
``RUNS_BUDGET``). Nothing here imports the pipeline: a hit costs hashing the inputs and reading
one file.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ._version import __version__
from .diagnostics import Diagnostic, Diagnostics
from .write import replace_atomically

_CODE_ROOTS = (Path(__file__).resolve().parent,)


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The folder of the formatting and run caches: ``cache_dir``, else ``$XRGEN_CACHE_DIR``,
    else ``~/.cache/xrgen``."""
    return Path(cache_dir or os.environ.get("XRGEN_CACHE_DIR") or Path.home() / ".cache" / "xrgen")


def black_version() -> str:
    """The installed black's version, from its metadata (black itself is not imported)."""
    import importlib.metadata

    return importlib.metadata.version("black")


def _fingerprint_tree(h: Any, root: Path) -> None:
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())


def run_key(sources: Sequence[str], max_bytes: int, inputs: object) -> str | None:
    """Hash of everything a run depends on: ``inputs`` (its options, limits, the runtime
    scan, ...), the code and templates, and the bytes of every source; ``None`` (no caching) for
    URL sources, devices, pipes, unreadable files and documents past ``max_bytes``."""
    from .render import TEMPLATES

    h = hashlib.sha256()
    h.update(repr((__version__, black_version(), inputs)).encode())
    for root in (*_CODE_ROOTS, TEMPLATES):
        _fingerprint_tree(h, root)
    for src in sources:
        if "://" in src:
            return None
        path = Path(src)
        h.update(b"\0" + src.encode() + b"\0")
        try:
            files = (
                sorted(p for p in path.rglob("*") if p.is_file())
                if path.is_dir()
                else [path]
            )
            for p in files:
                st = p.stat()
                if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
                    return None  # a device, a pipe or a document past the size cap: load reports it
                h.update(str(p).encode() + b"\0" + p.read_bytes())
        except OSError:
            return None  # the pipeline reports the I/O error
    return str(h.hexdigest())


#: the run cache keeps the most recently used runs: at most this many ...
RUNS_KEPT = 16
#: ... and, beyond the newest one, at most this many bytes (a run of an 11,000-message
#: catalog holds its whole package, about 25 MB)
RUNS_BUDGET = 256 * 2**20


def load_run(
    cache_dir: Path, key: str | None
) -> tuple[dict[PurePosixPath, str], Diagnostics] | None:
    """The files and diagnostics of the run ``key``, or ``None``."""
    if key is None:
        return None
    path = cache_dir / "runs" / key
    try:
        with open(path, "rb") as f:
            files, items = pickle.load(f)
        found = files, Diagnostics(Diagnostic(*d) for d in items)
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
        return None
    try:
        os.utime(path)  # recently used: kept by _prune_runs
    except OSError:
        pass  # a read-only cache still serves its runs
    return found


def _prune_runs(runs: Path) -> None:
    """Remove all but the most recently used runs (``RUNS_KEPT``, ``RUNS_BUDGET``).

    Without it every distinct catalog content (each edit, with a pre-commit hook) left a
    copy of its whole package behind. Temporary files of writes that never finished (a
    killed process) go after an hour. Another process may be reading or writing here too: a
    file that is gone already is skipped, and a reader that loses one sees a cache miss.
    """
    entries: list[tuple[float, int, Path]] = []
    now = time.time()
    for path in runs.iterdir():
        try:
            st = path.stat()
        except OSError:
            continue
        if path.name.startswith("."):
            if now - st.st_mtime > 3600:
                path.unlink(missing_ok=True)
            continue
        entries.append((st.st_mtime, st.st_size, path))
    entries.sort(reverse=True)  # newest first
    total = 0
    for i, (_, size, path) in enumerate(entries):
        total += size
        if i >= RUNS_KEPT or (i > 0 and total > RUNS_BUDGET):
            path.unlink(missing_ok=True)


def save_run(
    cache_dir: Path, key: str | None, files: dict[PurePosixPath, str], diags: Diagnostics
) -> None:
    """Keep a run without errors under ``key`` (nothing for ``None`` or errors)."""
    if key is None or diags.has_errors:
        return
    try:
        runs = cache_dir / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        items = [(d.severity, d.code, d.file, d.pointer, d.message) for d in diags]
        replace_atomically(
            runs / key,
            lambda f: pickle.dump((files, items), f, protocol=pickle.HIGHEST_PROTOCOL),
            prefix=".run-",
        )
        _prune_runs(runs)
    except OSError:
        pass
