"""Bounds on text that comes from the wire: how long a cache key and a reported detail get.

Runtime caches (of content types, header and attribute names) keep keys up to
``CACHE_KEY_MAX`` characters; error and dead-letter details are cut to ``DETAIL_MAX``
characters with control characters escaped (:func:`bounded_detail`). Whatever the input, both
stay bounded in size and safe to log.
"""

from __future__ import annotations

import re

__all__ = ["CACHE_KEY_MAX", "CONTROL", "DETAIL_MAX", "bounded_detail"]

#: Runtime caches (of content types, header and attribute names: texts from the wire) keep
#: keys up to ``CACHE_KEY_MAX`` characters and at most a few thousand entries, so each is
#: bounded in bytes (4,096 keys of 256 characters: at most about 4 MB, 1.2 MB for ASCII),
#: whatever the input: longer keys are computed every time instead of cached.
CACHE_KEY_MAX = 256

#: the longest dead-letter detail (and ``DecodeError.detail``), in characters
DETAIL_MAX = 4096
_TRUNCATED = " ...(truncated)"
#: the characters :func:`bounded_detail` escapes
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _escape_control(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def bounded_detail(text: str) -> str:
    """``text`` as one line of at most ``DETAIL_MAX`` characters: control characters (CR, LF,
    NUL, DEL, C1, U+2028/2029) written as ``\\xNN``/``\\uNNNN``, the rest cut off with a
    ``...(truncated)`` mark. Safe to put into a log line; linear in ``DETAIL_MAX``."""
    cut = len(text) > DETAIL_MAX
    if cut:
        text = text[:DETAIL_MAX]
    if CONTROL.search(text) is not None:
        text = CONTROL.sub(_escape_control, text)
        cut = cut or len(text) > DETAIL_MAX
    if cut:
        text = text[: DETAIL_MAX - len(_TRUNCATED)] + _TRUNCATED
    return text
