"""The library API: pure functions over catalogs. Nothing here prints or touches --out.

load -> validate -> resolve -> build IR -> plan/render -> format. ``generate`` returns the file
map (paths relative to --out); the CLI and ``write.py`` put it on disk or diff it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from . import __version__, ir
from .build import build
from .diagnostics import Diagnostics
from .format import Formatter
from .load import load
from .render import render
from .resolve import Resolved, resolve
from .targets import Options, OutputFile
from .targets import models as models_target
from .targets import package as package_target
from .validate import validate, validate_resolved_message

#: called with (stage, done, total) while files are formatted, for progress displays
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class Analysis:
    resolved: Resolved | None
    catalog: ir.Catalog | None
    diagnostics: Diagnostics


@dataclass(slots=True)
class Result:
    files: dict[PurePosixPath, str] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: lines black actually formatted in this run (0 when everything came from the cache)
    formatted_lines: int = 0

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors


def analyze(sources: Sequence[str], strict: bool = False) -> Analysis:
    """Load, validate, resolve and build; every stage collects diagnostics."""
    diags = Diagnostics()
    registry = load(sources, diags)
    validate(registry, diags)
    resolved = resolve(registry, diags)
    for group in resolved.groups:
        for message in group.messages:
            if message.derived:  # others were checked as written by validate()
                validate_resolved_message(message.data, message.file, message.pointer, diags)
    catalog = build(resolved, diags)
    if strict:
        diags = diags.strict()
    return Analysis(resolved, catalog, diags)


def generate(
    sources: Sequence[str],
    package: str,
    *,
    strict: bool = False,
    spark: bool = True,
    pyproject: bool = False,
    formatter: Formatter | None = None,
    progress: Progress | None = None,
) -> Result:
    """Generate the package ``package`` from ``sources``; no files when there are errors."""
    analysis = analyze(sources, strict)
    diags = analysis.diagnostics
    if diags.has_errors or analysis.catalog is None:
        return Result({}, diags)
    catalog = analysis.catalog
    options = Options(
        package=package,
        catalog_names=tuple(catalog.sources),
        spark=spark,
        pyproject=pyproject,
        version=__version__,
    )
    planned = plan(catalog, options, diags)
    if strict:
        diags = diags.strict()
    if diags.has_errors:
        return Result({}, diags)
    fmt = formatter or Formatter()
    files: dict[PurePosixPath, str] = {}
    for i, f in enumerate(planned):
        files[_out_path(package, f.path)] = _materialize(f, fmt)
        if progress is not None:
            progress("format", i + 1, len(planned))
    fmt.save()
    return Result(files, diags, fmt.formatted_lines)


def plan(catalog: ir.Catalog, options: Options, diags: Diagnostics) -> list[OutputFile]:
    head = package_target.header(options)
    files = package_target.plan(catalog, options)
    files += models_target.plan(catalog, options, head, diags)
    if options.spark:
        from .targets import spark as spark_target

        files += spark_target.plan(catalog, options, head)
    if options.pyproject:
        from .targets import pyproject as pyproject_target

        files += pyproject_target.plan(catalog, options)
    return sorted(files, key=lambda f: f.path)


def _out_path(package: str, path: PurePosixPath) -> PurePosixPath:
    """Paths relative to --out: package files under the package; ``../x`` beside it."""
    if path.parts[:1] == ("..",):
        return PurePosixPath(*path.parts[1:])
    return PurePosixPath(package) / path


def _materialize(f: OutputFile, fmt: Formatter) -> str:
    text = f.text if f.text is not None else render(f.template or "", f.context)
    if f.python and not f.preformatted:
        return fmt.file(text)
    return text


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
        out[group.id] = {"location": f"{group.file}#{group.pointer}", "messages": messages}
    return out
