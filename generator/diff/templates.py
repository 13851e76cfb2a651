"""Values of attributes and protocol options: constants and RFC 6570 level-1 templates.

Consumers match a template as a pattern (literal text, with each placeholder one
percent-encoded segment), so any change to the literal text or to the number or position of
placeholders makes the events of one side miss the pattern of the other: it breaks both
directions. A placeholder renamed in place matches the same events; only the name under which
the consumer hands the value over (and the producer's keyword argument) changes.
"""

from __future__ import annotations

import re

from .changes import BOTH, NEITHER, Finding

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def skeleton(text: str) -> tuple[str, tuple[str, ...]]:
    """The template's literal text with each placeholder as ``{}``, and the placeholder
    names in order."""
    names = tuple(_PLACEHOLDER.findall(text))
    return _PLACEHOLDER.sub("{}", text), names


def compare_value(
    what: str,
    old: str | int | bool,
    new: str | int | bool,
    const_code: str = "XRG510",
) -> list[Finding]:
    """Findings for a value that both sides set (``path`` left empty for the caller)."""
    if old == new and type(old) is type(new):
        return []
    if isinstance(old, str) and isinstance(new, str) and ("{" in old or "{" in new):
        return compare_template(what, old, new)
    return [Finding(const_code, "", f"{what} changed from {old!r} to {new!r}", BOTH)]


def compare_template(what: str, old: str, new: str) -> list[Finding]:
    old_skel, old_names = skeleton(old)
    new_skel, new_names = skeleton(new)
    if old_skel == new_skel:
        renamed = [(a, b) for a, b in zip(old_names, new_names, strict=True) if a != b]
        text = ", ".join(f"{{{a}}} -> {{{b}}}" for a, b in renamed)
        return [
            Finding(
                "XRG523",
                "",
                f"{what} template {old!r} -> {new!r}: placeholder renamed ({text}); the same"
                " events match",
                NEITHER,
            )
        ]
    out: list[Finding] = []
    added = [n for n in new_names if n not in old_names]
    removed = [n for n in old_names if n not in new_names]
    if added:
        names = ", ".join("{" + n + "}" for n in added)
        out.append(
            Finding(
                "XRG521", "", f"{what} template {old!r} -> {new!r}: placeholder {names} added", BOTH
            )
        )
    if removed:
        names = ", ".join("{" + n + "}" for n in removed)
        out.append(
            Finding(
                "XRG522",
                "",
                f"{what} template {old!r} -> {new!r}: placeholder {names} removed",
                BOTH,
            )
        )
    if not out:
        out.append(
            Finding("XRG520", "", f"{what} template {old!r} -> {new!r}: literal text changed", BOTH)
        )
    return out
