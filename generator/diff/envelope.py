"""Envelope rules: the envelope itself, CloudEvents attributes (constants, templates, required
extension attributes, types) and the content type.

Why each rule breaks what it breaks (docs/diff.md has the table):
- a constant (``type``, ``specversion``, an extension with a ``value``) changed: consumers match
  constants, so events of either side miss the other side's definition (both directions);
- a constant fixed where the attribute was free: OLD producers wrote any value, NEW consumers
  only accept the constant (backward); freed: NEW producers write any value, OLD consumers only
  accept the constant (forward);
- a required attribute added: OLD producers do not send it and NEW consumers require it
  (backward); removed or made optional: NEW producers may omit it and OLD consumers require it
  (forward); optional attributes come and go freely;
- an attribute's type changed: the canonical values differ on both sides (both);
- the content type changed: the codec that decodes the payload differs (both).
"""

from __future__ import annotations

from ..diagnostics import pointer as ptr
from ..model import ir
from .changes import BACKWARD, BOTH, FORWARD, NEITHER, Finding
from .templates import compare_value

#: attributes with no catalog-defined value (``id``, ``time``) or covered by another rule
#: (``datacontenttype``: the content type rule)
_SKIPPED = frozenset({"id", "time", "datacontenttype"})


def compare_envelope(old: ir.Message, new: ir.Message) -> list[Finding]:
    out: list[Finding] = []
    if (old.envelope or None) != (new.envelope or None):
        out.append(
            Finding(
                "XRG517",
                "/envelope",
                f"envelope changed from {old.envelope!r} to {new.envelope!r}",
                BOTH,
            )
        )
        return out
    olds = {a.name: a for a in old.attributes if a.name not in _SKIPPED}
    news = {a.name: a for a in new.attributes if a.name not in _SKIPPED}
    for name in sorted(olds.keys() | news.keys()):
        a, b = olds.get(name), news.get(name)
        if a != b:
            out.extend(_attribute(name, a, b))
    out.extend(_content_type(old.datacontenttype, new.datacontenttype))
    return out


def _attribute(name: str, a: ir.Attribute | None, b: ir.Attribute | None) -> list[Finding]:
    base = ptr("envelopemetadata", name)
    label = f"attribute {name!r}"
    if a is None and b is not None:
        if b.required:
            return [Finding("XRG513", base, f"required {label} added", BACKWARD)]
        if b.value is not None:
            return [
                Finding("XRG511", base, f"{label} added with constant value {b.value!r}", BACKWARD)
            ]
        return [Finding("XRG513", base, f"optional {label} added", NEITHER)]
    if b is None and a is not None:
        if a.required:
            return [Finding("XRG514", base, f"required {label} removed", FORWARD)]
        if a.value is not None:
            return [
                Finding("XRG512", base, f"{label} with constant value {a.value!r} removed", FORWARD)
            ]
        return [Finding("XRG514", base, f"optional {label} removed", NEITHER)]
    assert a is not None and b is not None
    out: list[Finding] = []
    templates = {"uritemplate", "string"}
    if a.kind != b.kind and not {a.kind, b.kind} <= templates:
        out.append(
            Finding(
                "XRG516", base + "/type", f"{label} type changed from {a.kind} to {b.kind}", BOTH
            )
        )
    if a.required != b.required:
        if b.required:
            out.append(Finding("XRG515", base + "/required", f"{label} became required", BACKWARD))
        else:
            out.append(Finding("XRG515", base + "/required", f"{label} became optional", FORWARD))
    if a.value is None and b.value is not None:
        out.append(
            Finding("XRG511", base + "/value", f"{label} fixed to {b.value!r} (was free)", BACKWARD)
        )
    elif a.value is not None and b.value is None:
        out.append(
            Finding(
                "XRG512", base + "/value", f"{label} no longer fixed (was {a.value!r})", FORWARD
            )
        )
    elif a.value is not None and b.value is not None:
        what = "CloudEvents type" if name == "type" else label
        for f in compare_value(what, a.value, b.value):
            out.append(Finding(f.code, base + "/value", f.text, f.breaks))
    return out


def _normal_content_type(ct: str | None) -> str | None:
    if ct is None:
        return None
    parts = [p.strip() for p in ct.lower().split(";")]
    params = sorted(p.replace(" ", "") for p in parts[1:] if p and p != "charset=utf-8")
    return ";".join([parts[0], *params])


def _content_type(a: str | None, b: str | None) -> list[Finding]:
    na, nb = _normal_content_type(a), _normal_content_type(b)
    if na == nb:
        return []
    where = "/datacontenttype"
    if na is None:
        return [Finding("XRG540", where, f"content type {b!r} declared (was none)", BACKWARD)]
    if nb is None:
        return [Finding("XRG540", where, f"content type {a!r} no longer declared", FORWARD)]
    return [Finding("XRG540", where, f"content type changed from {a!r} to {b!r}", BOTH)]
