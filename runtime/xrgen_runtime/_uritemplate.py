"""RFC 6570 level-1 URI templates: expansion (producers) and linear-time matching (consumers)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import quote, unquote

__all__ = ["EXPANSION", "UriTemplate", "pct_decode", "pct_encode_unreserved"]

_VAR = re.compile(r"\{([^{}]*)\}")
_UNRESERVED_TEXT = re.compile(r"[A-Za-z0-9\-._~]*")
#: what a placeholder's expansion consists of: unreserved characters and ``%XX`` triplets
#: (a single character class: linear, nothing to backtrack)
EXPANSION = re.compile(r"[A-Za-z0-9\-._~%]*")
_EXPANSION_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%"
)


def pct_encode_unreserved(value: str) -> str:
    """Percent-encode every character that is not RFC 3986 *unreserved* (RFC 6570 level 1).

    ``urllib.parse.quote`` with ``safe=""`` keeps exactly the unreserved set (letters, digits,
    ``-._~``) and writes upper-case hex; already-safe values skip it."""
    if _UNRESERVED_TEXT.fullmatch(value):
        return value
    return quote(value, safe="")


def pct_decode(raw: str) -> str | None:
    """A placeholder's expansion with its ``%XX`` triplets decoded (``None``: not UTF-8)."""
    if "%" not in raw:
        return raw
    try:
        return unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None


class UriTemplate:
    """An RFC 6570 level-1 template (``{var}`` simple string expansion only).

    ``expand`` percent-encodes every value; ``match`` is the inverse: it returns the
    percent-decoded placeholder values, or ``None`` when the text does not fit the template.

    Matching takes time linear in the text and uses no backtracking regex. A placeholder's
    expansion consists of unreserved characters and ``%XX`` triplets; the literal text after
    each placeholder is placed at its leftmost occurrence (the gap before it must be such an
    expansion), and the last placeholder takes the rest up to the final literal. Every
    expansion of the template matches. When an expansion is ambiguous (a value contains the
    literal that follows its placeholder, as ``.`` in ``{a}.{b}`` with ``a = "x.y"``), the
    tie-break is *leftmost-shortest*: each placeholder, in order, takes the shortest value that
    lets the rest match (``x.y.z`` gives ``a="x"``, ``b="y.z"``). A template is
    :attr:`unambiguous` when no placeholder is followed by a literal that an expansion may
    contain. A placeholder used twice carries one value: its later occurrences must repeat the
    text of the first, which is matched leftmost-shortest like any other (so an expansion such
    as ``x.y.x.y`` of ``{a}.{a}`` is not found: the only ambiguity a match can miss).
    ``match(text, known)`` matches placeholders whose values are already
    known (from another attribute) as their expansion, which settles an ambiguity that the
    other attribute fixes.
    """

    __slots__ = (
        "text",
        "names",
        "ambiguity",
        "unambiguous",
        "_literals",
        "_slots",
        "_tokens",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str] = []
        names: list[str] = []
        pos = 0
        for m in _VAR.finditer(text):
            parts.append(text[pos : m.start()])
            name = m.group(1)
            parts.append(name)
            if name not in names:
                names.append(name)
            pos = m.end()
        parts.append(text[pos:])
        self.names: tuple[str, ...] = tuple(names)
        #: literal text around the placeholders, and the placeholder of each slot
        self._literals: tuple[str, ...] = tuple(parts[0::2])
        self._slots: tuple[str, ...] = tuple(parts[1::2])
        #: (is placeholder, name or literal text), empty literals left out
        self._tokens: tuple[tuple[bool, str], ...] = tuple(
            (i % 2 == 1, p) for i, p in enumerate(parts) if p or i % 2 == 1
        )
        #: how many placeholders may have several readings: followed by a literal that an
        #: expansion may contain (or by another placeholder), or repeated
        self.ambiguity = (
            len(self._slots)
            - len(names)
            + sum(
                not literal or literal[0] in _EXPANSION_CHARS
                for literal in self._literals[1:-1]
            )
        )
        self.unambiguous = self.ambiguity == 0

    def expand(self, values: Mapping[str, object]) -> str:
        """The template with each placeholder's value percent-encoded; a placeholder without
        a value stays as written."""
        literals = self._literals
        out = [literals[0]]
        for name, literal in zip(self._slots, literals[1:], strict=True):
            if name in values:
                out.append(pct_encode_unreserved(str(values[name])))
            else:
                out.append("{" + name + "}")
            out.append(literal)
        return "".join(out)

    def match(
        self, text: str, known: Mapping[str, str] | None = None
    ) -> dict[str, str] | None:
        """The percent-decoded placeholder values of ``text``; ``None`` when it does not fit.

        ``known``: values of some placeholders fixed elsewhere; ``text`` must carry the same
        values (they are part of the result).
        """
        if known and not known.keys().isdisjoint(self.names):
            fixed = {
                name: pct_encode_unreserved(known[name])
                for name in self.names
                if name in known
            }
            raw = self._split(text, fixed)
            if raw is None:
                # the text may encode a known value in another way (``%2e`` for ``.``)
                raw = self._split(text, {})
            values = _decode_all(raw)
            if values is None or any(
                known.get(name, value) != value for name, value in values.items()
            ):
                return None
            return values
        return _decode_all(self._split(text, {}))

    def _split(self, text: str, fixed: dict[str, str]) -> dict[str, str] | None:
        """The raw (still percent-encoded) text of each placeholder, leftmost-shortest.

        ``fixed``: placeholder -> the expansion it must have (a literal). Linear in ``text``:
        one forward scan (``str.find``) per literal run plus one character-class check per
        placeholder value.
        """
        raw: dict[str, str] = dict(fixed)
        pos = 0
        pending: str | None = (
            None  # the placeholder whose value ends at the next literal
        )
        run: list[str] = []  # literal text since the last free placeholder
        for is_slot, value in self._tokens:
            if not is_slot:
                run.append(value)
                continue
            expansion = raw.get(value)
            if expansion is not None:
                run.append(expansion)  # a repeated or known placeholder: literal text
                continue
            literal = "".join(run)
            run.clear()
            if pending is None:
                if not text.startswith(literal, pos):
                    return None
            else:
                at = text.find(literal, pos)
                if at < 0 or not EXPANSION.fullmatch(text, pos, at):
                    return None
                raw[pending] = text[pos:at]
                pos = at
            pos += len(literal)
            expansion = raw.get(value)
            if expansion is not None:  # the placeholder that just ended, repeated
                run.append(expansion)
                pending = None
            else:
                pending = value
        tail = "".join(run)
        if pending is None:
            return raw if text[pos:] == tail else None
        end = len(text) - len(tail)
        if (
            end < pos
            or not text.endswith(tail)
            or not EXPANSION.fullmatch(text, pos, end)
        ):
            return None
        raw[pending] = text[pos:end]
        return raw

    def __repr__(self) -> str:
        return f"UriTemplate({self.text!r})"


def _decode_all(raw: dict[str, str] | None) -> dict[str, str] | None:
    """Each placeholder's raw text percent-decoded (``None`` if one is not UTF-8)."""
    if raw is None:
        return None
    values: dict[str, str] = {}
    for name, text in raw.items():
        value = pct_decode(text)
        if value is None:
            return None
        values[name] = value
    return values
