"""``xrgen diff`` on the command line: arguments, the runs, and the text to print (``cli.py``
prints it; nothing here does)."""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .report import DiffResult, Report

MODE_CHOICES = (
    "backward",
    "forward",
    "full",
    "none",
    "backward_transitive",
    "forward_transitive",
    "full_transitive",
)


@dataclass(slots=True)
class Outcome:
    code: int
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)


class DiffUsageError(Exception):
    pass


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser(
        "diff",
        help="check that a catalog change is compatible",
        description=(
            "Compare catalog OLD with catalog NEW (or the versions of each schema of one"
            " catalog, or the working tree with a git revision). Exit 0 when compatible in"
            " the mode, 1 when not, 2 on usage errors or unreadable input."
        ),
    )
    d.add_argument(
        "catalogs",
        nargs="*",
        metavar="CATALOG",
        help="OLD NEW; one CATALOG with --versions or --against",
    )
    d.add_argument(
        "--mode",
        choices=MODE_CHOICES,
        metavar="MODE",
        help="backward: NEW consumers read OLD producers' events; forward: the reverse; full: both;"
        " none; _transitive variants matter for --versions"
        " (default: the catalog's declared compatibility, else backward)",
    )
    d.add_argument("--json", action="store_true", help="print the changes as a JSON list")
    d.add_argument(
        "--api", action="store_true", help="changes to the generated Python API are errors"
    )
    d.add_argument(
        "--versions", action="store_true", help="check the versions of each schema along ancestor"
    )
    d.add_argument(
        "--against",
        metavar="REV",
        help="compare with the catalogs as committed at git revision REV",
    )
    d.add_argument("--config", help="TOML file with [tool.xrgen] settings (catalogs for --against)")


def run(args: argparse.Namespace, configured: list[str]) -> Outcome:
    """``configured``: the ``[tool.xrgen]`` catalogs (used by ``--against`` and ``--versions``
    when no CATALOG is given)."""
    from .catalogs import diff_catalogs

    cats: list[str] = list(args.catalogs)
    if args.versions and args.against:
        raise DiffUsageError("--versions and --against are exclusive")
    if args.versions:
        from .versions import diff_versions

        sources = cats or configured
        if not sources:
            raise DiffUsageError("--versions needs a CATALOG")
        return _outcome(diff_versions(sources, mode=args.mode), args)
    if args.against:
        from .git import GitError, materialize

        sources = cats or configured
        if not sources:
            raise DiffUsageError("--against needs a CATALOG (argument or [tool.xrgen] catalogs)")
        with tempfile.TemporaryDirectory(prefix="xrgen-against-") as tmp:
            try:
                old = [
                    p for s in sources if (p := materialize(args.against, s, Path(tmp))) is not None
                ]
            except GitError as e:
                raise DiffUsageError(f"--against {args.against}: {e}") from e
            result = diff_catalogs(old, sources, mode=args.mode, api_errors=args.api)
            out = _outcome(result, args)
            # name the committed files as git does (REV:path), not by the temporary folder
            prefix, rev = str(Path(tmp).resolve()) + "/", f"{args.against}:"
            out.stdout = [line.replace(prefix, rev) for line in out.stdout]
            out.stderr = [line.replace(prefix, rev) for line in out.stderr]
            return out
    if len(cats) != 2:
        raise DiffUsageError("diff needs OLD and NEW (or --versions CATALOG, or --against REV)")
    return _outcome(diff_catalogs([cats[0]], [cats[1]], mode=args.mode, api_errors=args.api), args)


def _outcome(result: DiffResult, args: argparse.Namespace) -> Outcome:
    if result.diagnostics.has_errors:
        return Outcome(2, [], [str(d) for d in result.diagnostics.sorted()])
    out = Outcome(0 if result.compatible else 1)
    if args.json:
        out.stdout.append(
            json.dumps([r.as_json() for r in result.reports], indent=2, ensure_ascii=False)
        )
    else:
        out.stdout.extend(r.line() for r in result.reports)
    out.stderr.append(_summary(result.reports, result.mode, getattr(args, "api", False)))
    return out


def _count(n: int, what: str) -> str:
    return f"{n} {what} change{'' if n == 1 else 's'}"


def _summary(reports: list[Report], mode: str, api_errors: bool) -> str:
    """Three counts that add up to the changes: breaking wire changes (in each message's
    mode), generated-API changes (errors with ``--api``, else warnings) and compatible ones."""
    wire = sum(r.wire for r in reports)
    api = sum(r.change.api and not r.wire for r in reports)
    compatible = len(reports) - wire - api
    modes = sorted({r.mode for r in reports} or {mode})
    if any(r.breaking for r in reports):
        verdict = "NOT compatible"
    elif api:
        verdict = "compatible on the wire, generated API changed"
    else:
        verdict = "compatible"
    tail = ""
    if api:
        tail = "; --api: API changes are errors" if api_errors else "; API changes are warnings"
    return (
        f"xrgen diff: {verdict} ({_count(wire, 'breaking wire')},"
        f" {_count(api, 'generated-API')}, {_count(compatible, 'compatible')};"
        f" mode {', '.join(modes)}{tail})"
    )
