"""The library API: pure functions over catalogs. Nothing here prints or touches --out.

load -> validate -> resolve -> build IR -> plan/render -> format. ``generate`` returns the file
map (paths relative to --out); the CLI and ``write.py`` put it on disk or diff it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from . import __version__, ir
from .diagnostics import Diagnostic, Diagnostics
from .targets import Options, OutputFile
from .write import replace_atomically

if (
    TYPE_CHECKING
):  # the heavy stages (black, datamodel-code-generator) load only when needed
    from .format import Formatter
    from .limits import Limits
    from .registry import Registry
    from .resolve import Resolved

#: called with (stage, done, total) while files are formatted, for progress displays
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class Analysis:
    resolved: Resolved | None
    catalog: ir.Catalog | None
    diagnostics: Diagnostics
    #: the unexpected exception reported as XRG90x, for ``--debug``
    error: BaseException | None = None
    #: the stacked catalog as loaded (schema resources with their versions, for ``xrgen diff``)
    registry: Registry | None = None


@dataclass(slots=True)
class Result:
    files: dict[PurePosixPath, str] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: lines black actually formatted in this run (0 when everything came from the cache)
    formatted_lines: int = 0
    #: the unexpected exception reported as XRG90x, for ``--debug``
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors


#: an unexpected exception in the generator (a bug: please report it with ``--debug`` output)
XRG_INTERNAL = "XRG900"
#: the generator ran out of memory
XRG_OUT_OF_MEMORY = "XRG901"
#: the generator's recursion went too deep (an input nested beyond what a stage handles)
XRG_RECURSION = "XRG902"


def internal_error(
    exc: BaseException, stage: str, sources: Sequence[str], diags: Diagnostics
) -> Diagnostics:
    """``diags`` plus the XRG90x error for an unexpected exception in ``stage``."""
    from .load import display_name

    if isinstance(exc, MemoryError):
        code, what = XRG_OUT_OF_MEMORY, "ran out of memory"
    elif isinstance(exc, RecursionError):
        code, what = XRG_RECURSION, "nested too deeply (recursion limit)"
    else:
        code, what = XRG_INTERNAL, "failed unexpectedly"
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    file = display_name(sources[0]) if sources else "xrgen"
    where = _where(exc)
    out = Diagnostics(diags)
    out.error(
        code,
        where[0] if where else file,
        where[1] if where else "",
        f"{stage} {what} ({detail}); --debug prints the traceback",
    )
    return out


def _where(exc: BaseException) -> tuple[str, str] | None:
    """``(file, pointer)`` of the catalog entity a stage was working on when ``exc`` was
    raised: the innermost generator frame that holds a location (``file`` and ``ptr``
    arguments, an ``Entity``, a ``location`` like ``file#/pointer``)."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    package = __name__.rpartition(".")[0]
    for frame in reversed(frames):
        if not str(frame.f_globals.get("__name__", "")).startswith(package + "."):
            continue
        found = _frame_location(frame.f_locals)
        if found is not None:
            return found
    return None


def _frame_location(local: dict[str, Any]) -> tuple[str, str] | None:
    file, ptr = local.get("file"), local.get("ptr", local.get("pointer"))
    if isinstance(file, str) and isinstance(ptr, str):
        return file, ptr
    for name in ("ent", "entity", "cur", "rm", "message", "m", "p", "payload"):
        obj = local.get(name)
        loc = getattr(obj, "location", None)
        if isinstance(loc, str) and "#" in loc:
            f, _, q = loc.partition("#")
            return f, q
        ofile, optr = getattr(obj, "file", None), getattr(obj, "pointer", None)
        if isinstance(ofile, str) and isinstance(optr, str):
            return ofile, optr
    return None


def analyze(
    sources: Sequence[str], strict: bool = False, limits: Limits | None = None
) -> Analysis:
    """Load, validate, resolve and build; every stage collects diagnostics. Never raises: an
    unexpected failure is an XRG90x diagnostic (``Analysis.error`` keeps the exception)."""
    from .load import paused_gc

    stage = ["load"]
    diags = Diagnostics()
    try:
        with paused_gc():  # catalog data is acyclic; see load.paused_gc
            return _analyze(sources, strict, limits, diags, stage)
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Analysis(None, None, internal_error(exc, stage[0], sources, diags), exc)


def _analyze(
    sources: Sequence[str],
    strict: bool,
    limits: Limits | None,
    diags: Diagnostics,
    stage: list[str],
) -> Analysis:
    from . import overlap
    from .build import build
    from .load.sources import load
    from .resolve import resolve
    from .validate import validate, validate_resolved_message

    registry = load(sources, diags, limits=limits)
    stage[0] = "validate"
    validate(registry, diags)
    stage[0] = "resolve"
    resolved = resolve(registry, diags)
    for group in resolved.groups:
        for message in group.messages:
            if message.derived:  # others were checked as written by validate()
                validate_resolved_message(
                    message.data, message.file, message.pointer, diags
                )
    stage[0] = "build"
    catalog = build(resolved, diags)
    if catalog is not None and not diags.has_errors:  # errors: definitions are unfinished
        overlap.check(catalog, diags)
    if strict:
        diags = diags.strict()
    return Analysis(resolved, catalog, diags, registry=registry)


def generate(
    sources: Sequence[str],
    package: str,
    *,
    strict: bool = False,
    spark: bool = True,
    pyproject: bool = False,
    avro_framing: str = "plain",
    avro_framing_messages: Mapping[str, str] | None = None,
    formatter: Formatter | None = None,
    progress: Progress | None = None,
    limits: Limits | None = None,
) -> Result:
    """Generate the package ``package`` from ``sources``; no files when there are errors.

    A run whose inputs (catalog bytes, options, limits, xrgen and black versions, templates)
    are unchanged returns the previous result from the run cache without doing any work.
    Never raises: an unexpected failure is an XRG90x diagnostic (``Result.error`` keeps the
    exception).
    """
    try:
        if formatter is None:
            from .format import Formatter

            formatter = Formatter()
        framing = (avro_framing, tuple(sorted((avro_framing_messages or {}).items())))
        key = (
            _run_key(sources, package, limits, strict, spark, pyproject, repr(limits), framing)
            if formatter.use_cache
            else None
        )
        cached = _load_run(formatter.path.parent, key)
        if cached is not None:
            return cached
        result = _generate(
            sources, package, strict, spark, pyproject, framing, formatter, progress, limits
        )
        _save_run(formatter.path.parent, key, result)
        return result
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Result({}, internal_error(exc, "generate", sources, Diagnostics()), error=exc)


def _generate(
    sources: Sequence[str],
    package: str,
    strict: bool,
    spark: bool,
    pyproject: bool,
    framing: tuple[str, tuple[tuple[str, str], ...]],
    fmt: Formatter,
    progress: Progress | None,
    limits: Limits | None,
) -> Result:
    analysis = analyze(sources, strict, limits)
    diags = analysis.diagnostics
    if diags.has_errors or analysis.catalog is None:
        return Result({}, diags, error=analysis.error)
    catalog = analysis.catalog
    from .payload_checks import check_payloads

    check_payloads(catalog.payloads, diags)  # before any rendering: patterns, $ref cycles
    if diags.has_errors:
        return Result({}, diags)
    options = Options(
        package=package,
        catalog_names=tuple(catalog.sources),
        spark=spark,
        pyproject=pyproject,
        version=__version__,
        avro_framing=framing[0],
        avro_framing_messages=framing[1],
    )
    parallel = (
        max(len(catalog.payloads), len(catalog.messages())) >= PARALLEL_MODELS_MIN
        and _can_fork()
    )
    files: dict[PurePosixPath, str] = {}
    with _models_worker(parallel) as pool:
        payloads_only = ir.Catalog((), catalog.payloads, catalog.sources)
        models = (
            pool.submit(_models_job, payloads_only, options, fmt.root, fmt.use_cache)
            if pool
            else None
        )
        planned = plan(catalog, options, diags, models=models is None)
        texts = [_render(f) for f in planned]
        formatted = _format_files(planned, texts, fmt, pool, models, progress)
        for f, text in zip(planned, formatted, strict=True):
            files[_out_path(package, f.path)] = text
        if models is not None:
            path, text, items, (shapes, new_files, lines) = models.result()
            files[_out_path(package, path)] = text
            diags.extend(Diagnostic(*d) for d in items)
            fmt.merge(shapes, new_files, lines)
    if strict:
        diags = diags.strict()
    if diags.has_errors:
        return Result({}, diags)
    fmt.save()
    return Result(dict(sorted(files.items())), diags, fmt.formatted_lines)


#: catalogs with at least this many payload models or messages render ``models.py`` in a
#: forked worker process, in parallel with the other modules (datamodel-code-generator is the
#: largest serial step of a cold run), and the worker then formats modules too
#: (``_format_files``); smaller ones stay in-process, where a worker would cost more than it saves
PARALLEL_MODELS_MIN = 50


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _models_worker(parallel: bool) -> Any:
    import contextlib

    if not parallel:
        return contextlib.nullcontext(None)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))


def _models_job(
    catalog: ir.Catalog, options: Options, cache_root: Path, use_cache: bool
) -> tuple[PurePosixPath, str, list[Any], tuple[dict[str, str], dict[str, str], int]]:
    """In the worker: plan and format ``models.py``; return it with its diagnostics and the
    formatter's new cache entries (the parent merges them)."""
    from .targets import models as models_target
    from .targets import package as package_target

    fmt = _worker_formatter(cache_root, use_cache)
    diags = Diagnostics()
    [f] = models_target.plan(catalog, options, package_target.header(options), diags)
    text = _render(f)
    if _formats(f):
        text = fmt.file(text)
    items = [(d.severity, d.code, d.file, d.pointer, d.message) for d in diags]
    return f.path, text, items, fmt.take_new()


def _format_files(
    planned: list[OutputFile],
    texts: list[str],
    fmt: Formatter,
    pool: Any,
    models: Any,
    progress: Progress | None,
) -> list[str]:
    """The final texts of the planned files (``texts`` formatted where they are Python).

    Files are taken largest first. With a worker, each time it is idle (``models.py`` done,
    the file it had back), the largest file left goes to it (``_format_job``), unless it is
    the last one, and this process goes on with the next: a cold run of 1,100 messages
    otherwise formats ~1 s of modules here while the worker is done with ``models.py`` after
    0.4 s. A file the cache already holds is never sent (the round trip would cost more)."""
    out = list(texts)
    order = sorted(
        (i for i, f in enumerate(planned) if _formats(f)), key=lambda i: -len(texts[i])
    )
    last = order[-1] if order else None  # never sent: this process would only wait
    sent: tuple[int, Any] | None = None
    done = len(planned) - len(order)  # the files taken as rendered

    def collect(job: tuple[int, Any]) -> None:
        text, (shapes, files, lines) = job[1].result()
        out[job[0]] = text
        fmt.merge(shapes, files, lines)

    for i in order:
        if sent is not None and sent[1].done():
            collect(sent)
            sent = None
        if (
            pool is not None
            and sent is None
            and i != last
            and models.done()
            and not fmt.has_file(texts[i])
        ):
            sent = (i, pool.submit(_format_job, texts[i], fmt.root, fmt.use_cache))
            continue
        out[i] = fmt.file(texts[i])
        done += 1
        if progress is not None:
            progress("format", done, len(planned))
    if sent is not None:
        collect(sent)
        if progress is not None:
            progress("format", done + 1, len(planned))
    return out


def _format_job(
    text: str, cache_root: Path, use_cache: bool
) -> tuple[str, tuple[dict[str, str], dict[str, str], int]]:
    """In the worker: format one rendered module; return it with the formatter's new cache
    entries (the parent merges them)."""
    fmt = _worker_formatter(cache_root, use_cache)
    return fmt.file(text), fmt.take_new()


#: the worker process's formatter, loaded from the cache once for all its jobs, with the
#: process id and settings it was made for (a forked child never reuses its parent's)
_WORKER_FORMATTER: tuple[tuple[int, Path, bool], Formatter] | None = None


def _worker_formatter(cache_root: Path, use_cache: bool) -> Formatter:
    global _WORKER_FORMATTER
    key = (os.getpid(), cache_root, use_cache)
    if _WORKER_FORMATTER is None or _WORKER_FORMATTER[0] != key:
        from .format import Formatter

        _WORKER_FORMATTER = (key, Formatter(cache_root, use_cache))
    return _WORKER_FORMATTER[1]


def plan(
    catalog: ir.Catalog, options: Options, diags: Diagnostics, *, models: bool = True
) -> list[OutputFile]:
    from .targets import models as models_target
    from .targets import package as package_target

    head = package_target.header(options)
    files = package_target.plan(catalog, options)
    if models:
        files += models_target.plan(catalog, options, head, diags)
    if options.spark:
        from .targets import spark as spark_target

        files += spark_target.plan(catalog, options, head, diags)
    if options.pyproject:
        from .targets import pyproject as pyproject_target

        files += pyproject_target.plan(catalog, options)
    return sorted(files, key=lambda f: f.path)


def _out_path(package: str, path: PurePosixPath) -> PurePosixPath:
    """Paths relative to --out: package files under the package; ``../x`` beside it."""
    if path.parts[:1] == ("..",):
        return PurePosixPath(*path.parts[1:])
    return PurePosixPath(package) / path


def _render(f: OutputFile) -> str:
    from .render import render

    return f.text if f.text is not None else render(f.template or "", f.context)


def _formats(f: OutputFile) -> bool:
    """Whether the formatter (black) runs over the file's text."""
    return f.python and not f.preformatted


def inspect_document(analysis: Analysis) -> dict[str, Any]:
    """The resolved messages keyed by group and message id, in the catalog's own attribute
    names, each with its source location (``xrgen inspect --json``)."""
    out: dict[str, Any] = {}
    if analysis.resolved is None:
        return out
    for group in analysis.resolved.groups:
        messages: dict[str, Any] = {}
        for m in group.messages:
            d = m.data
            entry: dict[str, Any] = {"messageid": m.id}
            for key in (
                "envelope",
                "envelopemetadata",
                "protocol",
                "protocoloptions",
                "dataschemaformat",
            ):
                if key in d:
                    entry[key] = d[key]
            if m.schema is not None:
                entry.setdefault("dataschemaformat", m.schema.format or m.schema.family)
                entry["dataschema"] = m.schema.schema
            if "datacontenttype" in d:
                entry["datacontenttype"] = d["datacontenttype"]
            if m.alias_of:
                entry["xref"] = m.alias_of
            entry["location"] = m.location
            messages[m.id] = entry
        out[group.id] = {
            "location": f"{group.file}#{group.pointer}",
            "messages": messages,
        }
    return out


# --------------------------------------------------------------------------- run cache

_CODE_ROOTS = (Path(__file__).resolve().parent,)


def _fingerprint_tree(h: Any, root: Path) -> None:
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            st = p.stat()
            h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())


def _run_key(
    sources: Sequence[str], package: str, limits: Limits | None, *flags: object
) -> str | None:
    """Hash of everything a run depends on; ``None`` (no caching) for URL sources."""
    import importlib.metadata

    from .limits import MAX_DOCUMENT_BYTES
    from .render import TEMPLATES, runtime_modules
    from .targets.pyproject import runtime_requirements

    max_bytes = limits.max_document_bytes if limits is not None else MAX_DOCUMENT_BYTES
    h = hashlib.sha256()
    # the runtime's floors and extras (the generated pyproject.toml states them) and its
    # modules (bindings/ and adapters/ re-export them)
    runtime = (runtime_requirements(), runtime_modules())
    h.update(
        repr((__version__, importlib.metadata.version("black"), package, flags, runtime)).encode()
    )
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


def _load_run(cache_dir: Path, key: str | None) -> Result | None:
    if key is None:
        return None
    path = cache_dir / "runs" / key
    try:
        with open(path, "rb") as f:
            files, items = pickle.load(f)
        result = Result(files, Diagnostics(Diagnostic(*d) for d in items))
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError):
        return None
    try:
        os.utime(path)  # recently used: kept by _prune_runs
    except OSError:
        pass  # a read-only cache still serves its runs
    return result


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


def _save_run(cache_dir: Path, key: str | None, result: Result) -> None:
    if key is None or not result.ok:
        return
    try:
        runs = cache_dir / "runs"
        runs.mkdir(parents=True, exist_ok=True)
        items = [
            (d.severity, d.code, d.file, d.pointer, d.message)
            for d in result.diagnostics
        ]
        replace_atomically(
            runs / key,
            lambda f: pickle.dump((result.files, items), f, protocol=pickle.HIGHEST_PROTOCOL),
            prefix=".run-",
        )
        _prune_runs(runs)
    except OSError:
        pass
