"""Event ids: random (version 4) UUIDs, made in batches."""

from __future__ import annotations

import binascii
import os

__all__ = ["new_id"]

#: ids for the next ``new_id`` calls; emptied in a forked child so parent and child never hand
#: out the same ids
_ID_POOL: list[str] = []
_ID_BATCH = 128
#: (position in the 36-character id, index of its digit among the 32 hex digits of the
#: 16 random bytes) for the 30 digits that are copied unchanged: all but the dashes (8, 13, 18,
#: 23), the version digit (14, always "4") and the variant digit (19)
_ID_DIGITS = [
    (pos, pos - sum(pos > dash for dash in (8, 13, 18, 23)))
    for pos in range(36)
    if pos not in (8, 13, 14, 18, 19, 23)
]
#: the variant digit: RFC 4122 variant bits ``10`` and the digit's 2 low random bits
_ID_VARIANT = bytes.maketrans(b"0123456789abcdef", b"89ab89ab89ab89ab")
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_ID_POOL.clear)


def _fill_ids() -> None:
    """Add ``_ID_BATCH`` ids to the pool (the same as ``str(uuid.UUID(bytes=b, version=4))``
    for 16 fresh ``os.urandom`` bytes ``b`` each).

    The ids are written as lines of 37 bytes: every character position is filled for all
    ids at once with one strided slice assignment (C loops), not one f-string per id.
    """
    n = _ID_BATCH
    digits = binascii.hexlify(os.urandom(16 * n))  # 32 hex digits per id
    out = bytearray(37 * n)
    for pos, index in _ID_DIGITS:
        out[pos::37] = digits[index::32]
    out[14::37] = b"4" * n
    out[19::37] = digits[16::32].translate(_ID_VARIANT)
    out[8::37] = out[13::37] = out[18::37] = out[23::37] = b"-" * n
    out[36::37] = b"\n" * n
    _ID_POOL.extend(out.decode("ascii").split())


def new_id() -> str:
    """A random (version 4) UUID in canonical form, as ``str(uuid.uuid4())``.

    122 random bits from ``os.urandom``, version nibble 4, variant bits 10, lower-case
    8-4-4-4-12 hex. Faster than ``uuid.uuid4()`` because the random bytes are read (and
    formatted) for ``_ID_BATCH`` ids at a time; ``list.pop`` is atomic, so threads never
    share an id.
    """
    try:
        return _ID_POOL.pop()
    except IndexError:
        _fill_ids()
        return _ID_POOL.pop()
