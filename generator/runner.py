"""The command line's wrappers around the pure ``api``: the run cache (``runcache``), the
formatting cache (``format.Formatter`` on disk), the forked worker (``parallel``) and the scan
of the installed runtime (``runtime_info``), whose result goes to ``api`` as an option.

A run whose inputs are unchanged returns the cached result before anything of the pipeline
(loader, renderer, formatter, model generator) is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import runcache
from .options import Options
from .result import Result
from .runtime_info import scan

if TYPE_CHECKING:
    from .api import Progress
    from .format import Formatter


def generate(
    sources: Sequence[str],
    package: str,
    options: Options | None = None,
    *,
    use_cache: bool = True,
    cache_dir: str | None = None,
    formatter: Formatter | None = None,
    progress: Progress | None = None,
) -> Result:
    """``api.generate_with`` with the caches and the forked worker. ``formatter`` (its folder
    and ``use_cache``) takes the place of ``cache_dir`` and ``use_cache`` when given."""
    options = options if options is not None else Options()
    if formatter is not None:
        root, use_cache = formatter.root, formatter.use_cache
    else:
        root = runcache.cache_root(cache_dir)
    runtime = scan()
    inputs = ("generate", package, options.dump(), runtime)
    key = _key(sources, inputs, options) if use_cache else None
    cached = runcache.load_run(root, key)
    if cached is not None:
        return Result(*cached)
    from . import api
    from .format import Formatter
    from .parallel import ModelsWorker

    fmt = formatter if formatter is not None else Formatter(root, use_cache)
    result = api.generate_with(
        sources,
        package,
        options,
        formatter=fmt,
        progress=progress,
        runtime=runtime,
        worker=ModelsWorker(),
    )
    if result.ok:
        fmt.save()
        runcache.save_run(root, key, result.files, result.diagnostics)
    return result


def check(
    sources: Sequence[str],
    options: Options | None = None,
    *,
    use_cache: bool = True,
    cache_dir: str | None = None,
) -> Result:
    """``api.check_with`` (``xrgen validate``) with the run cache: a catalog checked before
    without errors is not checked again while nothing it depends on changed."""
    options = options if options is not None else Options()
    root = runcache.cache_root(cache_dir)
    runtime = scan()
    key = _key(sources, ("check", options.dump(), runtime), options) if use_cache else None
    cached = runcache.load_run(root, key)
    if cached is not None:
        return Result(*cached)
    from . import api

    result = api.check_with(sources, options, runtime=runtime)
    runcache.save_run(root, key, {}, result.diagnostics)
    return result


def _key(sources: Sequence[str], inputs: object, options: Options) -> str | None:
    """The run cache's key: ``inputs`` (the command, the options' dump, the runtime scan) and
    the sources."""
    return runcache.run_key(sources, options.limits.max_document_bytes, inputs)
