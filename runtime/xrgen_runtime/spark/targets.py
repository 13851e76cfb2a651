"""Message definitions compiled for the decoder's routing: what a row of a landing
shape must carry to match each one, and in which order definitions are tried (the
dispatcher's most-specific-first rule); uritemplates as Java regexes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.types import DataType

from .._definitions import MessageDef, OptionDef
from .values import canonical
from .wires import Wire

#: the CloudEvents core attributes
CORE = (
    "specversion",
    "id",
    "source",
    "type",
    "time",
    "datacontenttype",
    "dataschema",
    "subject",
)
#: the attributes every CloudEvent has
REQUIRED = ("specversion", "id", "source", "type")
#: the CloudEvents Distributed Tracing extension: a column of every output (typed or dead
#: letter), read as any other attribute, so that a pipeline can join rows back to traces
TRACING = ("traceparent", "tracestate")
_NOW = "0000-01-01T00:00:00Z"
_VAR = re.compile(r"\{([^{}]*)\}")
#: the attribute types read as Spark values (else text)
TYPED_KINDS = ("timestamp", "integer", "boolean", "binary", "uri")
#: core attributes checked on every row (the dispatcher's CORE_ATTRIBUTE_KINDS)
CORE_KINDS = {"time": "timestamp", "dataschema": "uri"}


def _java_escape(text: str) -> str:
    """``text`` as a literal in a Java regex (ASCII punctuation escaped)."""
    return "".join(
        "\\" + ch if ch.isascii() and not ch.isalnum() and ch not in " _" else ch
        for ch in text
    )


def template_regex(template: str) -> tuple[str, tuple[str, ...]]:
    """A Java regex matching ``template`` (RFC 6570 level 1) and its placeholder names.

    Placeholder ``i`` is capturing group ``i + 1``; a repeated placeholder must repeat the
    same text (a back-reference). The regex reads a text as ``_uritemplate.UriTemplate.match`` does
    (leftmost-shortest, without backtracking): each placeholder but the last is a lazy group
    inside an atomic group with the literal text that ends it, so it takes the leftmost
    occurrence of that literal and is never tried again; the last takes the rest.
    """
    names: list[str] = []
    closed: set[str] = set()
    out = ["^"]
    # literal text (and back-references) since the pending placeholder
    run: list[str] = []
    pending: str | None = None
    pos = 0

    def group(name: str) -> str:
        return f"(?<p{names.index(name)}>[A-Za-z0-9\\-._~%]*"

    for m in _VAR.finditer(template):
        run.append(_java_escape(template[pos : m.start()]))
        pos = m.end()
        name = m.group(1)
        if name in closed:
            run.append(f"\\k<p{names.index(name)}>")
            continue
        if pending is None:
            out.extend(run)
        else:
            out.append("(?>" + group(pending) + "?)" + "".join(run) + ")")
            closed.add(pending)
        run = []
        if name in closed:  # the placeholder that just ended, repeated
            run.append(f"\\k<p{names.index(name)}>")
            pending = None
            continue
        names.append(name)
        pending = name
    run.append(_java_escape(template[pos:]))
    if pending is not None:
        out.append(group(pending) + ")")
    out.extend(run)
    out.append("$")
    return "".join(out), tuple(names)


def _family(protocol: str | None) -> str | None:
    if protocol is None:
        return None
    return protocol.split("/", 1)[0].upper()


def _is_template(kind: str, value: object) -> bool:
    return isinstance(value, str) and (
        kind == "uritemplate" or (kind == "string" and _VAR.search(value) is not None)
    )


@dataclass(frozen=True, eq=False)
class Target:
    """One message definition compiled for the decoder (plain data): what a row must carry
    to match it (:func:`compile_target`)."""

    #: the definition's position in the catalog
    index: int
    defn: MessageDef
    #: the payload's Spark type (``None``: opaque payload)
    dtype: DataType | None
    #: whether it has a CloudEvents envelope
    ce: bool
    #: the CloudEvents ``type`` when it is a literal: not absent, not a template
    literal_type: str | None
    #: bound to a protocol, on a landing shape of a protocol
    bound: bool
    #: bound to this landing shape's protocol, or to none
    applies: bool
    #: extension attributes that must be present
    required: tuple[str, ...]
    #: (attribute, canonical value) that must be equal
    constants: tuple[tuple[str, str], ...]
    #: the media type ``datacontenttype`` must have (lower case, no parameters)
    content_type: str | None
    #: (attribute name or option path, regex, placeholder names)
    templates: tuple[tuple[str | tuple[str, ...], str, tuple[str, ...]], ...]
    #: protocol options that must be equal
    options: tuple[OptionDef, ...]
    #: attribute name -> CloudEvents type
    kinds: Mapping[str, str]
    #: the placeholder names of its templates, in order of first appearance
    placeholders: tuple[str, ...]
    #: the most-specific-match order, as the dispatcher's (smaller first): bound to the
    #: wire's protocol, then more constants, templates and required extension attributes
    #: to match, then more of them constants, then catalog order
    rank: tuple[int, int, int, int]
    #: a JSON Structure payload: (the wire type ``from_json`` parses, the conversion tree
    #: to ``dtype``: :mod:`.structure`)
    read: tuple[DataType, Any] | None = None

    @property
    def parse_dtype(self) -> DataType | None:
        """The type ``from_json`` parses the payload with (the wire type of a JSON
        Structure payload, else the payload type)."""
        return self.read[0] if self.read is not None else self.dtype


def compile_target(
    index: int, defn: MessageDef, dtype: DataType | None, wire: Wire
) -> Target:
    """``defn`` compiled for rows of the landing shape ``wire`` reads."""
    ce = defn.envelope is not None
    literal_type = (
        defn.type
        if ce and defn.type is not None and _VAR.search(defn.type) is None
        else None
    )
    bound = defn.protocol is not None and wire.family is not None
    applies = not bound or _family(defn.protocol) == wire.family
    required: list[str] = []
    constants: list[tuple[str, str]] = []
    content_type: str | None = None
    templates: list[tuple[str | tuple[str, ...], str, tuple[str, ...]]] = []
    options: list[OptionDef] = []
    kinds: dict[str, str] = {}
    for attr in defn.attributes:
        kinds[attr.name] = attr.kind
        name, value = attr.name, attr.value
        if value is None:
            if attr.required and name not in REQUIRED:
                required.append(name)
        elif _is_template(attr.kind, value) and isinstance(value, str):
            regex, names = template_regex(value)
            templates.append((name, regex, names))
        elif name == "type" and value == defn.type:
            continue
        elif name == "time" and value == _NOW:
            continue
        elif name == "datacontenttype" and isinstance(value, str):
            content_type = value.split(";", 1)[0].strip().lower()
        elif isinstance(value, (str, int, bool)):
            constants.append((name, canonical(value)))
    if bound and applies:
        for opt in defn.options:
            # fields brokers may change in transit are never matched
            if not opt.path or opt.path[0] in wire.transit:
                continue
            if opt.template and isinstance(opt.value, str):
                regex, names = template_regex(opt.value)
                templates.append((opt.path, regex, names))
            else:
                options.append(opt)
    exact = (
        len(constants)
        + len(options)
        + (content_type is not None)
        + (literal_type is not None)
    )
    return Target(
        index=index,
        defn=defn,
        dtype=dtype,
        ce=ce,
        literal_type=literal_type,
        bound=bound,
        applies=applies,
        required=tuple(required),
        constants=tuple(constants),
        content_type=content_type,
        templates=tuple(templates),
        options=tuple(options),
        kinds=kinds,
        placeholders=tuple(dict.fromkeys(n for _, _, ns in templates for n in ns)),
        rank=(
            0 if bound else 1,
            -(exact + len(templates) + len(required)),
            -exact,
            index,
        ),
    )


#: ``(path, values)``: the payload member at ``path`` must be one of ``values`` (a generated
#: ``spark.py``'s ``PAYLOAD_CHECKS``)
PayloadCheck = tuple[tuple[str, ...], tuple[object, ...]]


def condition_key(t: Target) -> tuple[object, ...]:
    """Everything the match condition of ``t`` checks (equal keys: the same rows match);
    placeholders are numbered in order of first appearance (``/a/{x}`` is ``/a/{y}``).
    """
    numbers: dict[str, int] = {}
    templates = tuple(
        (ref, regex, tuple(numbers.setdefault(n, len(numbers)) for n in names))
        for ref, regex, names in t.templates
    )
    return (
        t.ce,
        t.literal_type,
        t.bound,
        t.required,
        t.constants,
        t.content_type,
        tuple((o.path, canonical(o.value)) for o in t.options),
        templates,
        tuple(sorted(t.kinds.items())),
    )


def tie_groups(
    ranked: Sequence[Target],
    payload_key: Callable[[Target], object],
    checks: Mapping[str, tuple[PayloadCheck, ...]],
) -> list[tuple[Target, ...]]:
    """The runs of targets (in match order) with equal :func:`condition_key`, without the
    members that an earlier one of the run always takes (the same ``payload_key`` and
    checks): each run of two or more is routed by its payloads (:mod:`.ties`)."""
    groups: list[tuple[Target, ...]] = []
    run: list[Target] = []
    for t in [*ranked, None]:
        if t is not None and run and condition_key(t) == condition_key(run[0]):
            run.append(t)
            continue
        seen: set[object] = set()
        kept = []
        for member in run:
            key = (payload_key(member), checks.get(member.defn.id, ()))
            if key not in seen:
                seen.add(key)
                kept.append(member)
        if len(kept) > 1:
            groups.append(tuple(kept))
        run = [t] if t is not None else []
    return groups
