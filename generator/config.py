"""Settings: ``[tool.xrgen]`` of a pyproject.toml, validated, with command-line flags on top.

Precedence: a flag given on the command line, else the file's key, else the default. Unknown
keys and values of the wrong type are usage errors naming the key (``ConfigError``, exit 2).
Relative paths in the file (``catalogs``, ``out``) are relative to the file's folder.

Settings that are plainly valid are read without pydantic (the command line starts faster);
anything else goes through the pydantic model ``_model()``, which decides and words the errors.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args, get_type_hints

from .limits import FETCH_TIMEOUT, MAX_DOCUMENT_BYTES

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

#: the file read when ``--config`` is not given (absent: defaults only)
DEFAULT_FILE = "pyproject.toml"


AvroFraming = Literal["plain", "single-object", "confluent"]
_FRAMINGS = frozenset(get_args(AvroFraming))


class ConfigError(Exception):
    """A settings file that cannot be read or does not fit ``Settings`` (a usage error)."""


def _text(v: Any) -> bool:
    return type(v) is str and len(v) > 0


def _positive(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v) and v > 0


def _setting(
    default: Any, plain: Callable[[Any], bool], items: dict[str, Any] | None = None, **rules: Any
) -> Any:
    """A field of ``Settings``: its default (``list``, ``dict``: empty), whether a value is
    plainly valid (read without pydantic), and the rules pydantic's model adds to its type
    (``rules`` on the value, ``items`` on each item of a list)."""
    meta = {"plain": plain, "rules": rules, "items": items or {}}
    if default in (list, dict):
        return field(default_factory=default, metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    """What ``[tool.xrgen]`` may hold; every key is optional. A key is written with ``-`` where
    the name has ``_`` (``fetch-timeout``); the name itself is read too."""

    #: catalog files, split-file folders or http(s) URLs, stacked in order
    catalogs: list[str] = _setting(
        list, lambda v: type(v) is list and all(_text(c) for c in v), items={"min_length": 1}
    )
    #: output folder; the package goes to ``out/package``
    out: str | None = _setting(None, lambda v: v is None or _text(v), min_length=1)
    #: Python package name
    package: str | None = _setting(None, lambda v: v is None or _text(v), min_length=1)
    #: write ``spark.py``
    spark: bool = _setting(True, lambda v: type(v) is bool)
    #: warnings are errors
    strict: bool = _setting(False, lambda v: type(v) is bool)
    #: also write ``out/pyproject.toml``
    pyproject: bool = _setting(False, lambda v: type(v) is bool)
    #: seconds for all fetches of one http(s) source together (docs/limits.md)
    fetch_timeout: float = _setting(FETCH_TIMEOUT, _positive, gt=0)
    #: bytes of one catalog document (a file, an index.json, a URL answer; docs/limits.md)
    max_document_bytes: int = _setting(
        MAX_DOCUMENT_BYTES, lambda v: type(v) is int and v > 0, gt=0
    )
    #: framing of Avro binary payloads: ``plain``, ``single-object`` or ``confluent``
    avro_framing: AvroFraming = _setting("plain", lambda v: v in _FRAMINGS)
    #: per-message framing: message id -> framing
    avro_framing_messages: dict[str, AvroFraming] = _setting(
        dict,
        lambda v: type(v) is dict and all(type(k) is str and m in _FRAMINGS for k, m in v.items()),
    )

    def merged(self, **flags: Any) -> Settings:
        """These settings with every flag the command line gave (``None`` or ``[]``: not
        given) in place of the file's value."""
        given = {k: v for k, v in flags.items() if v is not None and v != []}
        return validated(dataclasses.asdict(self) | given)


def _key(name: str) -> str:
    """The file's spelling of a setting's name."""
    return name.replace("_", "-")


_FIELDS = dataclasses.fields(Settings)
#: the settings' names (a command-line flag is named as its setting)
NAMES = tuple(f.name for f in _FIELDS)
#: the file's spelling of keys written with ``-``
_ALIASES = {_key(f.name): f.name for f in _FIELDS if "_" in f.name}
#: key -> whether a value is plainly valid for it
_PLAIN: dict[str, Callable[[Any], bool]] = {f.name: f.metadata["plain"] for f in _FIELDS}


def validated(data: dict[str, Any]) -> Settings:
    """``Settings`` from a table (keys as the file spells them, or by name); raises pydantic's
    ``ValidationError`` for what does not fit."""
    if isinstance(data.get("catalogs"), str):
        data = {**data, "catalogs": [data["catalogs"]]}
    plain: dict[str, Any] = {}
    for key, value in data.items():
        name = _ALIASES.get(key, key)
        check = _PLAIN.get(name)
        if check is None or name in plain or not check(value):
            break
        plain[name] = float(value) if name == "fetch_timeout" else value
    else:
        return Settings(**plain)
    return Settings(**_model().model_validate(data).model_dump())


@cache
def _model() -> type[BaseModel]:
    """The pydantic model of ``[tool.xrgen]``, made from ``Settings``: the rules, and the
    wording of their errors."""
    from pydantic import ConfigDict, Field, create_model, field_validator

    hints = get_type_hints(Settings)
    fields: dict[str, Any] = {}
    for f in _FIELDS:
        kind, rules, items = hints[f.name], f.metadata["rules"], f.metadata["items"]
        if items:  # a list whose items have rules
            (item,) = get_args(kind)
            kind = list[Annotated[item, Field(**items)]]  # type: ignore[valid-type]
        elif rules and type(None) in get_args(kind):  # an optional value with rules
            (value,) = (a for a in get_args(kind) if a is not type(None))
            kind, rules = Annotated[value, Field(**rules)] | None, {}
        default = (
            Field(default_factory=f.default_factory, **rules)
            if f.default_factory is not dataclasses.MISSING
            else Field(f.default, **rules)
        )
        fields[f.name] = (kind, default)

    def one_or_many(value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    config = ConfigDict(
        extra="forbid", strict=True, frozen=True, populate_by_name=True, alias_generator=_key
    )
    validators = {"_one_or_many": field_validator("catalogs", mode="before")(one_or_many)}
    model: type[BaseModel] = create_model(
        "SettingsModel", __config__=config, __validators__=validators, **fields
    )
    return model


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
        settings = validated(section)
    except Exception as e:  # only pydantic's ValidationError (then pydantic is loaded)
        from pydantic import ValidationError

        if not isinstance(e, ValidationError):
            raise
        raise ConfigError("\n".join(_problems(file, e))) from None
    return _relative_to(settings, file.parent)


def _reason(e: Exception) -> str:
    return e.strerror or str(e) if isinstance(e, OSError) else str(e)


def _problems(file: Path, error: ValidationError) -> list[str]:
    """One ``file: [tool.xrgen] key: problem`` line per error."""
    known = ", ".join(f.alias or name for name, f in _model().model_fields.items())
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

    return dataclasses.replace(
        settings,
        catalogs=[place(c) for c in settings.catalogs],
        out=None if settings.out is None else place(settings.out),
    )
