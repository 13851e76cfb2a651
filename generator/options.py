"""What a run is asked to do, in one frozen object: built once (the command line from its flags
over ``[tool.xrgen]``, ``api.generate`` and ``api.check`` from their keyword arguments) and
passed whole to every stage that reads a setting. The run cache keys on ``dump()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .limits import Limits

if TYPE_CHECKING:
    from .config import Settings


@dataclass(frozen=True, slots=True)
class Options:
    #: warnings are errors
    strict: bool = False
    #: write ``spark.py``
    spark: bool = True
    #: also write ``pyproject.toml`` beside the package
    pyproject: bool = False
    #: framing of Avro binary payloads (``plain``, ``single-object``, ``confluent``) and
    #: per-message overrides (message id, framing), sorted by message id
    avro_framing: str = "plain"
    avro_framing_messages: tuple[tuple[str, str], ...] = ()
    #: resource limits of the load stage
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def of(
        cls,
        *,
        strict: bool = False,
        spark: bool = True,
        pyproject: bool = False,
        avro_framing: str = "plain",
        avro_framing_messages: Mapping[str, str] | None = None,
        limits: Limits | None = None,
    ) -> Options:
        """The options of ``api.generate``'s and ``api.check``'s keyword arguments."""
        return cls(
            strict,
            spark,
            pyproject,
            avro_framing,
            tuple(sorted((avro_framing_messages or {}).items())),
            limits if limits is not None else Limits(),
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Options:
        """The options of ``[tool.xrgen]`` settings with the command line's flags on top."""
        return cls.of(
            strict=settings.strict,
            spark=settings.spark,
            pyproject=settings.pyproject,
            avro_framing=settings.avro_framing,
            avro_framing_messages=settings.avro_framing_messages,
            limits=Limits(
                max_document_bytes=settings.max_document_bytes,
                fetch_timeout=settings.fetch_timeout,
            ),
        )

    def dump(self) -> str:
        """Every setting as text: what the run cache keys on."""
        return repr(self)
