"""Message definitions compiled for dispatch: whether an event fits a definition, with the
placeholder values its templates read, and how specific the definition is.

A definition bound to a protocol only fits events that arrived over that protocol's family.
It fits when its constant, required and uritemplate attributes, its ``datacontenttype`` and
its protocol options all match; options that brokers may change in transit (declared by each
binding, ``BindingSpec.transit``) are not matched. Placeholder values come back
percent-decoded; a placeholder used in several templates must read the same value in each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

from ._attributes import coerce_attribute, to_canonical
from ._cloudevents import REQUIRED_ATTRIBUTES, TIME_NOW
from ._definitions import AttrDef, MessageDef, OptionDef
from ._errors import DecodeError
from ._limits import CACHE_KEY_MAX
from ._outcome import DispatchResult, Handler
from ._patterns import Pattern
from ._patterns import pattern as _pattern
from ._payload import PayloadReader
from .bindings import BINDINGS, BindingSpec
from .formats import AVRO_MEDIA_TYPES, PROTOBUF_MEDIA_TYPES

__all__ = ["CompiledDef", "fixed_type", "protocol_family", "rank"]

#: protocol family -> its binding's declaration
_BY_FAMILY: dict[str, BindingSpec] = {b.family: b for b in BINDINGS.values()}
_MISSING: Any = object()
_PLACEHOLDER = re.compile(r"\{[^{}]+\}")


def _typed_constant(name: str, kind: str, value: str | int | bool) -> object:
    """The canonical Python value of a declared constant of xRegistry type ``kind``."""
    text = value if isinstance(value, str) else to_canonical(value)
    try:
        return coerce_attribute(name, text, kind)
    except DecodeError:
        return value  # not a valid value of its kind: only an identical value matches


def _same(name: str, kind: str, actual: object, expected: object) -> bool:
    """Compare an attribute value with a canonical constant, across string/native forms."""
    if actual.__class__ is expected.__class__:
        return actual == expected
    try:
        if isinstance(actual, str):
            return coerce_attribute(name, actual, kind) == expected
        return to_canonical(actual) == to_canonical(expected)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return False


def _text(value: object) -> str | None:
    """The string form of a protocol option value (bytes as UTF-8; ``None``: none)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


_MEDIA_TYPES: dict[str, str] = {}
_SAME_MEDIA = {m: "avro/binary" for m in AVRO_MEDIA_TYPES} | {
    m: "application/protobuf" for m in PROTOBUF_MEDIA_TYPES
}


def _media_type(content_type: str) -> str:
    """The media type of a content type, lower-case, without parameters (cached); the
    spellings of Avro binary and of Protobuf are one media type each (``avro/binary``,
    ``application/protobuf``), so a message declared with one matches the others."""
    media = _MEDIA_TYPES.get(content_type)
    if media is None:
        media = content_type.split(";", 1)[0].strip().lower()
        media = _SAME_MEDIA.get(media, media)
        if len(content_type) <= CACHE_KEY_MAX and len(_MEDIA_TYPES) < 1024:
            _MEDIA_TYPES[content_type] = media
    return media


def _lookup(container: object, key: str, caseless: bool) -> object:
    """``container[key]`` for mappings and tuples of pairs, else ``_MISSING``."""
    if isinstance(container, Mapping):
        if not caseless:
            return container.get(key, _MISSING)
        container = tuple(container.items())
    if isinstance(container, tuple):
        folded = key.lower() if caseless else key
        for pair in container:
            if isinstance(pair, tuple) and len(pair) == 2:
                name = pair[0]
                if name == key or (
                    caseless and isinstance(name, str) and name.lower() == folded
                ):
                    return pair[1]
    return _MISSING


_SHARED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
T = TypeVar("T", bound=tuple[Any, ...])


def _shared(value: T) -> T:
    """One instance of each equal tuple of checks (for the same reason as
    ``_patterns._PATTERNS``)."""
    try:
        return _SHARED.setdefault(value, value)  # type: ignore[return-value]
    except TypeError:  # an unhashable constant: keep this one
        return value


class _Option:
    """One compiled protocol option: where to look and what must be there."""

    __slots__ = (
        "field",
        "keys",
        "caseless",
        "upper",
        "attribute_entry",
        "pattern",
        "expected",
    )

    def __init__(self, option: OptionDef, binding: BindingSpec | None) -> None:
        self.field = field = option.path[0]
        self.keys = option.path[1:]
        self.caseless = binding is not None and field in binding.caseless
        #: an entry that a binary-mode event may carry as an attribute (``_option_text``)
        self.attribute_entry = (
            binding is not None
            and field in binding.attribute_entries
            and bool(self.keys)
        )
        value = option.value
        self.pattern: Pattern | None = None
        if option.template and isinstance(value, str):
            self.pattern = _pattern(value)
        self.upper = binding is not None and field in binding.upper
        self.expected = _text(value) or ""
        if self.upper:
            self.expected = self.expected.upper()

    def read(self, binding: object) -> str | None:
        value = getattr(binding, self.field, _MISSING)
        for key in self.keys:
            if value is _MISSING:
                return None
            value = _lookup(value, key, self.caseless)
        if value is _MISSING or value is None:
            return None
        text = _text(value)
        if text is not None and self.upper:
            return text.upper()
        return text


class CompiledDef(PayloadReader):
    """A ``MessageDef`` compiled for matching, validation and handler calls (``payload``
    and ``handler_event`` come from :class:`~._payload.PayloadReader`)."""

    __slots__ = (
        "defn",
        "index",
        "family",
        "required",
        "constants",
        "templates",
        "content_type",
        "options",
        "handler",
        "is_async",
        "ok",
        "checks_attributes",
        "rank",
        "orders",
        "constant_options",
    )

    def __init__(self, defn: MessageDef, index: int) -> None:
        PayloadReader.__init__(self, defn)
        self.defn = defn
        self.index = index
        self.family = protocol_family(defn.protocol)
        required: list[str] = []
        constants: list[tuple[str, str, object]] = []
        templates: list[tuple[str, Pattern]] = []
        content_type: str | None = None
        for attr in defn.attributes:
            media = self._compile_attr(attr, defn, required, constants, templates)
            if media is not None:
                content_type = media
        self.content_type = content_type
        self.required = _shared(tuple(required))
        self.constants = _shared(tuple(constants))
        # the least ambiguous templates first: the values they fix settle the readings of
        # the same placeholders in more ambiguous ones (see ``UriTemplate.match``)
        templates.sort(key=lambda t: t[1].template.ambiguity)
        self.templates = _shared(tuple(templates))
        binding = _BY_FAMILY.get(self.family or "")
        transit = binding.transit if binding is not None else frozenset()
        self.options = tuple(
            _Option(o, binding)
            for o in defn.options
            if o.path and o.path[0] not in transit
        )
        self.orders, self.constant_options = _template_orders(
            self.templates, self.options
        )
        self.checks_attributes = bool(
            self.required or self.constants or self.content_type is not None
        )
        #: the most-specific-match order (smaller first): bound to a protocol, then more
        #: matched constants, templates and required extension attributes, then more of them
        #: constants (an exact value is more specific than a pattern on the same field), then
        #: catalog order
        exact = (
            len(self.constants)
            + sum(o.pattern is None for o in self.options)
            + (self.content_type is not None)
            + fixed_type(defn)
        )
        # a required extension attribute is a check too (the core ones every event has)
        patterns = (
            len(self.templates)
            + sum(o.pattern is not None for o in self.options)
            + sum(name not in REQUIRED_ATTRIBUTES for name in self.required)
        )
        self.rank = (
            0 if self.family is not None else 1,
            -(exact + patterns),
            -exact,
            index,
        )
        self.handler: Handler | None = None
        self.is_async = False
        self.ok = DispatchResult(True, defn.id, None)

    def _compile_attr(
        self,
        attr: AttrDef,
        defn: MessageDef,
        required: list[str],
        constants: list[tuple[str, str, object]],
        templates: list[tuple[str, Pattern]],
    ) -> str | None:
        """Files ``attr`` under the lists it belongs to; the media type of a declared
        ``datacontenttype``."""
        value = attr.value
        if value is None:
            if attr.required:
                required.append(attr.name)
            return None
        is_template = isinstance(value, str) and (
            attr.kind == "uritemplate"
            or (attr.kind == "string" and _PLACEHOLDER.search(value) is not None)
        )
        if is_template and isinstance(value, str):
            templates.append((attr.name, _pattern(value)))
        elif attr.name == "type" and value == defn.type:
            pass  # already guaranteed by the candidate lookup
        elif attr.name == "time" and value == TIME_NOW:
            pass  # "now" for producers, not a constraint
        elif attr.name == "datacontenttype" and isinstance(value, str):
            return _media_type(value)
        else:
            expected = _typed_constant(attr.name, attr.kind, value)
            constants.append((attr.name, attr.kind, expected))
        return None

    def match(
        self, attrs: dict[str, Any], binding: object, family: str | None
    ) -> dict[str, str] | None:
        """The placeholder values when the event fits this definition, else ``None``."""
        if self.family is not None and self.family != family:
            return None
        # most definitions declare no required, constant or content-type attribute
        if self.checks_attributes and not self._attributes_fit(attrs):
            return None
        if self.orders:
            return self._match_ordered(attrs, binding)
        params: dict[str, str] = {}
        for name, pattern in self.templates:
            value = attrs.get(name)
            text = value if isinstance(value, str) else _canonical_or_none(value)
            if text is None or not pattern.fill(text, params):
                return None
        if self.options and not self._options_fit(attrs, binding, params):
            return None
        return params

    def _match_ordered(
        self, attrs: dict[str, Any], binding: object
    ) -> dict[str, str] | None:
        """``match`` for a definition whose ambiguous templates share placeholders with other
        templates (attributes or options): all templates least ambiguous first, so that the
        values they fix settle the others' readings; if the readings of a shared placeholder
        disagree, again with each ambiguous template read first (a few linear passes).
        """
        for order in self.orders:
            params: dict[str, str] = {}
            for name, option, pattern in order:
                if option is None:
                    value = attrs.get(name)
                    text = (
                        value if isinstance(value, str) else _canonical_or_none(value)
                    )
                else:
                    text = _option_text(option, attrs, binding)
                if text is None or not pattern.fill(text, params):
                    break
            else:
                if self._options_fit(attrs, binding, params, self.constant_options):
                    return params
        return None

    def _attributes_fit(self, attrs: dict[str, Any]) -> bool:
        """Whether the required, constant and content-type attributes are as declared."""
        for name in self.required:
            if name not in attrs:
                return False
        for name, kind, expected in self.constants:
            actual = attrs.get(name, _MISSING)
            if actual is _MISSING or not _same(name, kind, actual, expected):
                return False
        if self.content_type is not None:
            ct = attrs.get("datacontenttype")
            actual_ct = _media_type(ct) if isinstance(ct, str) else "application/json"
            if actual_ct != self.content_type:
                return False
        return True

    def _options_fit(
        self,
        attrs: dict[str, Any],
        binding: object,
        params: dict[str, str],
        options: tuple[_Option, ...] | None = None,
    ) -> bool:
        """Whether the protocol options match (template placeholders into ``params``)."""
        for option in self.options if options is None else options:
            text = _option_text(option, attrs, binding)
            if text is None:
                return False
            if option.pattern is None:
                if text != option.expected:
                    return False
            elif not option.pattern.fill(text, params):
                return False
        return True


def _option_text(option: _Option, attrs: dict[str, Any], binding: object) -> str | None:
    """The text of ``option`` in ``binding`` (``None``: absent)."""
    text = option.read(binding)
    if text is None and option.attribute_entry:
        # MQTT 5 binary mode maps attributes to unprefixed user properties, so a user
        # property named like an attribute arrives as an extension attribute
        value = attrs.get(option.keys[0])
        text = value if isinstance(value, str) else _canonical_or_none(value)
    return text


#: one template to read: (attribute name, or the option it belongs to, and its pattern)
_Read = tuple[str, "_Option | None", Pattern]


def _template_orders(
    templates: tuple[tuple[str, Pattern], ...], options: tuple[_Option, ...]
) -> tuple[tuple[tuple[_Read, ...], ...], tuple[_Option, ...]]:
    """The orders :meth:`CompiledDef._match_ordered` tries, and the constant options; ``((), ())``
    when every ambiguous template's placeholders appear in no other template (``match``
    then reads the attribute templates, then the options, in one pass)."""
    reads: list[_Read] = [(name, None, pattern) for name, pattern in templates]
    reads += [("", o, o.pattern) for o in options if o.pattern is not None]
    shared = False
    for i, (_n, _o, pattern) in enumerate(reads):
        if pattern.template.ambiguity:
            others = {n for j, r in enumerate(reads) if j != i for n in r[2].names}
            shared = shared or not others.isdisjoint(pattern.names)
    if not shared:
        return (), ()
    first = sorted(reads, key=lambda r: r[2].template.ambiguity)
    orders = [tuple(first)]
    for read in first:
        if read[2].template.ambiguity and read is not next(
            r for r in first if r[2].template.ambiguity
        ):
            orders.append((read, *(r for r in first if r is not read)))
    constant = tuple(o for o in options if o.pattern is None)
    return tuple(orders), constant


def _canonical_or_none(value: object) -> str | None:
    try:
        return to_canonical(value)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return None


def protocol_family(protocol: str | None) -> str | None:
    """``"MQTT/5.0"`` -> ``"MQTT"``; the family that wire messages are compared by."""
    if not protocol:
        return None
    return protocol.split("/", 1)[0].strip().upper()


def rank(c: CompiledDef) -> tuple[int, int, int, int]:
    """The most-specific-match order of ``c`` (sort key; smaller first)."""
    return c.rank


def fixed_type(defn: MessageDef) -> bool:
    return defn.type is not None and _PLACEHOLDER.search(defn.type) is None
