"""Two catalogs (or their analyses) compared message by message: the changes, each with the
mode of its message, and whether the change is compatible (see the package docstring)."""

from __future__ import annotations

from collections.abc import Sequence

from ..api import Analysis, analyze
from ..diagnostics import Diagnostics
from ..model import ir
from ..model.resolved import ResolvedMessage
from .changes import (
    BACKWARD,
    FORWARD,
    Change,
    Changes,
    Finding,
    base_mode,
    is_mode,
    mode_directions,
)
from .envelope import compare_envelope
from .payload import PayloadComparer, split_location
from .protocol import compare_protocol
from .report import DEFAULT_MODE, DiffResult, Report

__all__ = [
    "Change",
    "DiffResult",
    "Report",
    "diff_catalogs",
    "diff_analyses",
    "is_mode",
]

def diff_catalogs(
    old: Sequence[str], new: Sequence[str], *, mode: str | None = None, api_errors: bool = False
) -> DiffResult:
    """Compare catalog OLD with catalog NEW (each one or more stacked sources)."""
    from ..load import paused_gc

    with paused_gc():  # both catalogs and the comparison allocate only acyclic data
        return _diff_catalogs(old, new, mode, api_errors)


def _diff_catalogs(
    old: Sequence[str], new: Sequence[str], mode: str | None, api_errors: bool
) -> DiffResult:
    a, b = analyze(old), analyze(new)
    errors = Diagnostics(d for d in (*a.diagnostics, *b.diagnostics) if d.severity == "error")
    if errors.has_errors:
        return DiffResult([], errors)
    reports = diff_analyses(a, b, mode=mode, api_errors=api_errors)
    # the summary names the modes of the reports, or the one that applied when there are none
    default = mode or (catalog_mode(a, b) if not reports else DEFAULT_MODE)
    return DiffResult(reports, mode=base_mode(default))


def catalog_mode(a: Analysis, b: Analysis) -> str:
    """The mode of messages whose schema declares none: the ``compatibility`` NEW's (else
    OLD's) document declares at its root, else the one every schema resource that declares
    one agrees on, else backward."""
    from .versions import declared_mode, registry_mode

    return (
        registry_mode(b.catalog.sources if b.catalog else ())
        or registry_mode(a.catalog.sources if a.catalog else ())
        or declared_mode(b.registry)
        or declared_mode(a.registry)
        or DEFAULT_MODE
    )


def diff_analyses(
    a: Analysis, b: Analysis, *, mode: str | None = None, api_errors: bool = False
) -> list[Report]:
    changes = compare(a, b)
    b_modes = _message_modes(b)
    a_modes = _message_modes(a)
    fallback: list[str] = []  # the catalog's mode, read when a change needs it
    reports: list[Report] = []
    for c in changes.sorted():
        key = c.message or ""
        m = mode or b_modes.get(key) or a_modes.get(key)
        if m is None:
            fallback = fallback or [catalog_mode(a, b)]
            m = fallback[0]
        reports.append(Report(c, base_mode(m), c.breaking(mode_directions(m), api_errors)))
    return reports


def _message_modes(an: Analysis) -> dict[str, str]:
    from .versions import schema_mode

    out: dict[str, str] = {}
    if an.resolved is None:
        return out
    for g in an.resolved.groups:
        for rm in g.messages:
            uri = rm.data.get("dataschemauri")
            declared = schema_mode(an.registry, uri if isinstance(uri, str) else None)
            if declared is not None:
                out[rm.id] = declared
    return out


def _index(an: Analysis) -> dict[tuple[str, str], tuple[ir.Message, ResolvedMessage | None]]:
    resolved = {
        (g.id, m.id): m for g in (an.resolved.groups if an.resolved else []) for m in g.messages
    }
    out: dict[tuple[str, str], tuple[ir.Message, ResolvedMessage | None]] = {}
    for m in an.catalog.messages() if an.catalog else ():
        out[(m.group_id, m.id)] = (m, resolved.get((m.group_id, m.id)))
    return out


def compare(a: Analysis, b: Analysis) -> Changes:
    """Every change from catalog ``a`` (OLD) to catalog ``b`` (NEW)."""
    from .api import compare_api

    out = Changes()
    olds, news = _index(a), _index(b)
    new_file = b.catalog.sources[0] if b.catalog and b.catalog.sources else "NEW"
    old_by_id = {k[1]: k for k in olds if k not in news}
    new_by_id = {k[1]: k for k in news if k not in olds}
    pairs: list[tuple[tuple[str, str], tuple[str, str]]] = [(k, k) for k in olds if k in news]
    pairs += [(old_by_id[i], new_by_id[i]) for i in old_by_id if i in new_by_id]
    paired_old = {p[0] for p in pairs}
    paired_new = {p[1] for p in pairs}
    for key in olds:
        if key not in paired_old:
            m = olds[key][0]
            _, pointer = split_location(m.location)
            text = f"message {m.id!r} removed: NEW consumers no longer accept it"
            out.add("XRG500", new_file, pointer, m.id, text, BACKWARD)
    for key in news:
        if key not in paired_new:
            m = news[key][0]
            file, pointer = split_location(m.location)
            if olds:
                text = f"message {m.id!r} added: OLD consumers do not accept it"
                out.add("XRG501", file, pointer, m.id, text, FORWARD)
            else:  # a new catalog: nothing was built from OLD
                out.add("XRG501", file, pointer, m.id, f"message {m.id!r} added (new catalog)")
    payloads = PayloadComparer()
    for ok, nk in pairs:
        (om, orm), (nm, nrm) = olds[ok], news[nk]
        where = split_location(nm.location)
        for f in (*compare_envelope(om, nm), *compare_protocol(om, nm)):
            _put(out, nm.id, where, f)
        for at, f in payloads.compare(orm.schema if orm else None, nrm.schema if nrm else None):
            _put(out, nm.id, where, f, at)
    if a.catalog is not None and b.catalog is not None:
        out.extend(compare_api(a.catalog, b.catalog, pairs, new_file))
    return out


def _put(out: Changes, mid: str, where: tuple[str, str], f: Finding, at: str | None = None) -> None:
    """Place a finding: relative to the message (``where``: its file and pointer), or to the
    payload schema at location ``at``."""
    if at is None:
        file, base = where
        out.add(f.code, file, base + f.path, mid, f"{mid}: {f.text}", f.breaks)
    else:
        file, base = split_location(at)
        out.add(f.code, file, base + f.path, mid, f"{mid}: payload {f.text}", f.breaks)
