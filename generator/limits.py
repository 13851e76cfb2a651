"""Resource limits of the load stage (docs/limits.md): a light module, so that the command
line names them without importing the loader. Input past a limit is an error diagnostic, never
a traceback or an unbounded wait."""

from __future__ import annotations

import sys
from dataclasses import dataclass

#: bytes of one document (default of ``--max-document-bytes``)
MAX_DOCUMENT_BYTES = 64 * 2**20
#: seconds for all fetches of one URL source (default of ``--fetch-timeout``)
FETCH_TIMEOUT = 30.0
#: nesting of arrays and objects in a document (later stages walk schemas recursively)
MAX_DEPTH = 100
#: nodes YAML aliases may add to a document (an alias bomb adds billions)
MAX_ALIAS_NODES = 1_000_000
#: characters of one string value (descriptions end up in docstrings, which black formats at
#: about 3 MB/s)
MAX_STRING_CHARS = 4_000_000
#: decimal digits of an integer (CPython's own limit for int/str conversion)
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of the load stage (docs/limits.md). Input past one is an error
    diagnostic, never a traceback or an unbounded wait."""

    #: bytes of one document (a file, one ``index.json`` of a folder, one URL answer)
    max_document_bytes: int = MAX_DOCUMENT_BYTES
    #: seconds for all fetches of one URL source together (follow-up fetches included)
    fetch_timeout: float = FETCH_TIMEOUT
    #: nesting of arrays and objects in a document
    max_depth: int = MAX_DEPTH
    #: nodes YAML aliases may add by repeating anchored content
    max_alias_nodes: int = MAX_ALIAS_NODES
    #: characters of one string value
    max_string_chars: int = MAX_STRING_CHARS
