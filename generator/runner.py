"""The command line's wrappers around the pure ``api``: the run cache (``runcache``), the
formatting cache (``format.Formatter`` on disk), the forked worker (``parallel``) and the scan
of the installed runtime (``runtime_info``), whose result goes to ``api`` as an option.

A run whose inputs are unchanged returns the cached result before anything of the pipeline
(loader, renderer, formatter, model generator) is imported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from . import runcache
from .limits import MAX_DOCUMENT_BYTES
from .result import Result
from .runtime_info import scan

if TYPE_CHECKING:
    from .api import Progress
    from .format import Formatter
    from .limits import Limits


def generate(
    sources: Sequence[str],
    package: str,
    *,
    strict: bool = False,
    spark: bool = True,
    pyproject: bool = False,
    avro_framing: str = "plain",
    avro_framing_messages: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    use_cache: bool = True,
    cache_dir: str | None = None,
    formatter: Formatter | None = None,
    progress: Progress | None = None,
) -> Result:
    """``api.generate`` with the caches and the forked worker. ``formatter`` (its folder and
    ``use_cache``) takes the place of ``cache_dir`` and ``use_cache`` when given."""
    if formatter is not None:
        root, use_cache = formatter.root, formatter.use_cache
    else:
        root = runcache.cache_root(cache_dir)
    runtime = scan()
    framing = (avro_framing, tuple(sorted((avro_framing_messages or {}).items())))
    flags = (strict, spark, pyproject, repr(limits), framing)
    key = _key(sources, ("generate", package, flags, runtime), limits) if use_cache else None
    cached = runcache.load_run(root, key)
    if cached is not None:
        return Result(*cached)
    from . import api
    from .format import Formatter
    from .parallel import ModelsWorker

    fmt = formatter if formatter is not None else Formatter(root, use_cache)
    result = api.generate(
        sources,
        package,
        strict=strict,
        spark=spark,
        pyproject=pyproject,
        avro_framing=avro_framing,
        avro_framing_messages=avro_framing_messages,
        formatter=fmt,
        progress=progress,
        limits=limits,
        runtime=runtime,
        worker=ModelsWorker(),
    )
    if result.ok:
        fmt.save()
        runcache.save_run(root, key, result.files, result.diagnostics)
    return result


def check(
    sources: Sequence[str],
    *,
    strict: bool = False,
    spark: bool = True,
    pyproject: bool = False,
    avro_framing: str = "plain",
    avro_framing_messages: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    use_cache: bool = True,
    cache_dir: str | None = None,
) -> Result:
    """``api.check`` (``xrgen validate``) with the run cache: a catalog checked before without
    errors is not checked again while nothing it depends on changed."""
    root = runcache.cache_root(cache_dir)
    runtime = scan()
    framing = (avro_framing, tuple(sorted((avro_framing_messages or {}).items())))
    flags = (strict, spark, pyproject, repr(limits), framing)
    key = _key(sources, ("check", flags, runtime), limits) if use_cache else None
    cached = runcache.load_run(root, key)
    if cached is not None:
        return Result(*cached)
    from . import api

    result = api.check(
        sources,
        strict=strict,
        spark=spark,
        pyproject=pyproject,
        avro_framing=avro_framing,
        avro_framing_messages=avro_framing_messages,
        limits=limits,
        runtime=runtime,
    )
    runcache.save_run(root, key, {}, result.diagnostics)
    return result


def _key(sources: Sequence[str], inputs: object, limits: Limits | None) -> str | None:
    max_bytes = limits.max_document_bytes if limits is not None else MAX_DOCUMENT_BYTES
    return runcache.run_key(sources, max_bytes, inputs)
