"""Generic consumer dispatch engine of a generated xrgen package.

The generated ``consumer.py`` subclasses :class:`DispatcherBase` once per message group and
once for the whole package, passing the group's ``MessageDef`` tuple, and adds one typed
decorator per message (``on_reading``) that calls :meth:`DispatcherBase._register`.

Pipeline of :meth:`DispatcherBase.dispatch` (and :meth:`DispatcherBase.dispatch_async`):

1. decode the wire message with the codec of its binding (``bindings.<protocol>.decode``);
2. find the candidate definitions: O(1) by CloudEvents ``type`` (definitions without a fixed
   ``type`` are candidates for every type); a message without CloudEvents attributes is a
   plain protocol message and its candidates are the plain definitions of its protocol
   (or without a protocol);
3. keep the candidates whose constant attributes, uritemplate attributes and protocol options
   all match, collecting the template placeholder values (percent-decoded) into ``params``;
   a definition bound to a protocol only matches events that arrived over that protocol;
4. most specific first, the first matching definition that has a handler and whose payload
   model validates (strictly, JSON semantics) receives a NEW ``Event`` (same attributes and
   binding, ``data`` = the model instance, or ``bytes`` for opaque payloads) and ``params``.
   Most specific: a definition bound to the wire's protocol before a protocol-less one, then
   the one with more constants and templates to match (attributes, ``datacontenttype``, a
   fixed ``type``, protocol options), then the one with more constants among them, then
   catalog order (docs/routing.md). Candidates are sorted so once, when the dispatcher is
   built: a protocol-bound definition never matches another protocol's wire, so the order is
   the same for every wire and matching stays one pass.

Every input ends in exactly one handler call or exactly one dead-letter call
``dead_letter(original, reason, detail)`` with ``original`` the wire message, whole and as
received (or the event for :meth:`DispatcherBase.dispatch_event`). ``reason`` is one of the
single-line tokens below; ``detail`` is one line of at most ``DETAIL_MAX`` (4,096)
characters with control characters escaped (``_core.bounded_detail``), so the default
callback's log line never carries raw CR/LF whatever the input. Reasons: ``decode-error``,
``unknown-type``, ``no-match``, ``validation-error``, ``no-handler``, ``handler-error``,
``async-handler-in-sync-dispatch`` and (for bugs only) ``internal-error``. Nothing raises out
of ``dispatch``: a failing dead-letter callback is logged. The one exception is a dispatcher
set to give handler errors back (``handler_errors = "raise"``): a handler that raises then
makes ``dispatch`` raise ``HandlerError`` instead of dead-lettering the message.

Async handlers: :meth:`DispatcherBase.dispatch_async` awaits them. The synchronous
:meth:`DispatcherBase.dispatch` runs an async handler with ``asyncio.run`` when no event loop
is running in the thread; inside a running loop it cannot wait for it, so it dead-letters the
message with reason ``async-handler-in-sync-dispatch`` (use ``dispatch_async`` there).

Protocol options that the network may legitimately change in transit (MQTT ``qos``,
``retain``, ``message_expiry_interval``; Kafka ``partition``; Pulsar ``event_time``) are not
used for matching.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, final

from pydantic import ValidationError
from pydantic_core import to_json

from ._core import (
    _EXPANSION,
    CACHE_KEY_MAX,
    REQUIRED_ATTRIBUTES,
    AmqpBinding,
    AmqpMessage,
    AttrDef,
    DecodeError,
    Event,
    HttpBinding,
    HttpMessage,
    KafkaBinding,
    KafkaMessage,
    MessageDef,
    MqttBinding,
    MqttMessage,
    NatsBinding,
    NatsMessage,
    OptionDef,
    PulsarBinding,
    PulsarMessage,
    RocketMqBinding,
    RocketMqMessage,
    UriTemplate,
    WireMessage,
    bounded_detail,
    coerce_attribute,
    is_json_content_type,
    pct_decode,
    to_canonical,
)
from .formats import (
    AVRO_MEDIA_TYPES,
    PROTOBUF_MEDIA_TYPES,
    decode_payload,
    wire_format,
)

__all__ = [
    "DEAD_LETTER_REASONS",
    "DeadLetter",
    "DispatchResult",
    "DispatcherBase",
    "Handler",
    "HandlerError",
    "protocol_family",
]

_log = logging.getLogger(__name__)

#: A handler: ``handler(event, params)``; may be ``async``.
Handler = Callable[[Event[Any], dict[str, str]], object]
#: The dead-letter callback: ``dead_letter(original, reason, detail)``.
DeadLetter = Callable[[object, str, str], object]
H = TypeVar("H", bound=Callable[..., Any])

DECODE_ERROR = "decode-error"
UNKNOWN_TYPE = "unknown-type"
NO_MATCH = "no-match"
VALIDATION_ERROR = "validation-error"
NO_HANDLER = "no-handler"
HANDLER_ERROR = "handler-error"
ASYNC_IN_SYNC = "async-handler-in-sync-dispatch"
INTERNAL_ERROR = "internal-error"
#: Every reason a dead-letter callback can receive.
DEAD_LETTER_REASONS = (
    DECODE_ERROR,
    UNKNOWN_TYPE,
    NO_MATCH,
    VALIDATION_ERROR,
    NO_HANDLER,
    HANDLER_ERROR,
    ASYNC_IN_SYNC,
    INTERNAL_ERROR,
)

#: wire message type -> (codec module in ``bindings``, protocol family)
_WIRE: dict[type, tuple[str, str]] = {
    KafkaMessage: ("kafka", "KAFKA"),
    AmqpMessage: ("amqp", "AMQP"),
    MqttMessage: ("mqtt", "MQTT"),
    NatsMessage: ("nats", "NATS"),
    HttpMessage: ("http", "HTTP"),
    PulsarMessage: ("pulsar", "PULSAR"),
    RocketMqMessage: ("rocketmq", "ROCKETMQ"),
}
_BINDING_FAMILY: dict[type, str] = {
    KafkaBinding: "KAFKA",
    AmqpBinding: "AMQP",
    MqttBinding: "MQTT",
    NatsBinding: "NATS",
    HttpBinding: "HTTP",
    PulsarBinding: "PULSAR",
    RocketMqBinding: "ROCKETMQ",
}
#: binding fields that brokers may change in transit: never matched
_TRANSIT_FIELDS: dict[str, frozenset[str]] = {
    "MQTT": frozenset({"qos", "retain", "message_expiry_interval"}),
    "KAFKA": frozenset({"partition"}),
    "PULSAR": frozenset({"event_time"}),
}
#: fields whose keys are case-insensitive header names
_CASELESS_FIELDS: dict[str, frozenset[str]] = {
    "HTTP": frozenset({"headers"}),
    "NATS": frozenset({"headers"}),
}
_decoders: dict[type, Callable[[Any], Event[Any]]] = {}
_MISSING: Any = object()
_NOW_SENTINEL = "0000-01-01T00:00:00Z"
_PLACEHOLDER = re.compile(r"\{[^{}]+\}")


class HandlerError(Exception):
    """A handler raised, and its dispatcher gives the message back instead of dead-lettering
    it (``handler_errors = "raise"``, as ``Endpoint.dispatcher(redeliver=True)`` sets): a
    receiver's ``run`` then does not acknowledge the message (the server delivers it again)
    and goes on serving. The handler's exception is ``__cause__``."""

    def __init__(self, message_id: str) -> None:
        super().__init__(f"handler of {message_id!r} raised")
        self.message_id = message_id


class DispatchResult:
    """What :meth:`DispatcherBase.dispatch` did with one input (truthy when handled).

    ``handled``: a handler was called and returned without raising. ``message_id``: the id of
    the definition that received the event (or that the failure concerns, when known).
    ``reason``: the dead-letter reason, ``None`` when handled. Instances are shared
    singletons (cheap): compare fields, not identity.
    """

    __slots__ = ("handled", "message_id", "reason")

    def __init__(
        self, handled: bool, message_id: str | None, reason: str | None
    ) -> None:
        self.handled = handled
        self.message_id = message_id
        self.reason = reason

    def __bool__(self) -> bool:
        return self.handled

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DispatchResult):
            return NotImplemented
        return (self.handled, self.message_id, self.reason) == (
            other.handled,
            other.message_id,
            other.reason,
        )

    def __hash__(self) -> int:
        return hash((self.handled, self.message_id, self.reason))

    def __repr__(self) -> str:
        return (
            f"DispatchResult(handled={self.handled!r}, "
            f"message_id={self.message_id!r}, reason={self.reason!r})"
        )


class _Invalid(Exception):
    """Payload validation failed (internal control flow)."""


# --------------------------------------------------------------------------------------------
# Canonical values
# --------------------------------------------------------------------------------------------


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


def _merge(params: dict[str, str], found: dict[str, str]) -> bool:
    """Add ``found`` to ``params``; ``False`` when a placeholder disagrees."""
    for name, value in found.items():
        old = params.setdefault(name, value)
        if old != value:
            return False
    return True


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


# --------------------------------------------------------------------------------------------
# Compiled definitions
# --------------------------------------------------------------------------------------------


class _Pattern:
    """A ``UriTemplate`` prepared for matching many values (placeholders into ``params``).

    Matching is linear in the value (see ``UriTemplate``). A template with one placeholder
    (most of them) uses a regex ``head([unreserved%]*)tail``: one character class between
    two fixed literals cannot backtrack more than ``len(tail)`` per character, and it is the
    fastest check CPython has.
    """

    __slots__ = ("template", "names", "unambiguous", "single")

    def __init__(self, text: str) -> None:
        self.template = UriTemplate(text)
        self.names = self.template.names
        self.unambiguous = self.template.unambiguous
        literals = self.template._literals
        self.single: re.Pattern[str] | None = None
        if len(literals) == 2:
            self.single = re.compile(
                re.escape(literals[0])
                + _EXPANSION.pattern.join(("(", ")"))
                + re.escape(literals[1])
            )

    def fill(self, text: str, params: dict[str, str]) -> bool:
        """Add the percent-decoded placeholder values of ``text`` to ``params``.

        ``False`` when ``text`` does not fit, is not UTF-8 after decoding, or a placeholder
        already in ``params`` has a different value.
        """
        single = self.single
        if single is not None:
            m = single.fullmatch(text)
            if m is None:
                return False
            raw = m.group(1)
            value = pct_decode(raw) if "%" in raw else raw
            return (
                value is not None and params.setdefault(self.names[0], value) == value
            )
        found = self.template.match(text, params)
        if found is None:
            return False
        params.update(found)
        return True


#: one ``_Pattern`` per distinct template text: catalogs repeat templates across messages (a
#: group's ``source``), and sharing the compiled regex keeps a 10,000-message dispatcher small
#: (faster to build, and matching touches fewer objects, so the per-message cost stays flat)
_PATTERNS: dict[str, _Pattern] = {}


def _pattern(text: str) -> _Pattern:
    found = _PATTERNS.get(text)
    if found is None:
        found = _PATTERNS[text] = _Pattern(text)
    return found


_SHARED: dict[tuple[Any, ...], tuple[Any, ...]] = {}
T = TypeVar("T", bound=tuple[Any, ...])


def _shared(value: T) -> T:
    """One instance of each equal tuple of checks (for the same reason as ``_PATTERNS``)."""
    try:
        return _SHARED.setdefault(value, value)  # type: ignore[return-value]
    except TypeError:  # an unhashable constant: keep this one
        return value


class _Option:
    """One compiled protocol option: where to look and what must be there."""

    __slots__ = ("field", "keys", "caseless", "upper", "pattern", "expected")

    def __init__(self, option: OptionDef, family: str | None) -> None:
        self.field = option.path[0]
        self.keys = option.path[1:]
        self.caseless = self.field in _CASELESS_FIELDS.get(family or "", frozenset())
        value = option.value
        self.pattern: _Pattern | None = None
        if option.template and isinstance(value, str):
            self.pattern = _pattern(value)
        self.upper = self.field == "method"
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


_TYPED_KINDS = frozenset({"integer", "boolean", "timestamp", "binary"})


class _Def:
    """A ``MessageDef`` compiled for matching, validation and handler calls."""

    __slots__ = (
        "defn",
        "id",
        "index",
        "family",
        "required",
        "constants",
        "typed",
        "templates",
        "content_type",
        "options",
        "validator",
        "handler",
        "is_async",
        "ok",
        "checks_attributes",
        "rank",
        "orders",
        "constant_options",
    )

    def __init__(self, defn: MessageDef, index: int) -> None:
        self.defn = defn
        self.id = defn.id
        self.index = index
        self.family = protocol_family(defn.protocol)
        required: list[str] = []
        constants: list[tuple[str, str, object]] = []
        templates: list[tuple[str, _Pattern]] = []
        self.content_type: str | None = None
        for attr in defn.attributes:
            self._compile_attr(attr, defn, required, constants, templates)
        self.required = _shared(tuple(required))
        #: declared attributes whose canonical Python type is not str (extensions arrive as
        #: strings on most bindings and are typed again for the handler)
        self.typed = tuple(
            (a.name, a.kind) for a in defn.attributes if a.kind in _TYPED_KINDS
        )
        self.constants = _shared(tuple(constants))
        # the least ambiguous templates first: the values they fix settle the readings of
        # the same placeholders in more ambiguous ones (see ``UriTemplate.match``)
        templates.sort(key=lambda t: t[1].template.ambiguity)
        self.templates = _shared(tuple(templates))
        transit = _TRANSIT_FIELDS.get(self.family or "", frozenset())
        self.options = tuple(
            _Option(o, self.family)
            for o in defn.options
            if o.path and o.path[0] not in transit
        )
        self.orders, self.constant_options = _template_orders(
            self.templates, self.options
        )
        self.validator: Any = None
        if defn.model is not None:
            if not defn.model.__pydantic_complete__:
                defn.model.model_rebuild()
            self.validator = defn.model.__pydantic_validator__
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
            + _fixed_type(defn)
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
        templates: list[tuple[str, _Pattern]],
    ) -> None:
        value = attr.value
        if value is None:
            if attr.required:
                required.append(attr.name)
            return
        is_template = isinstance(value, str) and (
            attr.kind == "uritemplate"
            or (attr.kind == "string" and _PLACEHOLDER.search(value) is not None)
        )
        if is_template and isinstance(value, str):
            templates.append((attr.name, _pattern(value)))
        elif attr.name == "type" and value == defn.type:
            return  # already guaranteed by the candidate lookup
        elif attr.name == "time" and value == _NOW_SENTINEL:
            return  # "now" for producers, not a constraint
        elif attr.name == "datacontenttype" and isinstance(value, str):
            self.content_type = _media_type(value)
        else:
            expected = _typed_constant(attr.name, attr.kind, value)
            constants.append((attr.name, attr.kind, expected))

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

    def handler_event(self, event: Event[Any], data: object) -> Event[Any]:
        """The event the handler gets: validated ``data``, declared attributes typed."""
        attrs = event.attributes
        if self.typed and any(isinstance(attrs.get(n), str) for n, _ in self.typed):
            attrs = dict(attrs)
            for name, kind in self.typed:
                value = attrs.get(name)
                if isinstance(value, str):
                    attrs[name] = coerce_attribute(name, value, kind)
        return Event(attrs, data, event.binding)

    def payload(self, event: Event[Any]) -> object:
        """The handler's ``data``: a validated model instance, or bytes for opaque payloads."""
        data = event.data
        validator = self.validator
        if validator is None:
            if data is None or isinstance(data, bytes):
                return data
            if isinstance(data, str):
                return data.encode("utf-8")
            return to_json(data)
        ct = event.attributes.get("datacontenttype")
        # the usual content type needs no parsing
        if (
            ct != "application/json"
            and isinstance(ct, str)
            and not is_json_content_type(ct)
        ):
            return self.payload_in_format(event, ct)
        if data is None:
            raise _Invalid(f"{self.id}: event has no data")
        try:
            if isinstance(data, bytes):
                return validator.validate_json(data, strict=True)
            return validator.validate_json(to_json(data), strict=True)
        except ValidationError as exc:
            raise _Invalid(f"{self.id}: {exc}") from None
        except Exception as exc:  # a model validator raising something unusual
            raise _Invalid(f"{self.id}: {exc!r}") from None

    def payload_in_format(self, event: Event[Any], content_type: str) -> object:
        """The payload of a content type other than JSON, through the model's codec of that
        format (``xrgen_runtime.formats``): Avro, Protobuf, XML."""
        data = event.data
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif data is not None and not isinstance(data, bytes):
            raise _Invalid(
                f"{self.id}: {content_type!r} data must be bytes (data_base64)"
            )
        if data is None:
            if wire_format(content_type) != "protobuf":
                raise _Invalid(f"{self.id}: event has no data")
            data = b""  # the encoding of a Protobuf message with every field at its default
        model = self.defn.model
        assert model is not None  # a validator exists
        try:
            return decode_payload(model, data, content_type, event)
        except ValueError as exc:
            raise _Invalid(f"{self.id}: {exc}") from None
        except Exception as exc:  # a codec or model validator raising something unusual
            raise _Invalid(f"{self.id}: {exc!r}") from None


def _option_text(option: _Option, attrs: dict[str, Any], binding: object) -> str | None:
    """The text of ``option`` in ``binding`` (``None``: absent)."""
    text = option.read(binding)
    if text is None and option.field == "user_properties" and option.keys:
        # MQTT 5 binary mode maps attributes to unprefixed user properties, so a user
        # property named like an attribute arrives as an extension attribute
        value = attrs.get(option.keys[0])
        text = value if isinstance(value, str) else _canonical_or_none(value)
    return text


#: one template to read: (attribute name, or the option it belongs to, and its pattern)
_Read = tuple[str, "_Option | None", _Pattern]


def _template_orders(
    templates: tuple[tuple[str, _Pattern], ...], options: tuple[_Option, ...]
) -> tuple[tuple[tuple[_Read, ...], ...], tuple[_Option, ...]]:
    """The orders :meth:`_Def._match_ordered` tries, and the constant options; ``((), ())``
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


def _decoder(wire_type: type) -> Callable[[Any], Event[Any]]:
    """The ``decode`` function of the codec module for ``wire_type`` (imported once)."""
    decode = _decoders.get(wire_type)
    if decode is None:
        module = importlib.import_module(
            ".bindings." + _WIRE[wire_type][0], __package__
        )
        decode = module.decode
        _decoders[wire_type] = decode
    return decode


# --------------------------------------------------------------------------------------------
# The dispatcher
# --------------------------------------------------------------------------------------------


class DispatcherBase:
    """Typed consumer dispatch over a tuple of message definitions (see the module doc).

    ``defs`` are in catalog order (that order breaks ties between definitions that all match
    an event). ``dead_letter(original, reason, detail)`` receives every input that no handler
    took; by default it is logged as a warning. ``handler_errors``: ``"dead-letter"`` (the
    default) sends a message whose handler raised to ``dead_letter`` (reason
    ``handler-error``); ``"raise"`` raises ``HandlerError`` from the handler's exception
    instead, for a receiver to redeliver the message.
    """

    handler_errors: str = "dead-letter"

    def __init__(
        self,
        defs: tuple[MessageDef, ...],
        dead_letter: DeadLetter | None = None,
    ) -> None:
        self._dead_letter: DeadLetter = dead_letter or _log_dead_letter
        compiled = [_Def(d, i) for i, d in enumerate(defs)]
        self._by_id: dict[str, _Def] = {}
        for c in compiled:
            self._by_id.setdefault(c.id, c)
        self._by_type, self._untyped = _index_by_type(compiled)
        self._plain, self._plain_any = _index_plain(compiled)
        self._results: dict[tuple[str | None, str], DispatchResult] = {}

    # ---------------------------------------------------------------- registration

    @property
    def message_ids(self) -> tuple[str, ...]:
        """The ids of the definitions this dispatcher knows, in catalog order."""
        return tuple(self._by_id)

    def _register(self, message_id: str, handler: H) -> H:
        """Set the handler of ``message_id`` (replacing any earlier one); return ``handler``."""
        c = self._by_id.get(message_id)
        if c is None:
            raise KeyError(f"unknown message id {message_id!r}")
        c.handler = handler
        c.is_async = inspect.iscoroutinefunction(handler)
        return handler

    def on(self, message_id: str) -> Callable[[H], H]:
        """Decorator registering ``handler(event, params)`` for ``message_id``."""

        def decorate(handler: H) -> H:
            return self._register(message_id, handler)

        return decorate

    # ---------------------------------------------------------------- dispatch

    def dispatch(self, message: WireMessage) -> DispatchResult:
        """Decode, match, validate and hand ``message`` (any ``*Message``) to its handler.

        Never raises; returns what happened (see :class:`DispatchResult`).
        """
        decoded = self._decode(message)
        if type(decoded) is _PendingDead:
            return self._dead(decoded)
        event, family = decoded
        return self._run_sync(event, family, message)

    def dispatch_event(self, event: Event[Any], wire: object = None) -> DispatchResult:
        """Dispatch an already decoded event; ``wire`` (default: ``event``) goes to dead letter."""
        family = _BINDING_FAMILY.get(event.binding.__class__)
        return self._run_sync(event, family, event if wire is None else wire)

    async def dispatch_async(self, message: WireMessage) -> DispatchResult:
        """:meth:`dispatch` for async code: coroutine handlers (and dead letters) are awaited."""
        decoded = self._decode(message)
        if type(decoded) is _PendingDead:
            return await self._dead_async(decoded)
        event, family = decoded
        return await self._run_async(event, family, message)

    async def dispatch_event_async(
        self, event: Event[Any], wire: object = None
    ) -> DispatchResult:
        """:meth:`dispatch_event` awaiting coroutine handlers."""
        family = _BINDING_FAMILY.get(event.binding.__class__)
        return await self._run_async(event, family, event if wire is None else wire)

    # ---------------------------------------------------------------- internals

    def _decode(self, message: object) -> tuple[Event[Any], str] | _PendingDead:
        wire = _WIRE.get(message.__class__)
        if wire is None:
            detail = f"unsupported wire message type {type(message).__name__}"
            return _PendingDead(message, DECODE_ERROR, detail, None)
        try:
            decode = _decoders.get(message.__class__) or _decoder(message.__class__)
            return decode(message), wire[1]
        except DecodeError as exc:
            detail = f"{exc.reason}: {exc.detail}" if exc.detail else exc.reason
            return _PendingDead(message, DECODE_ERROR, detail, None)
        except Exception as exc:  # a codec bug or a missing codec module
            return _PendingDead(message, DECODE_ERROR, f"codec failure: {exc!r}", None)

    def _run_sync(
        self, event: Event[Any], family: str | None, origin: object
    ) -> DispatchResult:
        try:
            selected = self._select(event, family, origin)
        except Exception as exc:  # a bug here must still end in exactly one dead letter
            selected = _internal_error(origin, exc)
        if type(selected) is _PendingDead:
            return self._dead(selected)
        c, data, params = selected
        handler = c.handler
        assert handler is not None
        try:
            new = c.handler_event(event, data)
        except DecodeError as exc:
            return self._dead(_PendingDead(origin, VALIDATION_ERROR, str(exc), c.id))
        try:
            if c.is_async:
                return self._run_awaitable(c, handler(new, params), origin)
            outcome = handler(new, params)
        except Exception as exc:
            if self.handler_errors == "raise":
                raise HandlerError(c.id) from exc
            return self._dead(_PendingDead(origin, HANDLER_ERROR, repr(exc), c.id))
        if outcome is not None and inspect.isawaitable(outcome):
            return self._run_awaitable(c, outcome, origin)
        return c.ok

    def _run_awaitable(self, c: _Def, awaitable: Any, origin: object) -> DispatchResult:
        """Finish an async handler from synchronous dispatch (see the module doc)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                asyncio.run(_await(awaitable))
            except Exception as exc:
                if self.handler_errors == "raise":
                    raise HandlerError(c.id) from exc
                return self._dead(_PendingDead(origin, HANDLER_ERROR, repr(exc), c.id))
            return c.ok
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        detail = (
            f"{c.id}: async handler called from dispatch() inside a running event loop"
        )
        return self._dead(_PendingDead(origin, ASYNC_IN_SYNC, detail, c.id))

    async def _run_async(
        self, event: Event[Any], family: str | None, origin: object
    ) -> DispatchResult:
        try:
            selected = self._select(event, family, origin)
        except Exception as exc:  # a bug here must still end in exactly one dead letter
            selected = _internal_error(origin, exc)
        if type(selected) is _PendingDead:
            return await self._dead_async(selected)
        c, data, params = selected
        handler = c.handler
        assert handler is not None
        try:
            new = c.handler_event(event, data)
        except DecodeError as exc:
            return await self._dead_async(
                _PendingDead(origin, VALIDATION_ERROR, str(exc), c.id)
            )
        try:
            outcome = handler(new, params)
            if outcome is not None and inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            if self.handler_errors == "raise":
                raise HandlerError(c.id) from exc
            return await self._dead_async(
                _PendingDead(origin, HANDLER_ERROR, repr(exc), c.id)
            )
        return c.ok

    def _select(
        self, event: Event[Any], family: str | None, origin: object
    ) -> tuple[_Def, object, dict[str, str]] | _PendingDead:
        """The definition, payload and params for ``event``, or the dead letter to send."""
        attrs = event.attributes
        if attrs:
            etype = attrs.get("type")
            candidates = (
                self._by_type.get(etype, self._untyped)
                if etype.__class__ is str
                else ()
            )
        else:
            candidates = self._plain.get(family, self._plain_any)
        if not candidates:
            return _PendingDead(origin, UNKNOWN_TYPE, _describe(attrs, family), None)
        binding = event.binding
        matched: list[tuple[_Def, dict[str, str]]] | None = None
        for c in candidates:
            params = c.match(attrs, binding, family)
            if params is None:
                continue
            if c.handler is not None:
                try:
                    return c, c.payload(event), params
                except _Invalid:
                    pass
            if matched is None:
                matched = []
            matched.append((c, params))
        if matched is None:
            ids = ", ".join(c.id for c in candidates[:5])
            detail = f"{_describe(attrs, family)} matched none of: {ids}"
            only = candidates[0].id if len(candidates) == 1 else None
            return _PendingDead(origin, NO_MATCH, detail, only)
        return _explain_failure(event, matched, origin)

    def _result(self, message_id: str | None, reason: str) -> DispatchResult:
        key = (message_id, reason)
        result = self._results.get(key)
        if result is None:
            result = self._results[key] = DispatchResult(False, message_id, reason)
        return result

    def _dead(self, dead: _PendingDead) -> DispatchResult:
        try:
            outcome = self._dead_letter(dead.origin, dead.reason, dead.detail)
            if outcome is not None and inspect.isawaitable(outcome):
                _finish_dead_letter_sync(outcome)
        except Exception:
            _log.exception("dead-letter callback failed (reason %s)", dead.reason)
        return self._result(dead.message_id, dead.reason)

    async def _dead_async(self, dead: _PendingDead) -> DispatchResult:
        try:
            outcome = self._dead_letter(dead.origin, dead.reason, dead.detail)
            if outcome is not None and inspect.isawaitable(outcome):
                await outcome
        except Exception:
            _log.exception("dead-letter callback failed (reason %s)", dead.reason)
        return self._result(dead.message_id, dead.reason)


@final
class _PendingDead:
    """A dead letter still to be delivered (internal).

    The dispatch path tests ``type(x) is _PendingDead`` (cheaper than ``isinstance``), the
    same test because the class is final (and mypy narrows it for that reason too).
    """

    __slots__ = ("origin", "reason", "detail", "message_id")

    def __init__(
        self, origin: object, reason: str, detail: str, message_id: str | None
    ) -> None:
        self.origin = origin
        self.reason = reason
        self.detail = bounded_detail(detail)
        self.message_id = message_id


def _internal_error(origin: object, exc: Exception) -> _PendingDead:
    _log.exception("dispatch engine failure")
    return _PendingDead(origin, INTERNAL_ERROR, repr(exc), None)


def _explain_failure(
    event: Event[Any], matched: list[tuple[_Def, dict[str, str]]], origin: object
) -> _PendingDead:
    """Why no handler took an event that matched at least one definition.

    ``no-handler`` when a matching definition without a handler also accepts the payload, or
    when no matching definition has a handler at all; otherwise ``validation-error``.
    """
    first_error: str | None = None
    first_error_id: str | None = None
    for c, _params in matched:
        if c.handler is not None:
            try:
                c.payload(event)
            except _Invalid as exc:
                if first_error is None:
                    first_error, first_error_id = str(exc), c.id
            continue
        try:
            c.payload(event)
        except _Invalid:
            continue
        return _PendingDead(origin, NO_HANDLER, f"{c.id}: no handler registered", c.id)
    if first_error is None:
        c = matched[0][0]
        return _PendingDead(origin, NO_HANDLER, f"{c.id}: no handler registered", c.id)
    return _PendingDead(origin, VALIDATION_ERROR, first_error, first_error_id)


def _describe(attrs: Mapping[str, Any], family: str | None) -> str:
    if attrs:
        return f"type {attrs.get('type')!r}"
    return f"plain {family or 'unknown'} message"


def _index_by_type(
    compiled: list[_Def],
) -> tuple[dict[object, tuple[_Def, ...]], tuple[_Def, ...]]:
    """CloudEvents candidates by ``type``, each tuple in catalog order with the untyped ones."""
    untyped = [c for c in compiled if c.defn.envelope and not _fixed_type(c.defn)]
    typed: dict[object, list[_Def]] = {}
    for c in compiled:
        if c.defn.envelope and _fixed_type(c.defn):
            typed.setdefault(c.defn.type, []).append(c)
    by_type: dict[object, tuple[_Def, ...]] = {
        t: tuple(sorted(cs + untyped, key=_rank)) for t, cs in typed.items()
    }
    return by_type, tuple(sorted(untyped, key=_rank))


def _rank(c: _Def) -> tuple[int, int, int, int]:
    return c.rank


def _fixed_type(defn: MessageDef) -> bool:
    return defn.type is not None and _PLACEHOLDER.search(defn.type) is None


def _index_plain(
    compiled: list[_Def],
) -> tuple[dict[str | None, tuple[_Def, ...]], tuple[_Def, ...]]:
    """Plain (no envelope) candidates by protocol family, with the protocol-less ones."""
    plain = sorted((c for c in compiled if not c.defn.envelope), key=_rank)
    anywhere = tuple(c for c in plain if c.family is None)
    families = {c.family for c in plain if c.family is not None}
    by_family: dict[str | None, tuple[_Def, ...]] = {
        f: tuple(c for c in plain if c.family in (f, None)) for f in families
    }
    return by_family, anywhere


async def _await(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _finish_dead_letter_sync(awaitable: Awaitable[Any]) -> None:
    """Run an async dead-letter callback from synchronous dispatch."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(_await(awaitable))
        return
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise RuntimeError(
        "async dead-letter callback called from dispatch() in a running loop"
    )


def _log_dead_letter(original: object, reason: str, detail: str) -> None:
    """The default dead-letter callback: a warning with the reason and detail."""
    _log.warning("dead letter (%s): %s [%s]", reason, detail, type(original).__name__)
