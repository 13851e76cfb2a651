"""Identifier policy: how catalog ids become Python names. Pure functions.

Rules (DESIGN.md section 6):
- words are split on non-alphanumerics, camelCase humps and letter/digit boundaries kept;
- snake_case for functions/parameters, PascalCase for classes;
- non-ASCII letters are transliterated when they decompose to ASCII (é -> e), otherwise dropped;
- Python keywords, soft keywords and builtins get a trailing ``_``;
- a leading digit gets a prefix (``n`` for snake, ``N`` for Pascal);
- an empty result becomes ``x`` / ``X``;
- collisions inside one namespace get ``_2``, ``_3``... (``Scope.claim`` reports them so the
  caller can warn). The wire name always stays available as the alias.
"""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata

_RESERVED = (
    frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | frozenset(n for n in dir(builtins) if not n.startswith("_"))
)
_SPLIT = re.compile(r"[^0-9A-Za-z]+")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def ascii_fold(text: str) -> str:
    """Transliterate to ASCII where a character decomposes to ASCII; drop the rest."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isascii())


def words(text: str) -> list[str]:
    """Split ``text`` into words: separators, camel humps and digit runs."""
    out: list[str] = []
    for chunk in _SPLIT.split(ascii_fold(text)):
        if chunk:
            out.extend(_HUMP.findall(chunk))
    return out


def _guard(name: str, digit_prefix: str, empty: str) -> str:
    if not name:
        return empty
    if name[0].isdigit():
        name = digit_prefix + name
    if name in _RESERVED:
        name += "_"
    return name


def snake(text: str) -> str:
    """``com.acme.ReadingV2`` -> ``com_acme_reading_v2``; keywords get ``_``."""
    return _guard("_".join(w.lower() for w in words(text)), "n", "x")


def pascal(text: str) -> str:
    """``com.acme.base`` -> ``ComAcmeBase``."""
    return _guard("".join(w[:1].upper() + w[1:] for w in words(text)), "N", "X")


def last_segment(message_id: str) -> str:
    """The last dot-separated segment of an id that has a non-empty one, else the id."""
    for part in reversed(message_id.split(".")):
        if words(part):
            return part
    return message_id


def short_names(ids: list[str]) -> dict[str, str]:
    """Each id's shortest tail of dot-separated segments that no other id ends with
    (``kafka.orders.in`` and ``amqp.orders.in`` -> ``kafka.orders.in``/``amqp.orders.in``,
    ``ep.nats.producer`` beside ``ep.nats.consumer`` -> ``producer``); segments are compared
    by their words, as their snake form would be. An id that is a tail of another keeps all
    its segments. Linear in the segments: a tail is numbered from its one-shorter tail."""
    segments = {i: [s for s in i.split(".") if words(s)] or [i] for i in ids}
    #: (number of the one-shorter tail, words of the next segment) -> number of the tail
    numbers: dict[tuple[int, tuple[str, ...]], int] = {}
    tail = dict.fromkeys(segments, 0)
    out: dict[str, str] = {}
    pending = list(segments)
    k = 1
    while pending:
        groups: dict[int, list[str]] = {}
        for i in pending:
            key = (tail[i], tuple(w.lower() for w in words(segments[i][-k])))
            tail[i] = numbers.setdefault(key, len(numbers) + 1)
            groups.setdefault(tail[i], []).append(i)
        pending = []
        for members in groups.values():
            for i in members:
                if len(members) == 1 or len(segments[i]) <= k:
                    out[i] = ".".join(segments[i][-k:])
                else:
                    pending.append(i)
        k += 1
    return out


class Scope:
    """A namespace of Python names; ``claim`` makes a name unique with ``_2``, ``_3``..."""

    __slots__ = ("_taken",)

    def __init__(self, reserved: tuple[str, ...] | frozenset[str] = ()) -> None:
        self._taken: set[str] = set(reserved)

    def claim(self, name: str) -> tuple[str, bool]:
        """Return ``(unique_name, collided)``."""
        unique, taken = self.claim_family(name, ("{}",))
        return unique, taken is not None

    def claim_family(self, stem: str, forms: tuple[str, ...]) -> tuple[str, str | None]:
        """Claim ``form.format(stem)`` for every form, all with one suffix: ``stem``, else the
        first ``stem_2``, ``stem_3``... that leaves every form free.

        Return ``(unique_stem, taken)``: ``taken`` is the first form whose name of ``stem`` was
        already taken (None when every one was free), for the caller's warning.
        """
        taken = next((f for f in forms if f.format(stem) in self._taken), None)
        unique, n = stem, 2
        while any(f.format(unique) in self._taken for f in forms):
            unique = f"{stem}_{n}"
            n += 1
        self._taken.update(f.format(unique) for f in forms)
        return unique, taken

    def __contains__(self, name: str) -> bool:
        return name in self._taken
