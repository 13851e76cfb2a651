"""The library API: pure functions over catalogs. Nothing here prints, touches --out or keeps
a cache.

load -> validate -> resolve -> build IR -> plan/render -> format. ``generate`` returns the file
map (paths relative to --out) and the diagnostics; ``check`` returns the same diagnostics
without rendering or formatting (``xrgen validate``). The command line adds the run cache, the
formatting cache, the forked worker and writing around them (``runner.py``, ``write.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol

from ._version import __version__
from .diagnostics import Diagnostics
from .internal import XRG_INTERNAL, XRG_OUT_OF_MEMORY, XRG_RECURSION, internal_error
from .model import ir
from .options import Options
from .result import Result
from .targets import OutputFile, Target

if TYPE_CHECKING:  # the heavy stages (black, datamodel-code-generator) load only when needed
    from .format import Formatter
    from .limits import Limits
    from .model.registry import Registry
    from .model.resolved import Resolved
    from .runtime_info import RuntimeInfo

__all__ = [
    "XRG_INTERNAL",
    "XRG_OUT_OF_MEMORY",
    "XRG_RECURSION",
    "Analysis",
    "Progress",
    "Result",
    "Worker",
    "analyze",
    "Options",
    "Target",
    "check",
    "check_with",
    "generate",
    "generate_with",
    "inspect_document",
    "internal_error",
    "plan",
]

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
    #: the settings of the output to plan (``generate``/``check``), for ``PLAN_PASSES``
    options: Options | None = None


def analyze(
    sources: Sequence[str], strict: bool = False, limits: Limits | None = None
) -> Analysis:
    """Load, resolve and build, each stage followed by its checks (``PASSES``); every stage
    and check collects diagnostics. Never raises: an unexpected failure is an XRG90x
    diagnostic (``Analysis.error`` keeps the exception)."""
    from .load import paused_gc

    stage = ["load"]
    diags = Diagnostics()
    try:
        with paused_gc():  # catalog data is acyclic; see load.paused_gc
            return _analyze(sources, strict, limits, diags, stage)
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Analysis(None, None, internal_error(exc, stage[0], sources, diags), exc)


#: a check: reads the analysis so far and adds to its diagnostics
Pass = Callable[[Analysis], None]


def _validate(an: Analysis) -> None:
    """Structure and spec rules of the catalog as loaded (XRG1xx)."""
    from .validate import validate

    assert an.registry is not None
    validate(an.registry, an.diagnostics)


def _group_options(an: Analysis) -> None:
    """XRG174/XRG175: a group's protocol options that reach no message."""
    from .group_defaults import check_group_options

    assert an.resolved is not None
    check_group_options(an.resolved.groups, an.diagnostics)


def _derived_messages(an: Analysis) -> None:
    """The full semantic check of messages that merged a basemessage (the others were
    checked as written by ``_validate``)."""
    from .validate import validate_resolved_message

    assert an.resolved is not None
    for group in an.resolved.groups:
        for message in group.messages:
            if message.derived:
                validate_resolved_message(
                    message.data, message.file, message.pointer, an.diagnostics
                )


def _unbound_options(an: Analysis) -> None:
    """XRG174: protocol options of a message that no protocol applies."""
    from .group_defaults import check_unbound_options

    assert an.resolved is not None
    check_unbound_options(an.resolved.groups, an.diagnostics)


def _endpoint_protocols(an: Analysis) -> None:
    """XRG234: the messages of the groups an endpoint references use its protocol."""
    from .endpoints.references import check_protocols

    assert an.resolved is not None
    groups = {g.id: g for g in an.resolved.groups}
    check_protocols(an.resolved.endpoints, groups, an.diagnostics)


def _endpoint_placeholders(an: Analysis) -> None:
    """XRG235: the placeholders of endpoint options the messages took as defaults."""
    from .endpoints.references import check_placeholders

    assert an.resolved is not None
    groups = {g.id: g for g in an.resolved.groups}
    check_placeholders(an.resolved.endpoints, groups, an.diagnostics)


def _overlap(an: Analysis) -> None:
    """Definitions no wire message can tell apart (``overlap``); not while there are errors:
    the definitions are unfinished."""
    from . import overlap

    if an.catalog is not None and not an.diagnostics.has_errors:
        overlap.check(an.catalog, an.diagnostics)


def _payloads(an: Analysis) -> None:
    """The payloads' own checks (``PayloadFormat.check_payload``: JSON Schema patterns and
    ``$ref`` cycles)."""
    from . import formats

    assert an.catalog is not None
    formats.check_payloads(an.catalog.payloads, an.diagnostics)


def _spark_recursive(an: Analysis) -> None:
    """XRG325: payloads whose Spark type holds a recursive part as JSON text, when the output
    has the Spark module; not after errors (nothing is planned then)."""
    from .targets import spark

    assert an.catalog is not None
    if an.options is not None and an.options.spark and not an.diagnostics.has_errors:
        spark.check_recursive(an.catalog.payloads, an.diagnostics)


#: the checks, in the order they run: after load (a failure is reported as validate's), after
#: resolve and after build, those of the stage's output.
#:
#: What stays inside a stage is the stage failing at its own job or telling how it did it:
#: resolve reports the references it cannot follow (basemessage XRG201-203, xref XRG204/205,
#: schemas XRG210-213, endpoint groups and will messages XRG206/230-233, XRG110), the
#: defaults it could not or did not take one way only (XRG207, XRG208) and the envelope or
#: protocol a message took from its group (note XRG147: what the message declared is gone
#: once the default is in); build reports the names it had to change (XRG301), the payloads
#: it leaves as bytes (XRG220, XRG221) and the message options it does not carry into the IR
#: (XRG174/XRG175 of ``protocols.to_ir``).
PASSES: dict[str, tuple[Pass, ...]] = {
    "validate": (_validate,),
    "resolve": (
        _group_options,
        _derived_messages,
        _unbound_options,
        _endpoint_protocols,
        _endpoint_placeholders,
    ),
    "build": (_overlap,),
}
#: the checks ``generate`` and ``check`` run on an analysis without errors, before planning
#: (``Analysis.options`` is the output's settings).
#:
#: Planning still reports what only rendering finds: the payload models' renderers report the
#: schema constructs they cannot map and the names they had to change while they write the
#: models (XRG301, XRG320-324, XRG326, XRG327: the renderer's own mapping decides, so a check
#: before it would be a second copy of that mapping), and ``targets.models`` the names the
#: rendered models use and nothing defines (XRG343, a check of the generated code).
PLAN_PASSES: tuple[Pass, ...] = (_payloads, _spark_recursive)


def _run(name: str, an: Analysis, stage: list[str]) -> None:
    stage[0] = name
    for check in PASSES[name]:
        check(an)


def _analyze(
    sources: Sequence[str],
    strict: bool,
    limits: Limits | None,
    diags: Diagnostics,
    stage: list[str],
) -> Analysis:
    from .build import build
    from .load.sources import load
    from .resolve import resolve

    an = Analysis(None, None, diags, registry=load(sources, diags, limits=limits))
    _run("validate", an, stage)
    stage[0] = "resolve"
    assert an.registry is not None
    an.resolved = resolve(an.registry, diags)
    _run("resolve", an, stage)
    stage[0] = "build"
    an.catalog = build(an.resolved, diags)
    _run("build", an, stage)
    if strict:
        an.diagnostics = diags.strict()
    return an


class Worker(Protocol):
    """Renders and formats the planned files of a catalog some other way than ``serial_files``
    (the command line's forked worker, ``parallel.ModelsWorker``), with the same result."""

    def files(
        self,
        catalog: ir.Catalog,
        target: Target,
        diags: Diagnostics,
        fmt: Formatter,
        progress: Progress | None,
    ) -> dict[PurePosixPath, str]: ...


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
    runtime: RuntimeInfo | None = None,
    worker: Worker | None = None,
) -> Result:
    """Generate the package ``package`` from ``sources``; no files when there are errors.

    The settings (``strict`` ... ``limits``) are ``Options``' (``generate_with`` takes them
    whole). ``formatter``: the black formatter to use (default: one without a cache on disk;
    this function never saves one). ``runtime``: the installed xrgen-runtime's modules and
    requirements (default: scanned). ``worker``: renders and formats some other way (default:
    in this process). Never raises: an unexpected failure is an XRG90x diagnostic
    (``Result.error`` keeps the exception).
    """
    options = Options.of(
        strict=strict,
        spark=spark,
        pyproject=pyproject,
        avro_framing=avro_framing,
        avro_framing_messages=avro_framing_messages,
        limits=limits,
    )
    return generate_with(
        sources, package, options, formatter=formatter, progress=progress, runtime=runtime,
        worker=worker,
    )


def generate_with(
    sources: Sequence[str],
    package: str,
    options: Options,
    *,
    formatter: Formatter | None = None,
    progress: Progress | None = None,
    runtime: RuntimeInfo | None = None,
    worker: Worker | None = None,
) -> Result:
    """``generate`` with its settings as one ``Options``."""
    try:
        analysis, diags = _checked(sources, options)
        if diags.has_errors or analysis.catalog is None:
            return Result({}, diags, error=analysis.error)
        target = _target(package, analysis.catalog, options, runtime)
        if formatter is None:
            from .format import Formatter

            formatter = Formatter(use_cache=False)
        if worker is None:
            files = serial_files(analysis.catalog, target, diags, formatter, progress)
        else:
            files = worker.files(analysis.catalog, target, diags, formatter, progress)
        if options.strict:
            diags = diags.strict()
        if diags.has_errors:
            return Result({}, diags)
        return Result(dict(sorted(files.items())), diags)
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Result({}, internal_error(exc, "generate", sources, Diagnostics()), error=exc)


def check(
    sources: Sequence[str],
    *,
    strict: bool = False,
    spark: bool = True,
    pyproject: bool = False,
    avro_framing: str = "plain",
    avro_framing_messages: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    runtime: RuntimeInfo | None = None,
) -> Result:
    """The diagnostics ``generate`` reports for the same arguments, without rendering or
    formatting anything (``xrgen validate``): load, validate, resolve, build, the payload
    checks and every output's plan (the payload models included). ``Result.files`` is empty."""
    options = Options.of(
        strict=strict,
        spark=spark,
        pyproject=pyproject,
        avro_framing=avro_framing,
        avro_framing_messages=avro_framing_messages,
        limits=limits,
    )
    return check_with(sources, options, runtime=runtime)


def check_with(
    sources: Sequence[str], options: Options, *, runtime: RuntimeInfo | None = None
) -> Result:
    """``check`` with its settings as one ``Options``."""
    try:
        analysis, diags = _checked(sources, options)
        if diags.has_errors or analysis.catalog is None:
            return Result({}, diags, error=analysis.error)
        plan(analysis.catalog, _target(CHECK_PACKAGE, analysis.catalog, options, runtime), diags)
        return Result({}, diags.strict() if options.strict else diags)
    except Exception as exc:  # noqa: BLE001 - every failure is a diagnostic
        return Result({}, internal_error(exc, "validate", sources, Diagnostics()), error=exc)


#: the package name ``check`` plans with (diagnostics never name the package)
CHECK_PACKAGE = "package"


def _target(
    package: str, catalog: ir.Catalog, options: Options, runtime: RuntimeInfo | None
) -> Target:
    if runtime is None:
        from .runtime_info import scan

        runtime = scan()
    return Target(package, tuple(catalog.sources), options, __version__, runtime)


def _checked(sources: Sequence[str], options: Options) -> tuple[Analysis, Diagnostics]:
    """The analysis and, when it has no errors, the checks run before anything is planned
    (``PLAN_PASSES``)."""
    analysis = analyze(sources, options.strict, options.limits)
    if analysis.diagnostics.has_errors or analysis.catalog is None:
        return analysis, analysis.diagnostics
    analysis.options = options
    for check in PLAN_PASSES:
        check(analysis)
    return analysis, analysis.diagnostics


def serial_files(
    catalog: ir.Catalog,
    target: Target,
    diags: Diagnostics,
    fmt: Formatter,
    progress: Progress | None,
) -> dict[PurePosixPath, str]:
    """The package's files (paths relative to --out), rendered and formatted in this process."""
    planned = plan(catalog, target, diags)
    files: dict[PurePosixPath, str] = {}
    done = sum(not formats_file(f) for f in planned)  # the files taken as rendered
    for f in planned:
        text = render_file(f)
        if formats_file(f):
            text = fmt.file(text)
            done += 1
            if progress is not None:
                progress("format", done, len(planned))
        files[out_path(target.package, f.path)] = text
    return files


def plan(
    catalog: ir.Catalog, target: Target, diags: Diagnostics, *, models: bool = True
) -> list[OutputFile]:
    from .targets import models as models_target
    from .targets import package as package_target

    head = package_target.header(target)
    files = package_target.plan(catalog, target)
    if models:
        files += models_target.plan(catalog, target, head, diags)
    if target.options.spark:
        from .targets import spark as spark_target

        files += spark_target.plan(catalog, target, head)
    if target.options.pyproject:
        from .targets import pyproject as pyproject_target

        files += pyproject_target.plan(catalog, target)
    return sorted(files, key=lambda f: f.path)


def out_path(package: str, path: PurePosixPath) -> PurePosixPath:
    """Paths relative to --out: package files under the package; ``../x`` beside it."""
    if path.parts[:1] == ("..",):
        return PurePosixPath(*path.parts[1:])
    return PurePosixPath(package) / path


def render_file(f: OutputFile) -> str:
    from .render import render

    return f.text if f.text is not None else render(f.template or "", f.context)


def formats_file(f: OutputFile) -> bool:
    """Whether the formatter (black) runs over the file's text."""
    return f.python and not f.preformatted


def inspect_document(analysis: Analysis) -> dict[str, Any]:
    """The resolved message groups and endpoints, in the catalog's own attribute names, each
    with its source location (``xrgen inspect --json``; ``inspection``)."""
    from .inspection import document

    return document(analysis.resolved)

