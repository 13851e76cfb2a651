"""RFC 3339 timestamps: the text of a ``datetime`` and back (CloudEvents Timestamp)."""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone

__all__ = ["format_time", "parse_time"]

_TIME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
#: Python >= 3.11: ``fromisoformat`` reads ``Z`` and any fraction length
_FROMISO_Z = sys.version_info >= (3, 11)

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
#: (days, seconds) since the epoch and "YYYY-MM-DDTHH:MM:SS" of the last formatted time: events
#: produced "now" share their second, so format_time mostly only appends the fraction. One
#: tuple, replaced atomically, so threads never see a key with another key's text.
_LAST_SECOND: tuple[int, int, str] = (0, -1, "")


def format_time(value: datetime) -> str:
    """RFC 3339 text of ``value`` in UTC with a ``Z`` suffix (naive values count as UTC)."""
    global _LAST_SECOND
    # ``value - epoch`` is the UTC instant as (days, seconds, microseconds) in one C call,
    # whatever the offset; the date/clock text is formatted once per distinct second.
    try:
        delta = value - _EPOCH
    except TypeError:  # naive (or a tzinfo without an offset): counts as UTC
        value = value.replace(tzinfo=None)
        delta = value - _EPOCH_NAIVE
    days, seconds = delta.days, delta.seconds
    last = _LAST_SECOND
    if last[1] != seconds or last[0] != days:
        if value.tzinfo is not None and value.utcoffset():
            value = value.astimezone(timezone.utc)
        last = _LAST_SECOND = (
            days,
            seconds,
            "%04d-%02d-%02dT%02d:%02d:%02d"  # noqa: UP031 (fastest)
            % (
                value.year,
                value.month,
                value.day,
                value.hour,
                value.minute,
                value.second,
            ),
        )
    micro = delta.microseconds
    if micro:
        return "%s.%06dZ" % (last[2], micro)  # noqa: UP031 (fastest)
    return last[2] + "Z"


#: digits -> "0": the shapes below are the canonical RFC 3339 forms (``T``, ``Z`` or an
#: offset, 0-9 fraction digits) that ``datetime.fromisoformat`` reads exactly like RFC 3339
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_TIME_SHAPES = frozenset(
    b"0000-00-00T00:00:00" + (b"." + b"0" * n if n else b"") + offset
    for n in range(10)
    for offset in (b"Z", b"+00:00", b"-00:00")
)


def parse_time(text: str) -> datetime:
    """Parse an RFC 3339 timestamp into an aware ``datetime``; ``ValueError`` if invalid.

    A strict RFC 3339 ``date-time`` regex, then ``datetime.fromisoformat`` (directly where it
    understands the text, else on a normalized form; fractions beyond microseconds are
    truncated).
    """
    # Fast path: the usual shapes (checked with one C translate, cheaper than the regex);
    # non-ASCII digits never map to b"0", so they take the strict path below.
    if _FROMISO_Z and text.encode().translate(_DIGITS_TO_ZERO) in _TIME_SHAPES:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass  # e.g. month 13: the slow path gives the same verdict
    m = _TIME.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    if _FROMISO_Z:
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass
    date, clock, frac, offset = m.groups()
    if frac is not None:
        clock += frac[:7].ljust(7, "0")
    if offset in ("Z", "z"):
        offset = "+00:00"
    return datetime.fromisoformat(date + "T" + clock + offset)
