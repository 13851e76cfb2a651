"""Media types: whether a text is one, and whether it denotes JSON (both cached, bounded)."""

from __future__ import annotations

import re

from ._limits import CACHE_KEY_MAX

__all__ = ["is_json_content_type", "is_media_type"]

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"'
#: RFC 2046 / RFC 7231 section 3.1.1.1: ``type "/" subtype *( OWS ";" OWS parameter )``
#: (every repetition starts with a character its neighbours cannot take: linear)
_MEDIA_TYPE = re.compile(
    rf"{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))*[ \t]*"
)
#: media types seen valid (bounded in bytes, see ``CACHE_KEY_MAX``)
_MEDIA_TYPES_OK: set[str] = set()


def is_media_type(text: str) -> bool:
    """Whether ``text`` is an RFC 2046 media type (``type/subtype`` and parameters)."""
    if text in _MEDIA_TYPES_OK:
        return True
    if _MEDIA_TYPE.fullmatch(text) is None:
        return False
    if len(text) <= CACHE_KEY_MAX and len(_MEDIA_TYPES_OK) < 1024:
        _MEDIA_TYPES_OK.add(text)
    return True


_JSON_TYPES: dict[str, bool] = {}


def is_json_content_type(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes JSON (json-format.md section 3.1).

    Absent means JSON; otherwise the media type, stripped of parameters and whitespace,
    compared case-insensitively, must have the form ``*/json`` or ``*/*+json``.
    """
    if content_type is None:
        return True
    known = _JSON_TYPES.get(content_type)
    if known is not None:
        return known
    media = content_type.split(";", 1)[0].strip().lower()
    result = "/" in media and (
        media.endswith("/json") or (media.endswith("+json") and "/" in media[:-5])
    )
    if len(content_type) <= CACHE_KEY_MAX and len(_JSON_TYPES) < 1024:
        _JSON_TYPES[content_type] = result
    return result
