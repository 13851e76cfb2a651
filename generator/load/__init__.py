"""Load stage: JSON / YAML files, split-file folders and http(s) xRegistry URLs -> ``Registry``.

Every source is parsed into plain JSON data, normalized to the current xRegistry spelling (each
legacy or loose spelling is rewritten with a warning, XRG11x) and stacked into one ``Registry``:
a later document shadows an earlier one per entity (a message, schema version or endpoint is
replaced; groups and schemas merge their children). Every entity remembers the display name of
the file it came from and its JSON Pointer inside that file.

Problems never raise: unreadable sources are ``XRG100`` (an I/O error, see ``IO_ERROR_CODES``),
syntax errors ``XRG101`` with ``line:col``, input past a limit (``limits.Limits``: document
size, nesting, YAML aliases, integer digits) or that is not JSON data (YAML tags, NaN,
duplicate keys) ``XRG104``-``XRG109`` with its pointer; the rest of the catalog still loads.
URLs are fetched over http(s) only, at every hop, within one deadline and the size cap.

One job per module: ``sources`` (the entry, ``load``), ``text`` (a file's text, JSON or YAML by
name), ``jsontext`` and ``yamltext`` (parsing within the limits), ``fetch`` (http(s) registries),
``folder`` (split-file folders), ``normalize`` (current spelling, per entity kind), ``stack``
(documents into one ``Registry``), ``errors`` (``SourceError`` and the codes), ``common`` (what
the others share). This module names the stage's public functions; the readers load on first
use, so naming ``is_io_error`` or ``display_name`` costs no parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .common import COLLECTIONS, URL_RE, display_name, paused_gc
from .errors import (
    IO_ERROR_CODES,
    XRG_ALIASES,
    XRG_DUPLICATE_KEY,
    XRG_KEY_NOT_STRING,
    XRG_NOT_JSON,
    XRG_TOO_DEEP,
    XRG_TOO_LARGE,
    SourceError,
    is_io_error,
)

if TYPE_CHECKING:
    from ..cloudevents import is_cloudevents
    from ..formats.spelling import schema_format_family, schema_format_version
    from .normalize import (
        normalize_endpoint,
        normalize_message,
        normalize_messagegroup,
        normalize_schema,
        normalize_schemagroup,
        normalize_version,
    )
    from .sources import load
    from .text import parse_text

__all__ = [
    "COLLECTIONS",
    "IO_ERROR_CODES",
    "URL_RE",
    "XRG_ALIASES",
    "XRG_DUPLICATE_KEY",
    "XRG_KEY_NOT_STRING",
    "XRG_NOT_JSON",
    "XRG_TOO_DEEP",
    "XRG_TOO_LARGE",
    "SourceError",
    "display_name",
    "is_cloudevents",
    "is_io_error",
    "load",
    "normalize_endpoint",
    "normalize_message",
    "normalize_messagegroup",
    "normalize_schema",
    "normalize_schemagroup",
    "normalize_version",
    "parse_text",
    "paused_gc",
    "schema_format_family",
    "schema_format_version",
]

#: public names defined in the stage's modules, imported on first use
_LAZY = {
    "load": ".sources",
    "parse_text": ".text",
    "normalize_endpoint": ".normalize",
    "normalize_message": ".normalize",
    "normalize_messagegroup": ".normalize",
    "normalize_schema": ".normalize",
    "normalize_schemagroup": ".normalize",
    "normalize_version": ".normalize",
    "is_cloudevents": "..cloudevents",
    "schema_format_family": "..formats.spelling",
    "schema_format_version": "..formats.spelling",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module, __name__), name)
