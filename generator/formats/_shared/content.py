"""Content types every format reads."""

from __future__ import annotations

from collections.abc import Callable


def is_json(content_type: str | None) -> bool:
    """Whether the payload travels as JSON: no content type, ``*/json`` or ``*/*+json``."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return "/" in media and (media.endswith("/json") or media.endswith("+json"))


def carried(accepts: Callable[[str | None], bool], content_type: str | None) -> bool:
    """Whether a payload with ``content_type`` travels in the format whose ``accepts`` is given
    (JSON content types carry the model's JSON instead)."""
    return accepts(content_type) and not is_json(content_type)
