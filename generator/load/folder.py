"""Split-file folders (``index.json`` per level) following the xRegistry path layout::

    DIR/index.json                                 the registry document (optional)
    DIR/<groups>/index.json                        map of groups
    DIR/<groups>/<gid>/index.json                  one group
    DIR/<groups>/<gid>/<resources>/<rid>/index.json  one resource (message, schema)
    DIR/<groups>/<gid>/<resources>/<rid>$meta/index.json  the resource's meta entity
    DIR/<groups>/<gid>/<resources>/<rid>/versions/<vid>/index.json  one version

Deeper files are stacked after shallower ones, so a version file wins over the same version
inlined in the registry document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..diagnostics import pointer
from ..limits import Limits
from ..model.registry import Entity, SchemaEntry
from .errors import SourceError
from .normalize import META_ATTRS
from .stack import Stacker
from .text import read_file

_DOC_KEYS = frozenset(
    {
        "versions",
        "schema",
        "schemaurl",
        "schemabase64",
        "format",
        "schemaid",
        "id",
        "meta",
        "versionid",
    }
)


def load_folder(folder: Path, display: str, st: Stacker, limits: Limits) -> None:
    """Stack every ``index.json`` (or ``.yaml``) below a split-file folder, shallow first."""
    files = [
        p
        for p in folder.rglob("index.*")
        if p.is_file() and p.suffix.lower() in (".json", ".yaml", ".yml")
    ]
    if not files:
        st.diags.error("XRG100", display, "", "folder holds no index.json")
        return
    files.sort(key=lambda p: (len(p.relative_to(folder).parts), p.as_posix()))
    for path in files:
        rel = path.relative_to(folder)
        file = f"{display}/{rel.as_posix()}" if display not in ("", ".") else rel.as_posix()
        try:
            data = read_file(path, limits, st.diags, file)
        except SourceError as e:
            st.diags.error(e.code, file, e.pointer, e.message)
            continue
        _split_piece(list(rel.parts[:-1]), data, file, st)


def _split_piece(parts: list[str], data: Any, file: str, st: Stacker) -> None:
    """Place one split file by its folder path (see the module docstring)."""
    n = len(parts)
    coll = parts[0] if parts else None
    adders = {
        "messagegroups": st.messagegroup,
        "schemagroups": st.schemagroup,
        "endpoints": st.endpoint,
    }
    if n == 0:
        st.document(data, file)
    elif coll not in adders:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")
    elif n == 1:
        st.collection(data, file, "", adders[coll])
    elif n == 2:
        adders[coll](parts[1], data, file, "")
    elif n == 4 and coll == "messagegroups" and parts[2] == "messages":
        st.message(parts[1], parts[3], data, file, "")
    elif n == 4 and coll == "schemagroups" and parts[2] == "schemas":
        _split_schema(parts[1], parts[3], data, file, st)
    elif n == 6 and coll == "schemagroups" and parts[2] == "schemas" and parts[4] == "versions":
        _split_version(parts[1], parts[3], parts[5], data, file, st)
    elif n == 4 and coll == "endpoints" and parts[2] == "messages" and isinstance(data, dict):
        ep = st.reg.endpoints.get(parts[1])
        if ep is None:
            st.diags.warning("XRG106", file, "", f"endpoint '{parts[1]}' is not declared; ignored")
            return
        msgs = dict(ep.data.get("messages") or {})
        msgs[parts[3]] = st.read_message(data, parts[3], file, "")
        ep.data = {**ep.data, "messages": msgs}
    else:
        st.diags.warning("XRG106", file, "", "file is not at an xRegistry path; ignored")


def _split_schema(gid: str, sid: str, data: Any, file: str, st: Stacker) -> None:
    if sid.endswith("$meta"):
        sid = sid[: -len("$meta")]
        if isinstance(data, dict):
            meta = {k: v for k, v in data.items() if k in META_ATTRS}
            rest = {k: v for k, v in data.items() if k not in META_ATTRS}
            data = {**rest, "meta": meta} if meta else rest
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}  # the bare schema document of the default version
    st.schema(gid, sid, data, file, "")


def _split_version(gid: str, sid: str, vid: str, data: Any, file: str, st: Stacker) -> None:
    ptr = ""
    if (
        isinstance(data, dict)
        and isinstance(data.get("versions"), dict)
        and vid in data["versions"]
    ):
        data, ptr = data["versions"][vid], pointer("versions", vid)
    elif not (isinstance(data, dict) and _DOC_KEYS & data.keys()):
        data = {"schema": data}
    group = st._schema_group_entry(gid, file, ptr)
    entry = group.schemas.get(sid)
    if entry is None:
        entry = group.schemas[sid] = SchemaEntry(Entity({"schemaid": sid}, file, ptr))
    st.version(entry, vid, data, file, ptr)
