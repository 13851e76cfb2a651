"""Unexpected exceptions as diagnostics: XRG90x naming the stage and, where a generator frame
held one, the catalog location it was working on. Nothing a user gives gets a traceback."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .diagnostics import Diagnostics

#: an unexpected exception in the generator (a bug: please report it with ``--debug`` output)
XRG_INTERNAL = "XRG900"
#: the generator ran out of memory
XRG_OUT_OF_MEMORY = "XRG901"
#: the generator's recursion went too deep (an input nested beyond what a stage handles)
XRG_RECURSION = "XRG902"


def internal_error(
    exc: BaseException, stage: str, sources: Sequence[str], diags: Diagnostics
) -> Diagnostics:
    """``diags`` plus the XRG90x error for an unexpected exception in ``stage``."""
    from .load import display_name

    if isinstance(exc, MemoryError):
        code, what = XRG_OUT_OF_MEMORY, "ran out of memory"
    elif isinstance(exc, RecursionError):
        code, what = XRG_RECURSION, "nested too deeply (recursion limit)"
    else:
        code, what = XRG_INTERNAL, "failed unexpectedly"
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:197] + "..."
    detail = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    file = display_name(sources[0]) if sources else "xrgen"
    where = _where(exc)
    out = Diagnostics(diags)
    out.error(
        code,
        where[0] if where else file,
        where[1] if where else "",
        f"{stage} {what} ({detail}); --debug prints the traceback",
    )
    return out


def _where(exc: BaseException) -> tuple[str, str] | None:
    """``(file, pointer)`` of the catalog entity a stage was working on when ``exc`` was
    raised: the innermost generator frame that holds a location (``file`` and ``ptr``
    arguments, an ``Entity``, a ``location`` like ``file#/pointer``)."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    package = __name__.rpartition(".")[0]
    for frame in reversed(frames):
        if not str(frame.f_globals.get("__name__", "")).startswith(package + "."):
            continue
        found = _frame_location(frame.f_locals)
        if found is not None:
            return found
    return None


def _frame_location(local: dict[str, Any]) -> tuple[str, str] | None:
    file, ptr = local.get("file"), local.get("ptr", local.get("pointer"))
    if isinstance(file, str) and isinstance(ptr, str):
        return file, ptr
    for name in ("ent", "entity", "cur", "rm", "message", "m", "p", "payload"):
        obj = local.get(name)
        loc = getattr(obj, "location", None)
        if isinstance(loc, str) and "#" in loc:
            f, _, q = loc.partition("#")
            return f, q
        ofile, optr = getattr(obj, "file", None), getattr(obj, "pointer", None)
        if isinstance(ofile, str) and isinstance(optr, str):
            return ofile, optr
    return None
