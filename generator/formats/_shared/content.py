"""Content types every format reads."""

from __future__ import annotations


def is_json(content_type: str | None) -> bool:
    """Whether the payload travels as JSON: no content type, ``*/json`` or ``*/*+json``."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return "/" in media and (media.endswith("/json") or media.endswith("+json"))
