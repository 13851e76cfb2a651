"""The closest known name to a misspelled one, for the "did you mean" of diagnostics (pure).

Names are compared the way catalog authors misspell them: first ignoring case and the
separators ``-``, ``_``, ``.`` and spaces (``protocolOptions``, ``protocol_options`` and
``protocoloptions`` are one name), then by similarity of the lower-case text (``schemaformatr``
is close to ``dataschemaformat``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

_SEPARATORS = re.compile(r"[-_.\s]")


def squash(name: str) -> str:
    """``link_properties``, ``LinkProperties`` and ``link.properties`` -> ``linkproperties``."""
    return _SEPARATORS.sub("", name).lower()


def same_name(name: str, known: Iterable[str]) -> str | None:
    """The known name ``name`` spells in another case or with other separators, if any."""
    wanted = squash(name)
    for candidate in known:
        if squash(candidate) == wanted:
            return candidate
    return None


def closest(name: str, known: Iterable[str], cutoff: float = 0.8) -> str | None:
    """The known name closest to ``name`` (``same_name`` first), ``None`` when none is close."""
    names = sorted(set(known))
    found = same_name(name, names)
    if found is not None:
        return found
    lowered = {n.lower(): n for n in names}
    match = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[match[0]] if match else None


def did_you_mean(name: str, known: Iterable[str], cutoff: float = 0.8) -> str:
    """``" (did you mean 'x'?)"`` for the closest known name, else ``""``."""
    found = closest(name, known, cutoff)
    return f" (did you mean {found!r}?)" if found is not None else ""
