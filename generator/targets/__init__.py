"""Output kinds. Each module has ``plan(catalog, options) -> list[OutputFile]``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runtime_info import RuntimeInfo


@dataclass(frozen=True, slots=True)
class Options:
    package: str
    #: display names of the catalogs for the DO-NOT-EDIT header
    catalog_names: tuple[str, ...]
    spark: bool = True
    pyproject: bool = False
    version: str = "0"
    #: framing of Avro binary payloads (``plain``, ``single-object``, ``confluent``) and
    #: per-message overrides (message id, framing)
    avro_framing: str = "plain"
    avro_framing_messages: tuple[tuple[str, str], ...] = ()
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
