"""URI templates prepared for matching many values: placeholder values into ``params``."""

from __future__ import annotations

import re

from ._uritemplate import EXPANSION, UriTemplate, pct_decode

__all__ = ["Pattern", "pattern"]


class Pattern:
    """A ``UriTemplate`` prepared for matching many values (placeholders into ``params``).

    Matching is linear in the value (see ``UriTemplate``). A template with one placeholder
    (most of them) uses a regex ``head([unreserved%]*)tail``: one character class between
    two fixed literals cannot backtrack more than ``len(tail)`` per character, and it is the
    fastest check CPython has.
    """

    __slots__ = ("template", "names", "unambiguous", "single")

    def __init__(self, text: str) -> None:
        self.template = UriTemplate(text)
        self.names = self.template.names
        self.unambiguous = self.template.unambiguous
        literals = self.template._literals
        self.single: re.Pattern[str] | None = None
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
            m = single.fullmatch(text)
            if m is None:
                return False
            raw = m.group(1)
            value = pct_decode(raw) if "%" in raw else raw
            return (
                value is not None and params.setdefault(self.names[0], value) == value
            )
        found = self.template.match(text, params)
        if found is None:
            return False
        params.update(found)
        return True


#: one ``Pattern`` per distinct template text: catalogs repeat templates across messages (a
#: group's ``source``), and sharing the compiled regex keeps a 10,000-message dispatcher small
#: (faster to build, and matching touches fewer objects, so the per-message cost stays flat)
_PATTERNS: dict[str, Pattern] = {}


def pattern(text: str) -> Pattern:
    found = _PATTERNS.get(text)
    if found is None:
        found = _PATTERNS[text] = Pattern(text)
    return found
