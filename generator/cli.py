"""Command line: argument parsing -> api -> exit code. The only module that prints.

Exit codes: 0 success (warnings allowed), 1 catalog errors or ``--check`` differences,
2 usage or I/O errors. A reader that closes the pipe early (``xrgen inspect ... | head``) ends
the output quietly: the command runs to its end and exits with its own code (``_Pipe``).

Each command imports what its path needs (``--help`` the parser only; a warm ``generate`` the
run cache and the writer, not the pipeline): ``tests/e2e/test_startup.py`` checks it.
"""

from __future__ import annotations

import argparse
import functools
import keyword
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TextIO, cast

from ._version import __version__
from .diagnostics import Diagnostics
from .load.errors import is_io_error
from .options import Options

if TYPE_CHECKING:
    from . import config
    from .api import Progress

_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: modules a generated package imports or sits beside: a package of the same name would
#: shadow them (``--package pydantic``) or be shadowed; and the client libraries of the
#: bindings (:func:`_client_modules`)
DEPENDENCY_MODULES = frozenset(
    {
        "xrgen",
        "xrgen_runtime",
        "generator",
        "pydantic",
        "pydantic_core",
        "typing_extensions",
        "annotated_types",
        "jinja2",
        "markupsafe",
        "yaml",
        "jsonschema",
        "datamodel_code_generator",
        "black",
        "pyspark",
        "fastavro",
        "google",
        "setuptools",
        "pip",
        "pytest",
    }
)


def _client_modules() -> frozenset[str]:
    """The top-level modules of every binding's client library (from its declaration)."""
    from xrgen_runtime.bindings import BINDINGS

    return frozenset(m for b in BINDINGS.values() for m in b.client_modules)


def package_problem(name: str) -> str | None:
    """Why ``name`` cannot be the generated package's name, or ``None`` when it can."""
    if not _PACKAGE.fullmatch(name):
        return "is not a Python identifier (ASCII letters, digits and _, no whitespace)"
    if keyword.iskeyword(name):
        return "is a Python keyword"
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return "is a standard library module; the package would shadow it"
    if name in DEPENDENCY_MODULES or name in _client_modules():
        return "is a module the generated package or xrgen depends on"
    return None


class UsageError(Exception):
    pass


def _positive(kind: type[float] | type[int]) -> Any:
    def parse(text: str) -> float | int:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0 or value != value or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a positive finite number: {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


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
            "--strict",
            action=argparse.BooleanOptionalAction,
            help="treat warnings as errors (default: [tool.xrgen] strict, else no)",
        )
        sp.add_argument(
            "--config",
            help="TOML file with [tool.xrgen] settings (default: ./pyproject.toml if present)",
        )
        sp.add_argument(
            "--fetch-timeout",
            type=_positive(float),
            metavar="SECONDS",
            help="total seconds for fetching one http(s) catalog, follow-up fetches included "
            "(default: [tool.xrgen] fetch-timeout, else 30)",
        )
        sp.add_argument(
            "--max-document-bytes",
            type=_positive(int),
            metavar="BYTES",
            help="largest catalog document (file, index.json or URL answer) "
            "(default: [tool.xrgen] max-document-bytes, else 64 MiB)",
        )
        sp.add_argument(
            "--debug",
            action="store_true",
            help="print the traceback of an unexpected failure (XRG90x)",
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
        "--spark",
        action=argparse.BooleanOptionalAction,
        help="write spark.py (default: [tool.xrgen] spark, else yes)",
    )
    g.add_argument(
        "--pyproject",
        action=argparse.BooleanOptionalAction,
        help="also write OUT/pyproject.toml for the package (default: [tool.xrgen] pyproject, else no)",
    )
    g.add_argument(
        "--avro-framing",
        choices=("plain", "single-object", "confluent"),
        help="framing of Avro binary payloads (default: [tool.xrgen] avro-framing, else plain)",
    )
    g.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the formatting and run caches",
    )
    g.add_argument("--quiet", action="store_true", help="no progress display")
    v = sub.add_parser(
        "validate", help="report what generate would (diagnostics, exit code); write nothing"
    )
    common(v)
    v.add_argument("--no-cache", action="store_true", help="neither read nor write the run cache")
    i = sub.add_parser("inspect", help="print the resolved message groups and endpoints")
    common(i)
    i.add_argument("--json", action="store_true", help="as JSON")
    from .diff.command import add_parser as add_diff

    add_diff(sub)
    e = sub.add_parser(
        "export",
        help="describe the catalog in another format (asyncapi: an AsyncAPI 3.0 document)",
        description="Write the catalog as a document of another format: asyncapi, an "
        "AsyncAPI 3.0 document (docs/asyncapi.md). Exit 0 success, 1 catalog errors, 2 usage "
        "or I/O errors; nothing is written when there are errors.",
    )
    e.add_argument("target", choices=("asyncapi",), help="the format: asyncapi")
    common(e)
    from .export.command import add_arguments as add_export

    add_export(e)
    return p


def _print_diagnostics(diags: Diagnostics) -> None:
    for d in diags.sorted():
        print(one_line(str(d)), file=sys.stderr)


def one_line(text: str) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``): a key or id from a
    catalog can neither start a forged diagnostic line nor send terminal escapes."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _exit_code(diags: Diagnostics) -> int:
    if any(d.severity == "error" and is_io_error(d.code) for d in diags):
        return 2
    return 1 if diags.has_errors else 0


class _Pipe:
    """stdout or stderr, for a reader that may leave early (``| head``): the first write or
    flush that finds the pipe closed points the stream's descriptor at the null device (so the
    interpreter's last flush succeeds too) and drops all later output, without a diagnostic."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def _leave(self) -> None:
        self._gone = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self._stream.fileno())
            finally:
                os.close(null)
        except (OSError, ValueError):  # no descriptor (io.UnsupportedOperation is an OSError)
            pass

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...
        return getattr(self._stream, name)


_P = ParamSpec("_P")


def _quiet_when_reader_leaves(run: Callable[_P, int]) -> Callable[_P, int]:
    """Run a command with stdout and stderr wrapped in ``_Pipe``; the exit code is the
    command's (a ``--check`` that found differences still exits 1)."""

    @functools.wraps(run)
    def wrapped(*args: _P.args, **kwargs: _P.kwargs) -> int:
        out, err = sys.stdout, sys.stderr
        pipes = _Pipe(out), _Pipe(err)
        sys.stdout, sys.stderr = cast(TextIO, pipes[0]), cast(TextIO, pipes[1])
        try:
            return run(*args, **kwargs)
        finally:
            for pipe in pipes:
                pipe.flush()
            sys.stdout, sys.stderr = out, err

    return wrapped


@_quiet_when_reader_leaves
def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra and (args.command != "export" or any(a.startswith("-") for a in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:  # export FORMAT -o FILE CATALOG...: catalogs after the options are catalogs too
        args.catalogs += extra
    if args.command == "diff":
        return _diff(args)
    from . import config

    try:
        # each flag is named as its setting (``--fetch-timeout``: ``fetch_timeout``)
        flags = {name: getattr(args, name, None) for name in config.NAMES}
        settings = config.load(args.config).merged(**flags)
        catalogs = settings.catalogs
        if not catalogs:
            raise UsageError("no catalogs given (arguments or [tool.xrgen] catalogs)")
        options = Options.from_settings(settings)
        if args.command == "generate":
            return _generate(args, settings, catalogs, options)
        if args.command == "validate":
            return _validate(args, catalogs, options)
        if args.command == "export":
            return _export(args, catalogs, options)
        from . import api

        analysis = api.analyze(catalogs, options.strict, options.limits)
        _print_diagnostics(analysis.diagnostics)
        _print_traceback(args, analysis.error)
        code = _exit_code(analysis.diagnostics)
        if args.command == "inspect" and code != 2:
            doc = api.inspect_document(analysis)
            if args.json:
                import json

                print(json.dumps(doc, indent=2, ensure_ascii=False))
            else:
                from .inspection import lines

                for line in lines(doc):
                    print(one_line(line))
        return code
    except (UsageError, config.ConfigError) as e:
        print(f"xrgen: error: {e}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a failure outside api (e.g. printing, writing)
        from .internal import internal_error

        diags = internal_error(exc, args.command, getattr(args, "catalogs", []), Diagnostics())
        _print_diagnostics(diags)
        _print_traceback(args, exc)
        return 1


def _print_traceback(args: argparse.Namespace, exc: BaseException | None) -> None:
    if exc is not None and getattr(args, "debug", False):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)


def _diff(args: argparse.Namespace) -> int:
    from . import config
    from .diff.command import DiffUsageError, run

    try:
        configured = config.load(args.config).catalogs if not args.catalogs else []
        outcome = run(args, configured)
    except (DiffUsageError, config.ConfigError) as e:
        print(f"xrgen: error: {e}", file=sys.stderr)
        return 2
    for line in outcome.stdout:
        print(line)
    for line in outcome.stderr:
        print(line, file=sys.stderr)
    return outcome.code


def _generate(
    args: argparse.Namespace, settings: config.Settings, catalogs: list[str], options: Options
) -> int:
    out, package = settings.out, settings.package
    if not out or not package:
        raise UsageError("generate needs --out and --package (or [tool.xrgen] out/package)")
    problem = package_problem(package)
    if problem is not None:
        raise UsageError(f"--package {package!r} {problem}")
    from . import runner
    from .write import UnsafePath, check, write

    progress = None if args.quiet else _progress()
    result = runner.generate(
        catalogs, package, options, use_cache=not args.no_cache, progress=progress
    )
    _print_diagnostics(result.diagnostics)
    _print_traceback(args, result.error)
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


def _validate(args: argparse.Namespace, catalogs: list[str], options: Options) -> int:
    """What ``generate`` would report for the same catalogs and settings, writing nothing."""
    from . import runner

    result = runner.check(catalogs, options, use_cache=not args.no_cache)
    _print_diagnostics(result.diagnostics)
    _print_traceback(args, result.error)
    return _exit_code(result.diagnostics)


def _export(args: argparse.Namespace, catalogs: list[str], options: Options) -> int:
    from .export.command import run

    outcome = run(args, catalogs, options.strict, options.limits)
    _print_diagnostics(outcome.diagnostics)
    _print_traceback(args, outcome.error)
    if outcome.problem is not None:
        print(f"xrgen: error: {one_line(outcome.problem)}", file=sys.stderr)
    if outcome.text is not None:
        sys.stdout.write(outcome.text)
    return outcome.code if outcome.code is not None else _exit_code(outcome.diagnostics)


def _progress() -> Progress | None:
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
