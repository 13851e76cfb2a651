"""The single Jinja environment. Templates are thin: they loop over view objects built by
``targets/`` and print precomputed values (already turned into source by ``literals.py``)."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
if not TEMPLATES.is_dir():  # installed wheel: templates/ ships inside the package as _templates
    TEMPLATES = Path(__file__).resolve().parent / "_templates"

#: marker a template puts between top-level statements; format.py formats each chunk alone
CHUNK = "#:xrgen-chunk"
#: marker between the members of a class body (before each ``def`` after the first block)
MEMBER = "#:xrgen-member"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, context: dict[str, Any]) -> str:
    return environment().get_template(template).render(**context)


def runtime_modules() -> list[str]:
    """Dotted names of the public codec and adapter modules of the installed xrgen-runtime
    (``bindings.kafka``, ``adapters.mqtt``, ...), sorted; read from its files, not imported
    (an adapter imports its client library)."""
    spec = importlib.util.find_spec("xrgen_runtime")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("xrgen-runtime is not installed (pip install xrgen-runtime)")
    root = Path(next(iter(spec.submodule_search_locations)))
    out = []
    for sub in ("bindings", "adapters"):
        for p in sorted((root / sub).glob("*.py")):
            if p.stem == "__init__" or not p.stem.startswith("_"):
                out.append(sub if p.stem == "__init__" else f"{sub}.{p.stem}")
    return sorted(out)
