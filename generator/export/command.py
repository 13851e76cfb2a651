"""``xrgen export`` on the command line: its arguments, the run, and the output file
(``cli.py`` parses the common flags and prints; nothing here prints)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostics

if TYPE_CHECKING:
    from ..limits import Limits

TARGETS = ("asyncapi",)
FORMATS = ("yaml", "json")


def add_arguments(e: argparse.ArgumentParser) -> None:
    """The export flags (the catalogs and the common flags come from ``cli.py``)."""
    e.add_argument(
        "--endpoint",
        action="append",
        default=[],
        metavar="ID",
        help="only this endpoint and its messages (repeatable; default: every endpoint, and "
        "the messages no endpoint carries)",
    )
    e.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the document to FILE (default: standard output)",
    )
    e.add_argument(
        "--format",
        choices=FORMATS,
        help="yaml or json (default: json for an --output ending in .json, else yaml)",
    )


@dataclass(slots=True)
class Outcome:
    #: the exit code; None: the diagnostics' (1 for catalog errors, 2 for unreadable input)
    code: int | None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: the document text for standard output (None: nothing to print)
    text: str | None = None
    #: a usage or I/O error (``xrgen: error: ...``, exit 2)
    problem: str | None = None
    error: BaseException | None = None


def run(args: argparse.Namespace, catalogs: list[str], strict: bool, limits: Limits) -> Outcome:
    """The export, answered from the run cache (``runcache``, as ``validate``) while nothing
    it depends on changed: the catalogs' bytes, the flags, xrgen's code."""
    from .. import runcache

    output: str | None = args.output
    fmt = args.format or ("json" if output and output.lower().endswith(".json") else "yaml")
    root = runcache.cache_root()
    inputs = ("export", args.target, tuple(args.endpoint), strict, fmt, repr(limits))
    key = runcache.run_key(catalogs, limits.max_document_bytes, inputs)
    cached = runcache.load_run(root, key)
    if cached is not None and _DOCUMENT in cached[0]:
        text, diags = cached[0][_DOCUMENT], cached[1]
    else:
        from .asyncapi import UnknownEndpoint, export

        try:
            result = export(
                catalogs, strict=strict, limits=limits, endpoints=args.endpoint, fmt=fmt
            )
        except UnknownEndpoint as e:
            return Outcome(2, problem=str(e))
        diags = result.diagnostics
        if result.document is None:
            return Outcome(None, diags, error=result.error)
        text = result.text
        runcache.save_run(root, key, {_DOCUMENT: text}, diags)
    if output is None or output == "-":
        return Outcome(0, diags, text=text)
    try:
        write_atomic(Path(output), text)
    except OSError as e:
        return Outcome(2, diags, problem=f"cannot write {output}: {e}")
    return Outcome(0, diags)


#: the run cache's name for the document
_DOCUMENT = PurePosixPath("document")


def write_atomic(path: Path, text: str) -> None:
    """``text`` to ``path`` whole or not at all (a temporary file beside it, renamed); an
    unchanged file is left untouched; a replaced file keeps its mode, a new one gets the mode
    ``open()`` would give it."""
    from ..write import _mode, _umask, replace_atomically

    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    mode = _mode(path, 0o666 & ~_umask())
    replace_atomically(path, lambda f: f.write(data), prefix=f".{path.name}.", mode=mode)
