"""Command line: argument parsing -> api -> exit code. The only module that prints.

Exit codes: 0 success (warnings allowed), 1 catalog errors or ``--check`` differences,
2 usage or I/O errors.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__, api
from .diagnostics import Diagnostics
from .load import is_io_error
from .write import UnsafePath, check, write

_PACKAGE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UsageError(Exception):
    pass


def _settings(path: Path) -> dict[str, Any]:
    """``[tool.xrgen]`` of a pyproject.toml (empty when absent)."""
    if not path.is_file():
        return {}
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"{path}: cannot read [tool.xrgen]: {e}") from e
    section = data.get("tool", {}).get("xrgen", {})
    return section if isinstance(section, dict) else {}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="xrgen", description="Typed Python packages from xRegistry message catalogs."
    )
    p.add_argument("--version", action="version", version=f"xrgen {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "catalogs",
            nargs="*",
            help="catalog files, split-file folders or http(s) URLs (later shadows earlier)",
        )
        sp.add_argument(
            "--strict", action="store_true", default=None, help="treat warnings as errors"
        )
        sp.add_argument(
            "--config", default="pyproject.toml", help="pyproject.toml with [tool.xrgen] settings"
        )

    g = sub.add_parser("generate", help="generate the Python package")
    common(g)
    g.add_argument("--out", help="output folder (the package goes to OUT/PACKAGE)")
    g.add_argument("--package", help="Python package name")
    g.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a diff and exit 1 if anything would change",
    )
    g.add_argument(
        "--no-spark", dest="spark", action="store_false", default=None, help="leave out spark.py"
    )
    g.add_argument(
        "--pyproject",
        action="store_true",
        default=None,
        help="also write OUT/pyproject.toml for the package",
    )
    g.add_argument("--no-cache", action="store_true", help="do not use the formatting cache")
    g.add_argument("--quiet", action="store_true", help="no progress display")
    v = sub.add_parser("validate", help="load, validate and resolve; print diagnostics")
    common(v)
    i = sub.add_parser("inspect", help="print the resolved messages")
    common(i)
    i.add_argument("--json", action="store_true", help="as JSON")
    return p


def _print_diagnostics(diags: Diagnostics) -> None:
    for d in diags.sorted():
        print(d, file=sys.stderr)


def _exit_code(diags: Diagnostics) -> int:
    if any(d.severity == "error" and is_io_error(d.code) for d in diags):
        return 2
    return 1 if diags.has_errors else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = _settings(Path(args.config))
        catalogs = list(args.catalogs) or [str(c) for c in settings.get("catalogs", [])]
        if not catalogs:
            raise UsageError("no catalogs given (arguments or [tool.xrgen] catalogs)")
        strict = bool(args.strict if args.strict is not None else settings.get("strict", False))
        if args.command == "generate":
            return _generate(args, settings, catalogs, strict)
        analysis = api.analyze(catalogs, strict)
        _print_diagnostics(analysis.diagnostics)
        code = _exit_code(analysis.diagnostics)
        if args.command == "inspect" and code != 2:
            doc = api.inspect_document(analysis)
            if args.json:
                print(json.dumps(doc, indent=2, ensure_ascii=False))
            else:
                for gid, g in doc.items():
                    print(f"{gid}  ({g['location']})")
                    for mid, m in g["messages"].items():
                        proto = m.get("protocol") or "-"
                        env = m.get("envelope") or "-"
                        print(f"  {mid}  envelope={env} protocol={proto}  ({m['location']})")
        return code
    except UsageError as e:
        print(f"xrgen: error: {e}", file=sys.stderr)
        return 2


def _generate(
    args: argparse.Namespace, settings: dict[str, Any], catalogs: list[str], strict: bool
) -> int:
    out = args.out or settings.get("out")
    package = args.package or settings.get("package")
    if not out or not package:
        raise UsageError("generate needs --out and --package (or [tool.xrgen] out/package)")
    if not _PACKAGE.match(package):
        raise UsageError(f"--package {package!r} is not a Python identifier")
    spark = args.spark if args.spark is not None else bool(settings.get("spark", True))
    pyproject = bool(
        args.pyproject if args.pyproject is not None else settings.get("pyproject", False)
    )
    from .format import Formatter

    progress = None if args.quiet else _progress()
    result = api.generate(
        catalogs,
        package,
        strict=strict,
        spark=spark,
        pyproject=pyproject,
        formatter=Formatter(use_cache=not args.no_cache),
        progress=progress,
    )
    _print_diagnostics(result.diagnostics)
    code = _exit_code(result.diagnostics)
    if code:
        return code
    try:
        if args.check:
            diff = check(Path(out), package, result.files)
            if diff:
                sys.stdout.write(diff)
                return 1
            return 0
        write(Path(out), package, result.files)
    except UnsafePath as e:
        print(f"xrgen: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"xrgen: error: cannot write {out}: {e}", file=sys.stderr)
        return 2
    return 0


def _progress() -> api.Progress | None:
    """A rich progress bar on a terminal (stderr), for large outputs only; quiet otherwise."""
    if not sys.stderr.isatty():
        return None
    try:
        from rich.console import Console
        from rich.progress import Progress
    except ImportError:
        return None
    state: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        if total < 20:
            return
        if "bar" not in state:
            # stderr: stdout carries --check diffs and inspect output
            bar = Progress(console=Console(file=sys.stderr), transient=True)
            bar.start()
            state["bar"] = bar
            state["task"] = bar.add_task(stage, total=total)
        state["bar"].update(state["task"], completed=done)
        if done >= total:
            state["bar"].stop()

    return update


if __name__ == "__main__":
    sys.exit(main())
