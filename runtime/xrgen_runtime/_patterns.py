"""URI templates prepared for matching many values: placeholder values into ``params``."""

from __future__ import annotations

import re

from ._limits import CACHE_KEY_MAX
from ._uritemplate import EXPANSION, UriTemplate, pct_decode

__all__ = ["Pattern", "pattern"]

#: how many values all patterns together remember (see ``Pattern.fill``); with keys of at most
#: ``CACHE_KEY_MAX`` characters this bounds the memory whatever the wire brings
SEEN_MAX = 1 << 14
_seen_room = SEEN_MAX


class Pattern:
    """A ``UriTemplate`` prepared for matching many values (placeholders into ``params``).

    Matching is linear in the value (see ``UriTemplate``). A template with one placeholder
    (most of them) uses a regex ``head([unreserved%]*)tail``: one character class between
    two fixed literals cannot backtrack more than ``len(tail)`` per character, and it is the
    fastest check CPython has. Its readings are remembered (``seen``: text -> value, ``None``
    where the text does not fit): the same ``source`` comes again and again from one device
    or service, and a dict lookup is several times cheaper than the regex.
    """

    __slots__ = ("template", "names", "unambiguous", "single", "seen")

    def __init__(self, text: str) -> None:
        self.template = UriTemplate(text)
        self.names = self.template.names
        self.unambiguous = self.template.unambiguous
        literals = self.template._literals
        self.single: re.Pattern[str] | None = None
        self.seen: dict[str, str | None] = {}
        if len(literals) == 2:
            self.single = re.compile(
                re.escape(literals[0])
                + EXPANSION.pattern.join(("(", ")"))
                + re.escape(literals[1])
            )

    def fill(self, text: str, params: dict[str, str]) -> bool:
        """Add the percent-decoded placeholder values of ``text`` to ``params``.

        ``False`` when ``text`` does not fit, is not UTF-8 after decoding, or a placeholder
        already in ``params`` has a different value.
        """
        single = self.single
        if single is not None:
            seen = self.seen
            value = seen.get(text)
            if value is None and text not in seen:
                value = self._read_single(single, text)
                global _seen_room
                if _seen_room > 0 and len(text) <= CACHE_KEY_MAX:
                    _seen_room -= 1
                    seen[text] = value
            return (
                value is not None and params.setdefault(self.names[0], value) == value
            )
        found = self.template.match(text, params)
        if found is None:
            return False
        params.update(found)
        return True

    @staticmethod
    def _read_single(single: re.Pattern[str], text: str) -> str | None:
        """The value of a one-placeholder template's placeholder in ``text``, percent-decoded;
        ``None`` when ``text`` does not fit or is not UTF-8 after decoding."""
        m = single.fullmatch(text)
        if m is None:
            return None
        raw = m.group(1)
        return pct_decode(raw) if "%" in raw else raw


#: one ``Pattern`` per distinct template text: catalogs repeat templates across messages (a
#: group's ``source``), and sharing the compiled regex keeps a 10,000-message dispatcher small
#: (faster to build, and matching touches fewer objects, so the per-message cost stays flat)
_PATTERNS: dict[str, Pattern] = {}


def pattern(text: str) -> Pattern:
    found = _PATTERNS.get(text)
    if found is None:
        found = _PATTERNS[text] = Pattern(text)
    return found
