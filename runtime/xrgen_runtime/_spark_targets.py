"""Message definitions compiled for the Spark decoder's routing: what a row of a landing
shape must carry to match each one, and in which order definitions are tried (the
dispatcher's most-specific-first rule); uritemplates as Java regexes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from pyspark.sql.types import DataType

from ._definitions import MessageDef, OptionDef
from ._spark_columns import _canonical
from ._spark_wires import _Wire

_CORE = (
    "specversion",
    "id",
    "source",
    "type",
    "time",
    "datacontenttype",
    "dataschema",
    "subject",
)
_REQUIRED = ("specversion", "id", "source", "type")
#: the CloudEvents Distributed Tracing extension: a column of every output (typed or dead
#: letter), read as any other attribute, so that a pipeline can join rows back to traces
_TRACING = ("traceparent", "tracestate")
_NOW = "0000-01-01T00:00:00Z"
_VAR = re.compile(r"\{([^{}]*)\}")
_TYPED_KINDS = ("timestamp", "integer", "boolean", "binary", "uri")
#: core attributes checked on every row (the dispatcher's CORE_ATTRIBUTE_KINDS)
_CORE_KINDS = {"time": "timestamp", "dataschema": "uri"}


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
    run: list[str] = (
        []
    )  # literal text (and back-references) since the pending placeholder
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


class _Target:
    """One message definition compiled for the decoder (plain data; columns built lazily)."""

    def __init__(
        self, index: int, defn: MessageDef, dtype: DataType | None, wire: _Wire
    ) -> None:
        self.index = index
        self.defn = defn
        self.dtype = dtype
        #: a JSON Structure payload: (wire type ``from_json`` parses, conversion tree to
        #: ``dtype``: ``_spark_structure``)
        self.read: tuple[DataType, Any] | None = None
        self.ce = defn.envelope is not None
        #: the CloudEvents ``type`` when it is a literal: not absent, not a template
        self.literal_type = (
            defn.type
            if self.ce and defn.type is not None and _VAR.search(defn.type) is None
            else None
        )
        self.bound = defn.protocol is not None and wire.family is not None
        self.applies = not self.bound or _family(defn.protocol) == wire.family
        self.required: list[str] = []
        self.constants: list[tuple[str, str]] = []
        self.content_type: str | None = None
        #: (attribute name or option path, regex, placeholder names)
        self.templates: list[tuple[str | tuple[str, ...], str, tuple[str, ...]]] = []
        self.options: list[OptionDef] = []
        self.kinds: dict[str, str] = {}
        for attr in defn.attributes:
            self.kinds[attr.name] = attr.kind
            self._compile_attr(attr.name, attr.kind, attr.required, attr.value)
        if self.bound and self.applies:
            transit = wire.transit  # fields brokers may change: never matched
            for opt in defn.options:
                if opt.path and opt.path[0] not in transit:
                    self._compile_option(opt)
        self.placeholders: tuple[str, ...] = tuple(
            dict.fromkeys(n for _, _, names in self.templates for n in names)
        )
        #: the most-specific-match order, as the dispatcher's (smaller first): bound to the
        #: wire's protocol, then more constants, templates and required extension attributes
        #: to match, then more of them constants, then catalog order
        exact = (
            len(self.constants)
            + len(self.options)
            + (self.content_type is not None)
            + (self.literal_type is not None)
        )
        self.rank = (
            0 if self.bound else 1,
            -(exact + len(self.templates) + len(self.required)),
            -exact,
            index,
        )

    @property
    def parse_dtype(self) -> DataType | None:
        """The type ``from_json`` parses the payload with (the wire type of a JSON
        Structure payload, else the payload type)."""
        return self.read[0] if self.read is not None else self.dtype

    def _compile_attr(
        self, name: str, kind: str, required: bool, value: object
    ) -> None:
        if value is None:
            if required and name not in _REQUIRED:
                self.required.append(name)
        elif _is_template(kind, value) and isinstance(value, str):
            regex, names = template_regex(value)
            self.templates.append((name, regex, names))
        elif name == "type" and value == self.defn.type:
            return
        elif name == "time" and value == _NOW:
            return
        elif name == "datacontenttype" and isinstance(value, str):
            self.content_type = value.split(";", 1)[0].strip().lower()
        elif isinstance(value, (str, int, bool)):
            self.constants.append((name, _canonical(value)))

    def _compile_option(self, opt: OptionDef) -> None:
        if opt.template and isinstance(opt.value, str):
            regex, names = template_regex(opt.value)
            self.templates.append((opt.path, regex, names))
        else:
            self.options.append(opt)


#: ``(path, values)``: the payload member at ``path`` must be one of ``values`` (a generated
#: ``spark.py``'s ``PAYLOAD_CHECKS``)
PayloadCheck = tuple[tuple[str, ...], tuple[object, ...]]


def condition_key(t: _Target) -> tuple[object, ...]:
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
        tuple(t.required),
        tuple(t.constants),
        t.content_type,
        tuple((o.path, _canonical(o.value)) for o in t.options),
        templates,
        tuple(sorted(t.kinds.items())),
    )


def tie_groups(
    ranked: list[_Target],
    payload_key: Callable[[_Target], object],
    checks: Mapping[str, tuple[PayloadCheck, ...]],
) -> list[list[_Target]]:
    """The runs of targets (in match order) with equal :func:`condition_key`, without the
    members that an earlier one of the run always takes (the same ``payload_key`` and
    checks): each run of two or more is routed by its payloads (``_spark_ties``)."""
    groups: list[list[_Target]] = []
    run: list[_Target] = []
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
            groups.append(kept)
        run = [t] if t is not None else []
    return groups
