"""What ``generate`` and ``check`` return: the file map and the diagnostics (a light module:
the command line hands back a cached run without importing the pipeline)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .diagnostics import Diagnostics


@dataclass(slots=True)
class Result:
    files: dict[PurePosixPath, str] = field(default_factory=dict)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    #: the unexpected exception reported as XRG90x, for ``--debug``
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return not self.diagnostics.has_errors
