"""The endpoint model's values: ``Authorization`` (authorization metadata, never a
credential), option values made immutable (``freeze``) and the ``{placeholder}`` names in
them (``VAR``, ``placeholders_of``). ``_model`` builds endpoints from them and ``_resolve``
fills them per call; neither imports the other for them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["VAR", "Authorization", "freeze", "placeholders_of"]

#: ``{name}``: an RFC 6570 level-1 expression (as ``_uritemplate.UriTemplate`` reads it)
VAR = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True, slots=True)
class Authorization:
    """One ``protocoloptions.authorization`` entry: metadata only, never a credential."""

    #: ``"OAuth2"``, ``"Plain"``, ``"SASL"``, ``"X509Cert"``, ``"APIKey"`` or another value
    type: str | None = None
    #: SASL mechanism (``type`` ``"SASL"``), e.g. ``"SCRAM-SHA-256"``
    mechanism: str | None = None
    resourceuri: str | None = None
    authorityuri: str | None = None

    def describe(self) -> str:
        """``"SASL SCRAM-SHA-256"``: the type and mechanism, for messages."""
        parts = [p for p in (self.type, self.mechanism) if p]
        return " ".join(parts) if parts else "unspecified"


def freeze(value: Any) -> Any:
    """A JSON value made immutable: objects become read-only mappings, arrays tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def placeholders_of(value: Any, found: set[str]) -> set[str]:
    """Add the placeholder names in a JSON value (strings, array items, map keys and values)."""
    if isinstance(value, str):
        found.update(VAR.findall(value))
    elif isinstance(value, Mapping):
        for k, v in value.items():
            placeholders_of(k, found)
            placeholders_of(v, found)
    elif isinstance(value, tuple | list):
        for v in value:
            placeholders_of(v, found)
    return found
