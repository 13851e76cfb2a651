"""Diagnostics shared by every stage: ``file#/json/pointer: error|warning XRGnnn: message``.

Codes are stable; the table lives in docs/diagnostics.md. XRG1xx load/validate, XRG2xx resolve,
XRG3xx build/naming, XRG9xx internal. Severities: an ``error`` fails the run; a ``warning`` is a
problem xrgen worked around (an error under ``--strict``); a ``note`` tells what xrgen read in a
way the catalog allows (an extension attribute kept unread, a group's envelope taken by a
message): never an error, ``--strict`` included.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "note"]


def pointer_escape(token: str) -> str:
    """Escape one JSON Pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """Build a JSON Pointer from unescaped tokens: ``pointer("a", "b/c") == "/a/b~1c"``."""
    return "".join("/" + pointer_escape(str(t)) for t in tokens)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    file: str
    pointer: str
    message: str

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}"

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer}: {self.severity} {self.code}: {self.message}"


class Diagnostics:
    """An ordered collector. Stages append; nothing stops at the first problem."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Diagnostic] = ()) -> None:
        self.items: list[Diagnostic] = list(items)

    def error(self, code: str, file: str, ptr: str, message: str) -> None:
        self.items.append(Diagnostic("error", code, file, ptr, message))

    def warning(self, code: str, file: str, ptr: str, message: str) -> None:
        self.items.append(Diagnostic("warning", code, file, ptr, message))

    def note(self, code: str, file: str, ptr: str, message: str) -> None:
        self.items.append(Diagnostic("note", code, file, ptr, message))

    def extend(self, other: Iterable[Diagnostic]) -> None:
        self.items.extend(other)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def strict(self) -> Diagnostics:
        """Warnings promoted to errors (``--strict``); notes stay notes."""
        return Diagnostics(
            d if d.severity == "note" else Diagnostic("error", d.code, d.file, d.pointer, d.message)
            for d in self.items
        )

    def sorted(self) -> list[Diagnostic]:
        """Stable order for output: by file, then pointer, then code (dedup exact repeats)."""
        seen: set[Diagnostic] = set()
        out: list[Diagnostic] = []
        for d in sorted(self.items, key=lambda d: (d.file, d.pointer, d.code, d.message)):
            if d not in seen:
                seen.add(d)
                out.append(d)
        return out

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)
