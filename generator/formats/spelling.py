"""Schema format strings as catalogs spell them -> the format family and its version."""

from __future__ import annotations

import re
from functools import lru_cache

from . import family

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
