"""The command line's forked worker: on a large catalog, ``models.py`` (datamodel-code-generator
is the largest serial step of a cold run) is rendered and formatted in a forked process while
this one renders and formats the other modules; when it is done, the worker formats modules too.

``ModelsWorker`` is what ``api.generate`` takes as ``worker``: its output is the same file map
and diagnostics as the serial path (``tests/e2e/test_generate.py`` checks it).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, Diagnostics
from .model import ir

if TYPE_CHECKING:
    from .api import Progress
    from .format import Formatter
    from .targets import OutputFile, Target

#: catalogs with at least this many payload models or messages render ``models.py`` in a
#: forked worker process, in parallel with the other modules, and the worker then formats
#: modules too (``_format_files``); smaller ones stay in-process, where a worker would cost
#: more than it saves
PARALLEL_MODELS_MIN = 50


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


class ModelsWorker:
    """Renders the planned files of a catalog with a forked helper process when the catalog is
    large enough (``PARALLEL_MODELS_MIN``) and the platform forks; serially otherwise."""

    def files(
        self,
        catalog: ir.Catalog,
        target: Target,
        diags: Diagnostics,
        fmt: Formatter,
        progress: Progress | None,
    ) -> dict[PurePosixPath, str]:
        from .api import out_path, plan, render_file, serial_files

        large = max(len(catalog.payloads), len(catalog.messages())) >= PARALLEL_MODELS_MIN
        if not (large and _can_fork()):
            return serial_files(catalog, target, diags, fmt, progress)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        files: dict[PurePosixPath, str] = {}
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            payloads_only = ir.Catalog((), catalog.payloads, catalog.sources)
            models = pool.submit(_models_job, payloads_only, target, fmt.root, fmt.use_cache)
            planned = plan(catalog, target, diags, models=False)
            texts = [render_file(f) for f in planned]
            formatted = _format_files(planned, texts, fmt, pool, models, progress)
            for f, text in zip(planned, formatted, strict=True):
                files[out_path(target.package, f.path)] = text
            path, text, items, (shapes, new_files, lines) = models.result()
            files[out_path(target.package, path)] = text
            diags.extend(Diagnostic(*d) for d in items)
            fmt.merge(shapes, new_files, lines)
        return files


def _models_job(
    catalog: ir.Catalog, target: Target, cache_root: Path, use_cache: bool
) -> tuple[PurePosixPath, str, list[Any], tuple[dict[str, str], dict[str, str], int]]:
    """In the worker: plan and format ``models.py``; return it with its diagnostics and the
    formatter's new cache entries (the parent merges them)."""
    from .api import formats_file, render_file
    from .targets import models as models_target
    from .targets import package as package_target

    fmt = _worker_formatter(cache_root, use_cache)
    diags = Diagnostics()
    [f] = models_target.plan(catalog, target, package_target.header(target), diags)
    text = render_file(f)
    if formats_file(f):
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

    Files are taken largest first. Each time the worker is idle (``models.py`` done, the file
    it had back), the largest file left goes to it (``_format_job``), unless it is the last
    one, and this process goes on with the next: a cold run of 1,100 messages otherwise formats
    ~1 s of modules here while the worker is done with ``models.py`` after 0.4 s. A file the
    cache already holds is never sent (the round trip would cost more)."""
    from .api import formats_file

    out = list(texts)
    order = sorted(
        (i for i, f in enumerate(planned) if formats_file(f)), key=lambda i: -len(texts[i])
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

