"""What the load stage reports when a source cannot be read, parsed or is not JSON data:
the diagnostic codes and ``SourceError``, which the readers raise and the loader turns into
diagnostics."""

from __future__ import annotations

from ..limits import Limits

#: diagnostics that mean "could not read the input" (the CLI exits 2 on them)
IO_ERROR_CODES = frozenset({"XRG100"})


def is_io_error(code: str) -> bool:
    """True when a diagnostic code reports an unreadable input (exit code 2 in the CLI)."""
    return code in IO_ERROR_CODES


class SourceError(Exception):
    """A source could not be read or parsed; carries the diagnostic to report."""

    def __init__(self, code: str, message: str, ptr: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.pointer = ptr


#: a document too large (bytes) or a string value too long
XRG_TOO_LARGE = "XRG104"
#: nesting deeper than ``Limits.max_depth``
XRG_TOO_DEEP = "XRG105"
#: YAML aliases that repeat too much content, or refer to themselves
XRG_ALIASES = "XRG107"
#: a value that is not JSON data: a YAML tag like !!set, !!binary or !!python/..., NaN or
#: Infinity, an integer with more than ``MAX_INT_DIGITS`` digits
XRG_NOT_JSON = "XRG108"
#: the same key twice in one object
XRG_DUPLICATE_KEY = "XRG109"
#: a YAML key that is not a string (``1.0:``, ``true:``): read as its text, as written
XRG_KEY_NOT_STRING = "XRG119"


def too_large(limits: Limits) -> SourceError:
    return SourceError(
        XRG_TOO_LARGE,
        f"the document is larger than {limits.max_document_bytes} bytes "
        "(--max-document-bytes, [tool.xrgen] max-document-bytes)",
    )


def os_reason(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)
