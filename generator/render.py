"""The single Jinja environment. Templates are thin: they loop over view objects built by
``targets/`` and print precomputed values (already turned into source by ``literals.py``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    import jinja2  # on first render: a warm run renders nothing

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

