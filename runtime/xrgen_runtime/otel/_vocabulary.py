"""The vocabulary of the instrumentation: span and metric attribute names (OpenTelemetry's
messaging and CloudEvents semantic conventions, then xrgen's own), the bindings by the types
and adapters that name them, what a message definition contributes (:class:`Defined`), and
the small readings of events and errors the spans take."""

from __future__ import annotations

from typing import Any

from opentelemetry.trace import Span

from .._definitions import MessageDef
from .._event import Event
from ..bindings import BINDINGS, BindingSpec, by_protocol

__all__ = [
    "BUCKETS",
    "CACHE_MAX",
    "CE_ID",
    "CE_SOURCE",
    "CE_SPEC_VERSION",
    "CE_SUBJECT",
    "CE_TYPE",
    "CLOUDEVENTS",
    "DEAD_LETTER",
    "DECODE_REASON",
    "decoded",
    "Defined",
    "DEFINITION",
    "DESTINATION",
    "ERROR_TYPE",
    "event_attributes",
    "HANDLED",
    "MESSAGE_ID",
    "OPERATION_NAME",
    "OPERATION_TYPE",
    "OUTCOME",
    "process_name",
    "qualified",
    "RAISED",
    "REASON",
    "SCOPE",
    "SPEC_OF_ADAPTER",
    "SPEC_OF_BINDING",
    "SPEC_OF_WIRE",
    "SYSTEM",
    "TEMPLATE",
]

SCOPE = "xrgen_runtime"

# span and metric attributes (OpenTelemetry semantic conventions, then xrgen's own)
SYSTEM = "messaging.system"
DESTINATION = "messaging.destination.name"
TEMPLATE = "messaging.destination.template"
OPERATION_TYPE = "messaging.operation.type"
OPERATION_NAME = "messaging.operation.name"
MESSAGE_ID = "messaging.message.id"
ERROR_TYPE = "error.type"
CE_ID = "cloudevents.event_id"
CE_TYPE = "cloudevents.event_type"
CE_SOURCE = "cloudevents.event_source"
CE_SUBJECT = "cloudevents.event_subject"
CE_SPEC_VERSION = "cloudevents.event_spec_version"
DEFINITION = "xrgen.message.id"
OUTCOME = "xrgen.outcome"
REASON = "xrgen.dead_letter.reason"
DECODE_REASON = "xrgen.decode.reason"
HANDLED = "handled"
DEAD_LETTER = "dead-letter"
RAISED = "raised"

#: ``cloudevents.*`` span attribute -> the CloudEvents attribute it holds
CLOUDEVENTS = (
    (CE_ID, "id"),
    (CE_TYPE, "type"),
    (CE_SOURCE, "source"),
    (CE_SUBJECT, "subject"),
    (CE_SPEC_VERSION, "specversion"),
)
#: the bucket boundaries (seconds) the conventions advise for messaging durations
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
#: the most start-attribute sets kept per destination name (names come from the wire)
CACHE_MAX = 1024

SPEC_OF_BINDING: dict[type, BindingSpec] = {
    b.binding_type: b for b in BINDINGS.values()
}
SPEC_OF_WIRE: dict[type, BindingSpec] = {b.message_type: b for b in BINDINGS.values()}
SPEC_OF_ADAPTER: dict[str, BindingSpec] = {
    b.adapter_module: b for b in BINDINGS.values()
}


class Defined:
    """What a message definition contributes to telemetry, computed once per definition."""

    __slots__ = ("definition", "spec", "template", "constant", "create_name", "metric")

    def __init__(self, definition: MessageDef) -> None:
        #: kept so that ``id(definition)`` (the cache key) is never reused
        self.definition = definition
        spec = by_protocol(definition.protocol)
        self.spec = spec
        self.template: str | None = None
        self.constant: str | None = None
        if spec is not None:
            for option in definition.options:
                if option.path == (spec.destination,) and isinstance(option.value, str):
                    if option.template and "{" in option.value:
                        self.template = option.value
                    else:
                        self.constant = option.value
        where = self.template or self.constant
        self.create_name = f"create {where}" if where else "create"
        self.metric: dict[str, str] = {DEFINITION: definition.id}
        if spec is not None:
            self.metric[SYSTEM] = spec.name


def process_name(destination: object) -> str:
    return (
        f"process {destination}"
        if destination.__class__ is str and destination
        else "process"
    )


def event_attributes(span: Span, attributes: dict[str, Any]) -> None:
    """The ``cloudevents.*`` and ``messaging.message.id`` attributes of an event."""
    for name, attribute in CLOUDEVENTS:
        value = attributes.get(attribute)
        if value.__class__ is str:
            span.set_attribute(name, value)
    value = attributes.get("id")
    if value.__class__ is str:
        span.set_attribute(MESSAGE_ID, value)


def decoded(spec: BindingSpec, message: object) -> Event[Any] | None:
    """``message`` decoded by its binding's codec, ``None`` when it does not decode."""
    try:
        event: Event[Any] = spec.codec().decode(message)
    except Exception:
        return None
    return event


def qualified(error: BaseException) -> str:
    """The class name of ``error``, qualified by its module unless it is a builtin."""
    cls = error.__class__
    module = cls.__module__
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"
