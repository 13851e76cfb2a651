"""Payload rules: schema added or removed, schema format, then the format's own rules
(``jsonschema``, ``avro``, ``protobuf``, ``jsonstructure``). A payload schema added constrains what NEW consumers
accept (backward); removed, what OLD consumers accepted is no longer promised (forward); a
format changed means another codec (both); a format version changed alone is compatible."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import formats
from ..model.resolved import ResolvedSchema
from .changes import BACKWARD, BOTH, FORWARD, NEITHER, Finding


def split_location(location: str) -> tuple[str, str]:
    file, _, ptr = location.partition("#")
    return file, ptr


class PayloadComparer:
    """Compares resolved payload schemas; identical pairs (shared schemas) are compared once."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, int], list[Finding]] = {}

    def compare(
        self, old: ResolvedSchema | None, new: ResolvedSchema | None
    ) -> list[tuple[str | None, Finding]]:
        """Findings, each with the NEW schema location it is relative to (``None``: relative
        to the message)."""
        if old is None and new is None:
            return []
        if old is None:
            assert new is not None
            return [
                (
                    None,
                    Finding(
                        "XRG543", "/dataschema", f"payload schema added ({new.family})", BACKWARD
                    ),
                )
            ]
        if new is None:
            return [
                (
                    None,
                    Finding(
                        "XRG544",
                        "/dataschema",
                        f"payload schema removed (was {old.family})",
                        FORWARD,
                    ),
                )
            ]
        if old.family != new.family:
            return [
                (
                    None,
                    Finding(
                        "XRG541",
                        "/dataschemaformat",
                        f"schema format changed from {old.format or old.family!r} to {new.format or new.family!r}",
                        BOTH,
                    ),
                )
            ]
        out: list[tuple[str | None, Finding]] = []
        if (old.format or "").lower() != (new.format or "").lower() and old.format and new.format:
            out.append(
                (
                    None,
                    Finding(
                        "XRG542",
                        "/dataschemaformat",
                        f"schema format version changed from {old.format!r} to {new.format!r}",
                        NEITHER,
                    ),
                )
            )
        key = (id(old.schema), id(new.schema))
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = schema_findings(new.family, old.schema, new.schema)
        out.extend((new.location, f) for f in found)
        return out


def schema_findings(family: str, old: Any, new: Any) -> list[Finding]:
    try:
        return [] if old == new else _schema_findings(family, old, new)
    except RecursionError:
        text = f"the {family} schema changed and is nested too deeply to compare; not checked"
        return [Finding("XRG545", "", text, NEITHER)]


def _schema_findings(family: str, old: Any, new: Any) -> list[Finding]:
    rules = _RULES.get(family)
    if rules is None:
        text = f"the {family} schema changed; its format is not checked"
        return [Finding("XRG545", "", text, NEITHER)]
    return rules(old, new)


def _json_rules(old: Any, new: Any) -> list[Finding]:
    from .jsonschema import compare_json

    return compare_json(old, new)


def _avro_rules(old: Any, new: Any) -> list[Finding]:
    from .avro import compare_avro

    return compare_avro(old, new)


def _structure_rules(old: Any, new: Any) -> list[Finding]:
    from .jsonstructure import compare_structure

    return compare_structure(old, new)


def _protobuf_rules(old: Any, new: Any) -> list[Finding]:
    from .protobuf import compare_protobuf

    return compare_protobuf(old, new)


#: format family -> the rules of its module here, loaded on first use
_RULES: dict[str, Callable[[Any, Any], list[Finding]]] = {
    formats.jsonschema.NAME: _json_rules,
    formats.avro.NAME: _avro_rules,
    formats.jsonstructure.NAME: _structure_rules,
    formats.protobuf.NAME: _protobuf_rules,
}
