"""Definitions that no wire message can tell apart (warning XRG330).

The generated dispatcher (``xrgen_runtime._dispatch``) and the Spark decoders route an event
to the most specific matching definition: bound to the wire's protocol first, then more
constants and templates to match, then more of them constants, then catalog order. Two
definitions whose checks are the same (the same envelope, protocol family, CloudEvents
``type``, constant attributes, required attributes, ``datacontenttype``, protocol options,
and templates that match the same texts) are matched by exactly the same events, so the
later one in catalog order never receives an event while the earlier one has a handler. Such
a definition gets XRG330, naming the one that shadows it. An ``xref`` alias and its target
are one definition and are not reported.

The comparison is structural (a key per definition, built as the runtime compiles the
definition), so it takes time linear in the catalog. Templates are compared after renaming
their placeholders in order of first appearance across the definition (``/a/{x}`` and
``/a/{y}`` match the same texts).

Definitions with equal keys are *tied*: the dispatcher (and the Spark decoder) gives an event
to the first of them, in catalog order, whose payload accepts it. So a tied definition is
shadowed only by an earlier one whose payload schema may accept the same payloads: two payloads
of one format are told apart when the format proves that no value fits both
(``PayloadFormat.apart``; JSON Schema, ``formats.jsonschema.disjoint``: a required property
with ``const`` / ``enum`` values that do not meet, types that do not meet); opaque payloads and
other formats always may overlap.
"""

from __future__ import annotations

import re
from typing import Any

from . import formats, protocols
from .diagnostics import Diagnostics
from .model import ir

_VAR = re.compile(r"\{([^{}]*)\}")
_NOW = "0000-01-01T00:00:00Z"
#: attributes every CloudEvent carries: requiring them tells nothing apart
_CORE_REQUIRED = frozenset({"specversion", "id", "source", "type"})


def _family(protocol: str | None) -> str | None:
    if not protocol:
        return None
    return protocol.split("/", 1)[0].strip().upper()


def _is_template(kind: str, value: object) -> bool:
    return isinstance(value, str) and (
        kind == "uritemplate" or (kind == "string" and _VAR.search(value) is not None)
    )


class _Renamer:
    """Placeholder names replaced by their order of first appearance in one definition."""

    def __init__(self) -> None:
        self.names: dict[str, int] = {}

    def __call__(self, template: str) -> str:
        def number(m: re.Match[str]) -> str:
            return "{" + str(self.names.setdefault(m.group(1), len(self.names))) + "}"

        return _VAR.sub(number, template)


def match_key(message: ir.Message) -> tuple[Any, ...]:
    """What the runtime checks for ``message``: equal keys, equal sets of matching events."""
    family = _family(message.protocol)
    rename = _Renamer()
    required: list[str] = []
    constants: list[tuple[str, str]] = []
    templates: list[tuple[str, str]] = []
    content_type: str | None = None
    ce_type = message.ce_type if message.envelope else None
    attributes = sorted(message.attributes, key=lambda a: a.name)
    # templates first, in a fixed order, so that placeholder numbering does not depend on
    # the order the catalog lists attributes in
    for a in attributes:
        if a.value is not None and _is_template(a.kind, a.value):
            templates.append((a.name, rename(str(a.value))))
    for a in attributes:
        value = a.value
        if value is None:
            if a.required and not (message.envelope and a.name in _CORE_REQUIRED):
                required.append(a.name)
        elif _is_template(a.kind, value):
            continue
        elif a.name == "type" and value == ce_type:
            continue
        elif a.name == "time" and value == _NOW:
            continue
        elif a.name == "datacontenttype" and isinstance(value, str):
            content_type = value.split(";", 1)[0].strip().lower()
        else:
            constants.append((a.name, _canonical(value)))
    binding = protocols.lookup(message.protocol)
    transit = binding.transit if binding else frozenset()
    caseless = binding.caseless if binding else frozenset()
    options: list[tuple[tuple[str, ...], bool, str]] = []
    for o in sorted(message.options, key=lambda o: o.path):
        if not o.path or o.path[0] in transit:
            continue
        path = tuple(o.path)
        if o.path[0] in caseless:
            path = (o.path[0], *(k.lower() for k in o.path[1:]))
        value = _canonical(o.value)
        if o.path[0] == "method":
            value = value.upper()
        if o.template and isinstance(o.value, str):
            value = rename(o.value)
        options.append((path, o.template, value))
    return (
        message.envelope is not None,
        family,
        ce_type,
        tuple(sorted(required)),
        tuple(sorted(constants)),
        tuple(sorted(templates)),
        content_type,
        tuple(sorted(options)),
    )


def _canonical(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _target(message: ir.Message) -> str:
    """The definition an ``xref`` alias stands for (itself otherwise)."""
    return message.alias_of or message.id


def ties(catalog: ir.Catalog) -> list[list[ir.Message]]:
    """The groups of two or more definitions with equal match keys, each in catalog order
    (an ``xref`` alias counts with its target)."""
    groups: dict[tuple[Any, ...], list[ir.Message]] = {}
    for message in catalog.messages():
        groups.setdefault(match_key(message), []).append(message)
    return [g for g in groups.values() if len({_target(m) for m in g}) > 1]


class _Payloads:
    """Whether two definitions' payloads may accept the same payload (shapes read once)."""

    def __init__(self) -> None:
        self.shapes: dict[str, Any] = {}

    def _shapes(self, fmt: formats.PayloadFormat, payload: ir.Payload) -> Any:
        if payload.key not in self.shapes:
            self.shapes[payload.key] = fmt.shapes(payload.schema)
        return self.shapes[payload.key]

    def may_overlap(self, a: ir.Message, b: ir.Message) -> bool:
        pa, pb = a.payload, b.payload
        fmt = formats.get(pa.format) if pa is not None else None
        if pa is None or pb is None or fmt is None or pa.format != pb.format:
            return True
        sa, sb = self._shapes(fmt, pa), self._shapes(fmt, pb)
        if sa is None or sb is None:
            return True
        return not fmt.apart(sa, sb)


def indistinguishable(catalog: ir.Catalog) -> list[tuple[ir.Message, ir.Message]]:
    """``(shadowed, first)`` for every definition that an earlier tied one (catalog order, as
    the dispatcher's ``MessageDef`` tuple) whose payload may accept the same payloads takes
    first; ``first`` is the earliest such one."""
    payloads = _Payloads()
    out: list[tuple[ir.Message, ir.Message]] = []
    for group in ties(catalog):
        for i, message in enumerate(group):
            for earlier in group[:i]:
                if _target(earlier) != _target(message) and payloads.may_overlap(
                    earlier, message
                ):
                    out.append((message, earlier))
                    break
    order = {id(m): i for i, m in enumerate(catalog.messages())}
    return sorted(out, key=lambda pair: order[id(pair[0])])


def check(catalog: ir.Catalog, diags: Diagnostics) -> None:
    """XRG330 for every definition that no wire message can tell apart from an earlier one."""
    for message, earlier in indistinguishable(catalog):
        file, _, ptr = message.location.partition("#")
        diags.warning(
            "XRG330",
            file,
            ptr,
            f"message {message.id!r} cannot be told apart from {earlier.id!r} on the wire "
            "(same protocol, CloudEvents type, constants and templates; payload schemas that "
            "may accept the same payload): the dispatcher routes its events to "
            f"{earlier.id!r} when that has a handler and accepts the payload",
        )
