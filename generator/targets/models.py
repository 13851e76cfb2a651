"""The payload models target: ``models.py`` from every payload of the catalog."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ..diagnostics import Diagnostics
from ..model import ir
from ..models import render_models
from ..payload_checks import XRG_UNRESOLVED_NAME, model_owner, rust_regex_only, unresolved_names
from ..render import CHUNK
from . import OutputFile, Target

_TOP_LEVEL = re.compile(
    r"^(?=(?:@|class |def |[A-Za-z_][A-Za-z0-9_]* = |[A-Za-z_][A-Za-z0-9_]*: ))", re.M
)


def plan(catalog: ir.Catalog, target: Target, head: str, diags: Diagnostics) -> list[OutputFile]:
    source = render_models(catalog.payloads)
    for location, code, message in source.diagnostics:
        file, _, ptr = location.partition("#")
        diags.warning(code, file, ptr, message)
    roots = tuple(p.model_name for p in catalog.payloads)
    for cls, name in unresolved_names(source.code, roots):
        file, _, ptr = model_owner(catalog.payloads, cls).partition("#")
        diags.error(
            XRG_UNRESOLVED_NAME,
            file,
            ptr,
            f"the generated models would not import: no model {name!r} was generated for "
            "this payload (is its schema defined only by itself?)"
            if cls == name
            else f"the generated models would not import: class {cls} uses {name!r}, which "
            "nothing defines (a forward reference that does not resolve)",
        )
    text = (
        head
        + '\n"""Payload models (pydantic v2) of the catalog\'s message schemas."""\n\n'
        + chunked(rust_regex_only(source.code))
    )
    return [OutputFile(PurePosixPath("models.py"), text=text)]


def chunked(code: str) -> str:
    """Put a chunk marker before each top-level class/def/assignment (after the imports), so
    the formatter can format and cache each model on its own. Decorators stay with their class."""
    lines = code.split("\n")
    out: list[str] = []
    started = False
    prev_decorator = False
    for line in lines:
        is_top = bool(_TOP_LEVEL.match(line)) and not line.startswith(("from ", "import "))
        if is_top and started and not prev_decorator:
            out.append(CHUNK)
        if is_top:
            started = True
        prev_decorator = line.startswith("@")
        out.append(line)
    return "\n".join(out)
