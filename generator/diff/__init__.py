"""``xrgen diff``: compatibility of two catalogs (or of the versions of each schema in one).

Both sides go through the whole pipeline (load, validate, resolve, build), so what is compared
is each message as consumers and producers see it: after ``basemessage`` merges, ``xref``
aliases, endpoint protocol defaults and the schema versions its ``dataschemauri`` selects.
Messages are matched by group and id (by id alone when a message moved to another group).

Rules live beside this module, one per area: ``envelope`` (attributes, content type),
``protocol`` (binding and options), ``payload`` (schema added, removed, format) with
``jsonschema``, ``avro`` and ``protobuf``, ``api`` (names of the generated Python package),
``versions`` (schema versions along ``ancestor``). docs/diff.md lists every code with why it
breaks what it breaks.

Modes: ``backward`` (consumers built from NEW read what producers built from OLD write),
``forward`` (consumers built from OLD read what producers built from NEW write), ``full`` (both),
``none`` (nothing breaks). The mode of a message is ``--mode``, else the ``compatibility`` its
NEW (else OLD) payload schema resource declares, else the catalog's (``catalog_mode``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalogs import Change, DiffResult, Report, diff_analyses, diff_catalogs, is_mode

__all__ = [
    "Change",
    "DiffResult",
    "Report",
    "diff_catalogs",
    "diff_analyses",
    "is_mode",
]


def __getattr__(name: str) -> Any:
    # the comparison (and the pipeline it runs) loads on first use, so that the command
    # line's parser can name ``diff.command`` without it
    if name in __all__:
        from . import catalogs

        return getattr(catalogs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
