"""xrgen: typed Python code generator for xRegistry message catalogs.

``xrgen.generate(catalogs, package, ...)`` runs the whole pipeline without writing anything and
returns a ``Result``: the file map (relative path -> text) and the diagnostics. See
``xrgen.api.generate`` for its options; the CLI (``python -m xrgen``) adds writing on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

__all__ = ["Result", "__version__", "generate"]

if TYPE_CHECKING:
    from .api import Result, generate


def __getattr__(name: str) -> Any:
    # the pipeline is imported on first use, so `import xrgen` stays cheap
    if name in ("generate", "Result"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'xrgen' has no attribute {name!r}")
