"""What every diff rule produces: a ``Change`` with the directions it breaks.

Directions: ``backward`` (consumers built from NEW read what producers built from OLD write)
and ``forward`` (consumers built from OLD read what producers built from NEW write). A mode
selects directions: ``full`` is both, ``none`` neither. A change that breaks no selected
direction is a compatible change (a warning).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Direction = Literal["backward", "forward"]

BACKWARD: frozenset[str] = frozenset({"backward"})
FORWARD: frozenset[str] = frozenset({"forward"})
BOTH: frozenset[str] = frozenset({"backward", "forward"})
NEITHER: frozenset[str] = frozenset()

#: mode -> the directions it checks
MODES: dict[str, frozenset[str]] = {
    "backward": BACKWARD,
    "forward": FORWARD,
    "full": BOTH,
    "none": NEITHER,
}


def mode_directions(mode: str) -> frozenset[str]:
    """Directions of a mode; ``_transitive`` variants check the same directions (between two
    versions there is nothing more to check)."""
    return MODES[base_mode(mode)]


def base_mode(mode: str) -> str:
    m = mode.strip().lower()
    return m[: -len("_transitive")] if m.endswith("_transitive") else m


def is_mode(value: object) -> bool:
    return isinstance(value, str) and base_mode(value) in MODES


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between OLD and NEW.

    ``file``/``pointer`` locate it in NEW (for something NEW no longer has: where it was in
    OLD, under NEW's file name). ``message`` is the message id (``None`` for catalog-level
    changes). ``breaks`` are the directions it breaks on the wire; ``api`` marks changes to
    the generated Python API (they break code importing the package, not the wire).
    """

    code: str
    file: str
    pointer: str
    message: str | None
    text: str
    breaks: frozenset[str] = NEITHER
    api: bool = False

    def breaking(self, directions: frozenset[str], api_errors: bool = False) -> bool:
        return bool(self.breaks & directions) or (self.api and api_errors)

    def modes(self) -> list[str]:
        """The modes this change breaks (``full`` whenever it breaks a direction)."""
        out = [d for d in ("backward", "forward") if d in self.breaks]
        return [*out, "full"] if out else []


class Changes:
    """Rules append here; ``at`` fixes the location and message for a group of rules."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Change] = []

    def add(
        self,
        code: str,
        file: str,
        pointer: str,
        message: str | None,
        text: str,
        breaks: frozenset[str] = NEITHER,
        api: bool = False,
    ) -> None:
        self.items.append(Change(code, file, pointer, message, text, breaks, api))

    def extend(self, items: Iterable[Change]) -> None:
        self.items.extend(items)

    def sorted(self) -> list[Change]:
        seen: set[Change] = set()
        out: list[Change] = []
        for c in sorted(
            self.items, key=lambda c: (c.file, c.pointer, c.code, c.message or "", c.text)
        ):
            if c not in seen:
                seen.add(c)
                out.append(c)
        return out


@dataclass(frozen=True, slots=True)
class Finding:
    """A schema-level difference, relative to the schema's root (``path`` is a JSON Pointer
    inside the schema document); the caller places it at the schema's location."""

    code: str
    path: str
    text: str
    breaks: frozenset[str] = NEITHER
