"""What ``xrgen diff`` reports: each change with the mode of its message, and the result of a
comparison."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostics
from .changes import Change, mode_directions

DEFAULT_MODE = "backward"


@dataclass(frozen=True, slots=True)
class Report:
    """A change as printed: its severity follows the mode of its message."""

    change: Change
    mode: str
    breaking: bool

    @property
    def wire(self) -> bool:
        """The change breaks the message's mode on the wire."""
        return self.change.breaking(mode_directions(self.mode))

    @property
    def kind(self) -> str:
        """``breaking`` (an error: it breaks the mode on the wire, or it is an API change and
        ``--api`` is given), ``api`` (a change to the generated Python API, a warning without
        ``--api``) or ``compatible``."""
        if self.breaking:
            return "breaking"
        return "api" if self.change.api else "compatible"

    def line(self) -> str:
        c = self.change
        sev = "error" if self.breaking else "warning"
        return f"{c.file}#{c.pointer}: {sev} {c.code}: {c.text}"

    def as_json(self) -> dict[str, Any]:
        c = self.change
        return {
            "code": c.code,
            "file": c.file,
            "pointer": c.pointer,
            "message": c.message,
            "kind": self.kind,
            "modes": c.modes(),
            "mode": self.mode,
            "api": c.api,
            "text": c.text,
        }


@dataclass(slots=True)
class DiffResult:
    reports: list[Report] = field(default_factory=list)
    #: load/validate errors of either side (nothing was compared when there are any)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: the mode of messages whose schema declares none (``--mode``, the catalog's, or backward)
    mode: str = DEFAULT_MODE

    @property
    def compatible(self) -> bool:
        return not any(r.breaking for r in self.reports)
