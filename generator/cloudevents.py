"""CloudEvents 1.0 facts the generator stages share: the envelope name and its spellings, the
core context attributes (names, xRegistry types, which are required, which a catalog may leave
open), and the registry base of a catalog read over http(s) (relative ``dataschema`` values are
read against it)."""

from __future__ import annotations

from typing import Any

#: the envelope as the current xRegistry spelling names it
CLOUDEVENTS = "CloudEvents/1.0"


def is_cloudevents(s: Any) -> bool:
    """True for ``CloudEvents/1.0`` in any letter case (and bare ``CloudEvents``)."""
    if not isinstance(s, str):
        return False
    name, _, version = s.strip().lower().partition("/")
    return name.strip() == "cloudevents" and version.strip() in ("", "1.0", "1")
