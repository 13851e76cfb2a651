"""Output kinds. Each module has ``plan(catalog, target) -> list[OutputFile]``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..options import Options

if TYPE_CHECKING:
    from ..runtime_info import RuntimeInfo


@dataclass(frozen=True, slots=True)
class Target:
    """The package the targets plan: its name, the catalogs it comes from, the run's options,
    the xrgen version it needs of the runtime, and the installed runtime."""

    package: str
    #: display names of the catalogs for the DO-NOT-EDIT header
    catalog_names: tuple[str, ...]
    options: Options = field(default_factory=Options)
    version: str = "0"
    #: the installed xrgen-runtime (scanned on first use when not given)
    runtime: RuntimeInfo | None = None

    def runtime_info(self) -> RuntimeInfo:
        """``runtime``, or the installed xrgen-runtime's scan."""
        if self.runtime is not None:
            return self.runtime
        from ..runtime_info import scan

        return scan()


@dataclass(frozen=True, slots=True)
class OutputFile:
    """A file of the generated package: rendered from ``template`` with ``context``, or
    ``text`` as is (``py.typed``, ``models.py``, the modules protoc compiled); ``python`` files
    go through black."""

    path: PurePosixPath
    template: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    python: bool = True
    #: not to be formatted (the modules protoc compiled): skip the formatter
    preformatted: bool = False
