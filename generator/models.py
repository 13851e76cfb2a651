"""Payload models: ``ir.Payload`` schemas -> the source of the generated ``models.py``.

Each schema format renders its own payloads (``formats/<format>.render_models``) into one
module: a shared import collector and one naming scope, so model names never collide across
formats. Nothing here raises on a bad schema: it is reported as a diagnostic (``XRG3xx``) and
the payload gets a permissive model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .formats import FORMATS, MODELS_ORDER
from .formats._shared.models import ALWAYS_RESERVED, Diag, Imports, permissive
from .formats.jsonschema.codes import XRG_JSON_UNMAPPED
from .model import ir
from .naming import Scope


@dataclass(frozen=True, slots=True)
class ModelsSource:
    """The body of ``models.py`` (imports and classes, below the header) and its names."""

    code: str
    #: payload key -> root class name (always the payload's ``model_name``)
    classes: dict[str, str]
    #: (location, code, message) for schemas that could not be mapped exactly
    diagnostics: list[Diag] = field(default_factory=list)


def render_models(payloads: Sequence[ir.Payload]) -> ModelsSource:
    """Render the pydantic v2 models of ``payloads`` (in catalog order) as one module body."""
    roots = {p.model_name for p in payloads}
    imports = Imports(roots)
    diags: list[Diag] = []
    scope = Scope(frozenset(roots) | ALWAYS_RESERVED)
    blocks: list[str] = []
    for fmt in MODELS_ORDER:
        mine = [p for p in payloads if p.format == fmt.NAME]
        if mine:
            blocks.append(fmt.render_models(mine, imports, scope, diags))
    for p in payloads:
        if p.format not in FORMATS:
            diags.append(
                (
                    p.location,
                    XRG_JSON_UNMAPPED,
                    f"schema format {p.format!r} is not modeled; permissive model",
                )
            )
            blocks.append(permissive(p.model_name, imports, None))
    blocks = [b for b in blocks if b.strip()]
    body = "\n\n\n".join(blocks)
    code = imports.render(body) + "\n\n\n" + body + "\n" if blocks else ""
    return ModelsSource(code, {p.key: p.model_name for p in payloads}, diags)
