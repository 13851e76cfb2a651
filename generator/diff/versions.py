"""Schema versions: the declared ``compatibility`` of schema resources, and ``xrgen diff
--versions``: each version of each schema checked against its ancestor in the declared mode
(``_transitive``: against every ancestor up to the root).

The spec's attribute is ``meta.compatibility`` on the schema resource (read also from the
resource itself, as older catalogs write it) and ``ancestorid`` on each version (``load`` reads
the older ``ancestor`` as it, warning XRG110); a version without one follows the version before it in the
resource's order (numeric ids by number), and a root names itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostics
from ..model.registry import Registry, SchemaEntry
from .changes import BOTH, Changes, base_mode, is_mode, mode_directions
from .report import DiffResult, Report


def _schema_path(uri: str) -> tuple[str, str] | None:
    ref = uri[1:] if uri.startswith("#") else uri
    ref = ref.partition("#")[0]
    tokens = [t for t in ref.strip("/").split("/") if t]
    if len(tokens) >= 4 and tokens[0] == "schemagroups" and tokens[2] == "schemas":
        return tokens[1], tokens[3].partition(":")[0]
    return None


def schema_entry(registry: Registry | None, uri: str | None) -> SchemaEntry | None:
    if registry is None or not uri:
        return None
    path = _schema_path(uri)
    if path is None:
        return None
    group = registry.schemagroups.get(path[0])
    return group.schemas.get(path[1]) if group else None


def entry_mode(entry: SchemaEntry) -> str | None:
    data = entry.entity.data
    meta = data.get("meta")
    for holder in (meta if isinstance(meta, dict) else {}, data):
        value = holder.get("compatibility")
        if is_mode(value):
            return str(value).strip().lower()
    return None


def schema_mode(registry: Registry | None, uri: str | None) -> str | None:
    entry = schema_entry(registry, uri)
    return entry_mode(entry) if entry else None


def registry_mode(sources: Sequence[str]) -> str | None:
    """The ``compatibility`` a catalog document declares at its root (the last source that
    declares one; a split-file folder's root ``index.json``; URLs are not fetched again)."""
    from ..load.text import parse_text

    found: str | None = None
    for source in sources:
        if "://" in source:
            continue
        path = Path(source)
        path = path / "index.json" if path.is_dir() else path
        try:
            doc = parse_text(path.read_text(encoding="utf-8-sig"), path.suffix in (".yaml", ".yml"))
        except Exception:  # unreadable here means unreadable for load too, which reported it
            continue
        value = doc.get("compatibility") if isinstance(doc, dict) else None
        if is_mode(value):
            found = str(value).strip().lower()
    return found


def declared_mode(registry: Registry | None) -> str | None:
    """The catalog's mode: the ``compatibility`` every schema resource that declares one
    agrees on (``None`` when none declares one or they differ)."""
    if registry is None:
        return None
    modes = {
        m
        for g in registry.schemagroups.values()
        for s in g.schemas.values()
        if (m := entry_mode(s)) is not None
    }
    return modes.pop() if len(modes) == 1 else None


def ancestor_of(entry: SchemaEntry, vid: str) -> str | None:
    """The version id ``vid`` descends from, or None for a root."""
    data: dict[str, Any] = entry.versions[vid].data
    for key in ("ancestorid", "ancestor"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return None if value in (vid, "request") else value
    ids = list(entry.versions)
    if all(i.isdigit() for i in ids):
        ids.sort(key=int)
    i = ids.index(vid)
    return ids[i - 1] if i > 0 else None


def diff_versions(sources: Sequence[str], *, mode: str | None = None) -> DiffResult:
    """Each version of each schema against its ancestor (``_transitive``: every ancestor) in
    ``mode``, else the schema's declared ``compatibility``; schemas that declare none make no
    statement (the spec says not to check them) and are checked only with ``mode``."""
    from ..api import analyze
    from ..load import paused_gc

    with paused_gc():
        an = analyze(sources)
    errors = Diagnostics(d for d in an.diagnostics if d.severity == "error")
    if errors.has_errors or an.registry is None:
        return DiffResult([], errors)
    changes = Changes()
    modes: dict[str, str] = {}  # "group/schema" -> mode
    for gid, group in an.registry.schemagroups.items():
        for sid, entry in group.schemas.items():
            declared = mode or entry_mode(entry)
            if declared is None or len(entry.versions) < 2:
                continue
            modes[f"{gid}/{sid}"] = declared
            _check_schema(gid, sid, entry, declared.endswith("_transitive"), changes)
    reports = []
    for c in changes.sorted():
        m = modes.get(c.message or "") or mode or "backward"
        reports.append(Report(c, base_mode(m), c.breaking(mode_directions(m))))
    checked = sorted({base_mode(m) for m in modes.values()})
    summary = ", ".join(checked) or "none (no schema declares a compatibility; use --mode)"
    return DiffResult(reports, mode=summary)


def _check_schema(gid: str, sid: str, entry: SchemaEntry, transitive: bool, out: Changes) -> None:
    from .payload import schema_findings

    label = f"{gid}/{sid}"
    for vid, ver in entry.versions.items():
        chain: list[str] = []
        cur: str | None = vid
        while True:
            assert cur is not None
            parent = ancestor_of(entry, cur)
            if parent is None:
                break
            if parent not in entry.versions:
                out.add(
                    "XRG596",
                    ver.file,
                    ver.pointer,
                    label,
                    f"schema {label} version {cur!r}: ancestor {parent!r} does not exist",
                    BOTH,
                )
                break
            if parent == vid or parent in chain:
                out.add(
                    "XRG596",
                    ver.file,
                    ver.pointer,
                    label,
                    f"schema {label} version {vid!r}: ancestor cycle {' -> '.join([vid, *chain, parent])}",
                    BOTH,
                )
                break
            chain.append(parent)
            if not transitive:
                break
            cur = parent
        for anc in chain:
            old, new = entry.versions[anc], ver
            o_fmt, n_fmt = _format(entry, old.data), _format(entry, new.data)
            where = ver.pointer + "/schema"
            head = f"schema {label} version {vid!r} (ancestor {anc!r})"
            if "schema" not in old.data or "schema" not in new.data:
                continue
            if o_fmt != n_fmt:
                out.add(
                    "XRG541",
                    ver.file,
                    where,
                    None,
                    f"{head}: schema format changed from {o_fmt} to {n_fmt}",
                    BOTH,
                )
                continue
            for f in schema_findings(n_fmt, old.data["schema"], new.data["schema"]):
                out.add(f.code, ver.file, where + f.path, label, f"{head}: {f.text}", f.breaks)


def _format(entry: SchemaEntry, data: dict[str, Any]) -> str:
    from ..formats import guess
    from ..formats.spelling import schema_format_family

    fmt = data.get("format") or entry.entity.data.get("format")
    family = schema_format_family(fmt if isinstance(fmt, str) else None)
    return family or guess(data.get("schema"))
