"""``DecodeError``: the only exception a codec's ``decode`` raises."""

from __future__ import annotations

from ._limits import CONTROL, bounded_detail

__all__ = ["DecodeError"]


class DecodeError(ValueError):
    """A wire message or event body that cannot be decoded.

    ``reason`` is a stable, machine-readable code (e.g. ``"invalid-json"``,
    ``"missing-attribute"``, ``"invalid-specversion"``, ``"invalid-attribute"``,
    ``"invalid-encoding"``, ``"unsupported-format"``); ``detail`` is for humans: one line of
    at most ``DETAIL_MAX`` characters (see :func:`bounded_detail`), whatever the input.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        if len(detail) > 200 or CONTROL.search(detail) is not None:
            detail = bounded_detail(detail)
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
