"""Schema format strings as catalogs spell them -> the format family and its version."""

from __future__ import annotations

import re
from functools import lru_cache

from ..suggest import closest
from . import FORMATS, family, get

#: format names xrgen reads without modeling them (their payloads stay bytes, XRG152): never
#: a misspelling of another format
_UNMODELED = {"jsonstructure": "JsonStructure", "json-structure": "JsonStructure"}

_DRAFT_RE = re.compile(r"^(?:draft[-/_ ]?)?0?(\d)$|^(?:draft[-/_ ]?)?(20\d\d-\d\d)$")


@lru_cache(maxsize=1024)
def split_format(s: str) -> tuple[str, str]:
    """``(name, version)`` of a format string, lower case, stripped."""
    name, _, version = s.strip().lower().partition("/")
    return name.strip(), version.strip()


def schema_format_family(s: str | None) -> str | None:
    """The family id (``"json"``, ``"avro"``, ``"protobuf"``, ``"xsd"``, ``"jsonstructure"``:
    see ``formats``) of a schema format string in any common spelling (``JsonSchema/draft-07``,
    ``JSONSchema/Draft-07``, ``jsonschema``, ``AVRO/1.11``, ``Proto/3``, ``XSD/1.1``,
    ``JsonStructure/draft-04``, ``JSONStructure/draft-02``, ...); ``None`` for other formats or
    no string."""
    if not isinstance(s, str) or not s.strip():
        return None
    name, _ = split_format(s)
    return family(name)


def schema_format_version(s: str | None) -> str | None:
    """The normalized version of a schema format string, or ``None`` when it has none.

    JSON Schema: ``draft-04`` ... ``draft-07``, ``2019-09``, ``2020-12`` (``draft/2020-12``,
    ``Draft-07``, ``draft7`` all recognized). Protobuf: the syntax major (``"3"`` for
    ``Protobuf/3.0`` or ``proto3``). Avro and others: the version text as written.
    """
    if not isinstance(s, str) or not s.strip():
        return None
    family_id = schema_format_family(s)
    name, version = split_format(s)
    if family_id == "protobuf" and name in ("proto3", "proto2"):
        return name[-1]
    if not version:
        return None
    if family_id == "json":
        m = _DRAFT_RE.match(version.replace("draft/", ""))
        if m:
            return f"draft-0{m.group(1)}" if m.group(1) else m.group(2)
        return version
    if family_id == "protobuf":
        return version.split(".", 1)[0]
    return s.strip().partition("/")[2].strip()


def format_problem(s: str) -> str | None:
    """Why a schema format string of a format xrgen knows is not spelled as xRegistry defines
    it (``<NAME>/<VERSION>``): a data format's name (``JSON``), no version, or a version xrgen
    does not know (``JsonSchema/draft-99``); ``None`` when it is fine (warning XRG148).
    """
    fam = schema_format_family(s)
    mod = get(fam)
    if mod is None:
        return None
    name, version = split_format(s)
    title, canonical, example = mod.TITLE, mod.FORMAT, mod.EXAMPLE
    if name in mod.DATA_NAMES:
        return (
            f"schema format {s!r} names a data format, not a schema language; read as"
            f" {title} ('{canonical}/<version>', e.g. {example!r})"
        )
    normalized = schema_format_version(s)
    if normalized is None:
        return f"schema format {s!r} has no version ('{canonical}/<version>', e.g. {example!r})"
    known = mod.VERSIONS
    if known is not None and not re.fullmatch(known, normalized):
        return (
            f"{title} version {version!r} is not one xrgen knows (e.g. {example!r}); read as"
            f" {title} without a version"
        )
    return None


def format_hint(s: str) -> str:
    """``" (did you mean 'JsonSchema'?)"`` for an unsupported format name close to a known
    one (``Jsn/1``), else ``""``."""
    name, _ = split_format(s)
    names = {
        sp: m.FORMAT
        for m in FORMATS.values()
        for sp in m.SPELLINGS
    }
    names.update(_UNMODELED)
    if name in names:
        return ""
    near = closest(name, names, cutoff=0.6)
    return f" (did you mean {names[near]!r}?)" if near is not None else ""
