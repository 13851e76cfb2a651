"""Settings: ``[tool.xrgen]`` of a pyproject.toml, validated, with command-line flags on top.

Precedence: a flag given on the command line, else the file's key, else the default. Unknown
keys and values of the wrong type are usage errors naming the key (``ConfigError``, exit 2).
Relative paths in the file (``catalogs``, ``out``) are relative to the file's folder.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .limits import FETCH_TIMEOUT, MAX_DOCUMENT_BYTES

#: the file read when ``--config`` is not given (absent: defaults only)
DEFAULT_FILE = "pyproject.toml"


AvroFraming = Literal["plain", "single-object", "confluent"]


class ConfigError(Exception):
    """A settings file that cannot be read or does not fit ``Settings`` (a usage error)."""


class Settings(BaseModel):
    """What ``[tool.xrgen]`` may hold; every key is optional."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    #: catalog files, split-file folders or http(s) URLs, stacked in order
    catalogs: list[Annotated[str, Field(min_length=1)]] = []
    #: output folder; the package goes to ``out/package``
    out: Annotated[str, Field(min_length=1)] | None = None
    #: Python package name
    package: Annotated[str, Field(min_length=1)] | None = None
    #: write ``spark.py``
    spark: bool = True
    #: warnings are errors
    strict: bool = False
    #: also write ``out/pyproject.toml``
    pyproject: bool = False
    #: seconds for all fetches of one http(s) source together (docs/limits.md)
    fetch_timeout: Annotated[float, Field(gt=0, alias="fetch-timeout")] = FETCH_TIMEOUT
    #: bytes of one catalog document (a file, an index.json, a URL answer; docs/limits.md)
    max_document_bytes: Annotated[int, Field(gt=0, alias="max-document-bytes")] = MAX_DOCUMENT_BYTES
    #: framing of Avro binary payloads: ``plain``, ``single-object`` or ``confluent``
    avro_framing: Annotated[AvroFraming, Field(alias="avro-framing")] = "plain"
    #: per-message framing: message id -> framing
    avro_framing_messages: Annotated[
        dict[str, AvroFraming], Field(alias="avro-framing-messages")
    ] = {}

    @field_validator("catalogs", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def merged(self, **flags: Any) -> Settings:
        """These settings with every flag the command line gave (``None`` or ``[]``: not
        given) in place of the file's value."""
        given = {k: v for k, v in flags.items() if v is not None and v != []}
        return Settings.model_validate(self.model_dump() | given)


def load(path: str | None) -> Settings:
    """``[tool.xrgen]`` of ``path`` (default ``pyproject.toml``, which may be absent)."""
    file = Path(DEFAULT_FILE if path is None else path)
    if path is None and not file.is_file():
        return Settings()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{file}: cannot read [tool.xrgen]: {_reason(e)}") from e
    tool = data.get("tool", {})
    section = tool.get("xrgen", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict):
        raise ConfigError(f"{file}: [tool.xrgen] must be a table, got {section!r}")
    try:
        settings = Settings.model_validate(section)
    except ValidationError as e:
        raise ConfigError("\n".join(_problems(file, e))) from None
    return _relative_to(settings, file.parent)


def _reason(e: Exception) -> str:
    return e.strerror or str(e) if isinstance(e, OSError) else str(e)


def _problems(file: Path, error: ValidationError) -> list[str]:
    """One ``file: [tool.xrgen] key: problem`` line per error."""
    known = ", ".join(f.alias or name for name, f in Settings.model_fields.items())
    out = []
    for err in error.errors():
        key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])[1:]
        if err["type"] == "extra_forbidden":
            problem = f"unknown key (known: {known})"
        else:
            problem = f"{err['msg'][0].lower()}{err['msg'][1:]}, got {err['input']!r}"
        out.append(f"{file}: [tool.xrgen] {key}: {problem}")
    return out


def _relative_to(settings: Settings, folder: Path) -> Settings:
    """Relative paths of the file made relative to its folder (kept as written when that is
    the current folder, so diagnostics and headers name them as the file does)."""
    if folder.resolve() == Path.cwd().resolve():
        return settings

    def place(p: str) -> str:
        return p if "://" in p or os.path.isabs(p) else os.path.join(folder, p)

    return settings.model_copy(
        update={
            "catalogs": [place(c) for c in settings.catalogs],
            "out": None if settings.out is None else place(settings.out),
        }
    )
