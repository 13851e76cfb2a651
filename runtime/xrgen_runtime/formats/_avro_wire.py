"""The values and functions the compiled Avro codecs call (``_avro_compile``): Avro's
binary primitives read and written, logical types converted, the epoch and range constants.
"""

from __future__ import annotations

import json
import struct
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from enum import Enum
from typing import Any
from uuid import UUID

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_MS = timedelta(milliseconds=1)
_US = timedelta(microseconds=1)
#: the Avro timestamps (of the unit) and dates that ``datetime`` / ``date`` can hold: the
#: numbers of the Arrow times (spark mode) are the same values, others fail as they would
_TIME_RANGE = {
    unit: (
        (datetime.min.replace(tzinfo=timezone.utc) - _EPOCH) // unit,
        (datetime.max.replace(tzinfo=timezone.utc) - _EPOCH) // unit,
    )
    for unit in (_MS, _US)
}
_DAY_RANGE = (
    date.min.toordinal() - _EPOCH_ORDINAL,
    date.max.toordinal() - _EPOCH_ORDINAL,
)
_F = struct.Struct("<f")
_D = struct.Struct("<d")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _wl(out: bytearray, n: int) -> None:
    """Append a zigzag varint (Avro ``long``)."""
    if not _LONG_MIN <= n <= _LONG_MAX:
        raise ValueError(f"{n} does not fit an Avro long")
    n = (n << 1) ^ (n >> 63)
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _wi(out: bytearray, n: int) -> None:
    if not _INT_MIN <= n <= _INT_MAX:
        raise ValueError(f"{n} does not fit an Avro int")
    _wl(out, n)


def _ws(out: bytearray, s: str) -> None:
    b = s.encode("utf-8")
    _wl(out, len(b))
    out += b


def _wb(out: bytearray, b: bytes) -> None:
    _wl(out, len(b))
    out += b


def _rl(b: bytes, pos: int) -> tuple[int, int]:
    """Read a zigzag varint at ``pos``: ``(value, next position)``."""
    byte = b[pos]
    pos += 1
    n = byte & 0x7F
    shift = 7
    while byte & 0x80:
        byte = b[pos]
        pos += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if shift > 70:
            raise ValueError("Avro varint too long")
    return (n >> 1) ^ -(n & 1), pos


def _rb(b: bytes, pos: int) -> tuple[bytes, int]:
    n, pos = _rl(b, pos)
    end = pos + n
    if n < 0 or end > len(b):
        raise ValueError("Avro bytes/string length out of range")
    return b[pos:end], end


def _rs(b: bytes, pos: int) -> tuple[str, int]:
    n, pos = _rl(b, pos)
    end = pos + n
    if n < 0 or end > len(b):
        raise ValueError("Avro bytes/string length out of range")
    return b[pos:end].decode("utf-8"), end


def _rfixed(b: bytes, pos: int, size: int) -> tuple[bytes, int]:
    end = pos + size
    if end > len(b):
        raise ValueError("truncated Avro fixed")
    return b[pos:end], end


def _ts(x: Any, unit: timedelta) -> int:
    if isinstance(x, datetime):
        return (x - (_EPOCH if x.tzinfo is not None else _EPOCH_NAIVE)) // unit
    raise ValueError(f"{x!r} is not a datetime")


def _days(x: Any) -> int:
    if isinstance(x, date) and not isinstance(x, datetime):
        return x.toordinal() - _EPOCH_ORDINAL
    raise ValueError(f"{x!r} is not a date")


def _tod(x: Any, per_second: int) -> int:
    if isinstance(x, time):
        seconds = x.hour * 3600 + x.minute * 60 + x.second
        return seconds * per_second + x.microsecond * per_second // 1_000_000
    raise ValueError(f"{x!r} is not a time")


def _unscaled(x: Any, scale: int) -> int:
    if not isinstance(x, Decimal):
        x = Decimal(x)
    exponent = x.as_tuple().exponent
    if not isinstance(exponent, int) or -exponent > scale:
        raise ValueError(f"{x} has more than {scale} decimal places")
    return int(x.scaleb(scale))


def _dec_bytes(x: Any, scale: int) -> bytes:
    n = _unscaled(x, scale)
    size = (n + (n < 0)).bit_length() // 8 + 1
    return n.to_bytes(size, "big", signed=True)


def _dec_fixed(x: Any, scale: int, size: int) -> bytes:
    try:
        return _unscaled(x, scale).to_bytes(size, "big", signed=True)
    except OverflowError:
        raise ValueError(f"{x} does not fit fixed({size})") from None


def _decimal(raw: bytes, scale: int) -> Decimal:
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale)


def _ms_time(n: int, per_second: int) -> time:
    micro = n * (1_000_000 // per_second)
    s, micro = divmod(micro, 1_000_000)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return time(h, m, s, micro)


def _sym(x: Any) -> Any:
    return x.value if isinstance(x, Enum) else x


def _bad(x: Any, what: str) -> Any:
    raise ValueError(f"{x!r} does not fit Avro {what}")


def _json(value: Any) -> str:
    return json.dumps(value, default=str, separators=(",", ":"))


_HELPERS: dict[str, Any] = {
    "_wl": _wl,
    "_wi": _wi,
    "_ws": _ws,
    "_wb": _wb,
    "_rl": _rl,
    "_rb": _rb,
    "_rs": _rs,
    "_rfixed": _rfixed,
    "_ts": _ts,
    "_days": _days,
    "_tod": _tod,
    "_dec_bytes": _dec_bytes,
    "_dec_fixed": _dec_fixed,
    "_decimal": _decimal,
    "_ms_time": _ms_time,
    "_sym": _sym,
    "_bad": _bad,
    "_json": _json,
    "_F": _F,
    "_D": _D,
    "_EPOCH": _EPOCH,
    "_EPOCH_NAIVE": _EPOCH_NAIVE,
    "_EPOCH_ORDINAL": _EPOCH_ORDINAL,
    "_MS": _MS,
    "_US": _US,
    "UUID": UUID,
    "Decimal": Decimal,
    "datetime": datetime,
    "date": date,
    "time": time,
    "timedelta": timedelta,
    "_ord": date.fromordinal,
}
