"""What instrumentation records (docs/observability.md lists every span, attribute and
metric): the :class:`Observer` that ``xrgen_runtime.otel.instrument`` puts in the runtime's
hook slot (``_hooks.HOOKS``), which the producer (``_produce``), the dispatcher
(``_dispatch``) and the senders (``adapters/_sender``) read.

Spans follow the OpenTelemetry messaging semantic conventions (``{operation} {destination}``
names, ``messaging.*`` attributes) plus the CloudEvents ones (``cloudevents.*``):

- ``create`` (PRODUCER) when a producer creates an event: the event's creation context, written
  into its ``traceparent``/``tracestate`` attributes. An event that already carries a
  ``traceparent`` keeps it and gets no ``create`` span (the caller's context is its creation
  context);
- ``send`` (CLIENT: its context is not the creation context) around a sender's ``send``, until
  the server confirmed the message (a returned future's completion), linked to the creation
  context the message carries;
- ``process`` (CONSUMER) around matching, validation and the handler call (or the dead letter)
  of one dispatched message; its parent is the context the message carries, and a span that
  was current when dispatch was called becomes a link.

Metric attributes hold only values from the catalog and the runtime (definition ids, binding
names, reason tokens, templates), never text from the wire, so their cardinality is bounded by
the catalog.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Link, Span, SpanKind, Status, StatusCode

from .._definitions import MessageDef
from .._event import Event
from .._outcome import HANDLER_ERROR, DispatchResult, HandlerError, PendingDead
from .._version import __version__
from ..bindings import BindingSpec
from ._context import parent_context, traceparent, tracestate
from ._vocabulary import (
    BUCKETS,
    CACHE_MAX,
    DEAD_LETTER,
    DECODE_REASON,
    DEFINITION,
    DESTINATION,
    ERROR_TYPE,
    HANDLED,
    OPERATION_NAME,
    OPERATION_TYPE,
    OUTCOME,
    RAISED,
    REASON,
    SCOPE,
    SPEC_OF_ADAPTER,
    SPEC_OF_BINDING,
    SPEC_OF_WIRE,
    SYSTEM,
    TEMPLATE,
    Defined,
    decoded,
    event_attributes,
    process_name,
    qualified,
)

if TYPE_CHECKING:
    from .._dispatch import DispatcherBase
    from .._produce import Emitter

__all__ = ["Observer"]

_perf = time.perf_counter
_attach = otel_context.attach
_detach = otel_context.detach
_set_span = trace.set_span_in_context
_current_span = trace.get_current_span
_current_context = otel_context.get_current


class Observer:
    """The spans and metrics behind the runtime's hooks (see the module doc)."""

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        self.tracer = trace.get_tracer(SCOPE, __version__, tracer_provider)
        meter = metrics.get_meter(SCOPE, __version__, meter_provider)
        self.created_events = meter.create_counter(
            "xrgen.events.created",
            unit="{event}",
            description="Events created by the generated producers",
        )
        self.sent_messages = meter.create_counter(
            "messaging.client.sent.messages",
            unit="{message}",
            description="Messages the senders attempted to send to the server",
        )
        self.send_duration = meter.create_histogram(
            "messaging.client.operation.duration",
            unit="s",
            description="Duration of a send, until the server confirmed the message",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )
        self.consumed_messages = meter.create_counter(
            "messaging.client.consumed.messages",
            unit="{message}",
            description="Messages dispatched: handled, or dead-lettered with a reason",
        )
        self.process_duration = meter.create_histogram(
            "messaging.process.duration",
            unit="s",
            description="Duration of dispatching a decoded message: matching, payload "
            "validation and the handler call, or the dead letter",
            explicit_bucket_boundaries_advisory=BUCKETS,
        )
        self.decode_failures = meter.create_counter(
            "xrgen.decode.failures",
            unit="{message}",
            description="Wire messages the dispatchers could not decode, by reason",
        )
        self._defined: dict[int, Defined] = {}
        #: (binding, destination name) -> the attributes a process span starts with
        self._process_start: dict[
            tuple[BindingSpec | None, str | None], dict[str, str]
        ] = {}
        #: (binding name, definition id, reason) -> metric attributes of a dispatch
        self._dispatch_metric: dict[
            tuple[str | None, str | None, str | None], dict[str, str]
        ] = {}

    def _definition(self, definition: MessageDef) -> Defined:
        found = self._defined.get(id(definition))
        if found is None:
            found = self._defined[id(definition)] = Defined(definition)
        return found

    # ------------------------------------------------------------------ producing

    def created(self, emitter: Emitter, event: Event[Any]) -> None:
        """A producer created ``event``: count it, and give it a creation context."""
        defined = self._definition(emitter.definition)
        self.created_events.add(1, defined.metric)
        attributes = event.attributes
        if not attributes or "traceparent" in attributes:
            # a plain message carries no attributes; a caller's context stays as it is
            return
        start: dict[str, str] = {OPERATION_TYPE: "create", OPERATION_NAME: "create"}
        spec = defined.spec
        if spec is not None:
            start[SYSTEM] = spec.name
            destination = getattr(event.binding, spec.destination, None)
            if destination.__class__ is str:
                start[DESTINATION] = destination
        if defined.template is not None:
            start[TEMPLATE] = defined.template
        span = self.tracer.start_span(
            defined.create_name, kind=SpanKind.PRODUCER, attributes=start
        )
        if span.is_recording():
            event_attributes(span, attributes)
            span.set_attribute(DEFINITION, defined.definition.id)
        span.end()
        span_context = span.get_span_context()
        if span_context.is_valid:
            attributes["traceparent"] = traceparent(span_context)
            state = tracestate(span_context)
            if state is not None and "tracestate" not in attributes:
                attributes["tracestate"] = state

    # ------------------------------------------------------------------ sending

    def send(
        self,
        send: Callable[..., Any],
        sender: Any,
        message: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """``send(sender, message, *args, **kwargs)`` in a ``send`` span; a returned future
        ends it."""
        span, metric = self._start_send(sender, message)
        token = _attach(_set_span(span))
        start = _perf()
        try:
            result = send(sender, message, *args, **kwargs)
        except BaseException as exc:
            self._end_send(span, metric, start, exc)
            raise
        finally:
            _detach(token)
        if isinstance(result, Future):
            result.add_done_callback(
                lambda done: self._end_send(
                    span, metric, start, None if done.cancelled() else done.exception()
                )
            )
        else:
            self._end_send(span, metric, start, None)
        return result

    async def send_async(
        self,
        send: Callable[..., Awaitable[Any]],
        sender: Any,
        message: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """:meth:`send` for the asyncio senders."""
        span, metric = self._start_send(sender, message)
        token = _attach(_set_span(span))
        start = _perf()
        try:
            result = await send(sender, message, *args, **kwargs)
        except BaseException as exc:
            self._end_send(span, metric, start, exc)
            raise
        finally:
            _detach(token)
        self._end_send(span, metric, start, None)
        return result

    def _start_send(self, sender: Any, message: Any) -> tuple[Span, dict[str, str]]:
        event: Event[Any] | None = message if isinstance(message, Event) else None
        # the adapter's binding; else (the in-memory brokers' senders) the message's
        where = event.binding if event is not None else message
        spec = SPEC_OF_ADAPTER.get(sender.__class__.__module__) or (
            SPEC_OF_BINDING.get(where.__class__)
            if event is not None
            else SPEC_OF_WIRE.get(where.__class__)
        )
        start: dict[str, str] = {OPERATION_TYPE: "send", OPERATION_NAME: "send"}
        metric: dict[str, str] = {OPERATION_NAME: "send"}
        name = "send"
        if spec is not None:
            start[SYSTEM] = metric[SYSTEM] = spec.name
            destination = (
                getattr(where, spec.destination, None)
                if where.__class__ in (spec.message_type, spec.binding_type)
                else None  # a typed event without its binding: the encoder decides
            )
            if destination.__class__ is str and destination:
                start[DESTINATION] = destination
                name = f"send {destination}"
        span = self.tracer.start_span(name, kind=SpanKind.CLIENT, attributes=start)
        if span.is_recording():
            if event is None and spec is not None:
                event = decoded(spec, message)
            if event is not None and event.attributes:
                event_attributes(span, event.attributes)
                created = parent_context(
                    event.attributes.get("traceparent"),
                    event.attributes.get("tracestate"),
                )
                if created is not None:
                    span.add_link(_current_span(created).get_span_context())
        return span, metric

    def _end_send(
        self,
        span: Span,
        metric: dict[str, str],
        start: float,
        error: BaseException | None,
    ) -> None:
        elapsed = _perf() - start
        if error is not None:
            kind = qualified(error)
            metric = {**metric, ERROR_TYPE: kind}
            if span.is_recording():
                span.record_exception(error)
                span.set_attribute(ERROR_TYPE, kind)
                span.set_status(Status(StatusCode.ERROR, kind))
        span.end()
        self.sent_messages.add(1, metric)
        self.send_duration.record(elapsed, metric)

    # ------------------------------------------------------------------ dispatching

    def process(
        self,
        dispatcher: DispatcherBase,
        run: Callable[[Event[Any], str | None, object], DispatchResult],
        event: Event[Any],
        family: str | None,
        origin: object,
    ) -> DispatchResult:
        """``run(event, family, origin)`` (the dispatcher's pipeline after decoding) in a
        ``process`` span, then the dispatch metrics."""
        binding = event.binding
        spec = SPEC_OF_BINDING.get(binding.__class__)
        return self._processing(
            dispatcher, spec, binding, event, run, event, family, origin
        )

    async def process_async(
        self,
        dispatcher: DispatcherBase,
        run: Callable[[Event[Any], str | None, object], Awaitable[DispatchResult]],
        event: Event[Any],
        family: str | None,
        origin: object,
    ) -> DispatchResult:
        """:meth:`process` for ``dispatch_async``."""
        binding = event.binding
        spec = SPEC_OF_BINDING.get(binding.__class__)
        return await self._processing_async(
            dispatcher, spec, binding, event, run, event, family, origin
        )

    def undecodable(
        self,
        dispatcher: DispatcherBase,
        dead: Callable[[PendingDead], DispatchResult],
        pending: PendingDead,
    ) -> DispatchResult:
        """``dead(pending)``, the dead letter of a wire message that did not decode, in a
        ``process`` span, then the dispatch metrics."""
        message = pending.origin
        spec = SPEC_OF_WIRE.get(message.__class__)
        return self._processing(dispatcher, spec, message, None, dead, pending)

    async def undecodable_async(
        self,
        dispatcher: DispatcherBase,
        dead: Callable[[PendingDead], Awaitable[DispatchResult]],
        pending: PendingDead,
    ) -> DispatchResult:
        """:meth:`undecodable` for ``dispatch_async``."""
        message = pending.origin
        spec = SPEC_OF_WIRE.get(message.__class__)
        return await self._processing_async(
            dispatcher, spec, message, None, dead, pending
        )

    def _processing(
        self,
        dispatcher: DispatcherBase,
        spec: BindingSpec | None,
        where: object,
        event: Event[Any] | None,
        run: Callable[..., DispatchResult],
        *args: Any,
    ) -> DispatchResult:
        """``run(*args)`` in a ``process`` span (``where``: the binding or wire message that
        names the destination), then the span's outcome and the metrics."""
        span = self._start_process(spec, where, event)
        token = _attach(_set_span(span))
        start = _perf()
        try:
            result = run(*args)
        except BaseException as exc:
            self._end_raised(spec, span, event, exc, _perf() - start)
            raise
        finally:
            _detach(token)
        self._end_process(dispatcher, spec, span, event, result, _perf() - start)
        return result

    async def _processing_async(
        self,
        dispatcher: DispatcherBase,
        spec: BindingSpec | None,
        where: object,
        event: Event[Any] | None,
        run: Callable[..., Awaitable[DispatchResult]],
        *args: Any,
    ) -> DispatchResult:
        """:meth:`_processing`, awaiting ``run``."""
        span = self._start_process(spec, where, event)
        token = _attach(_set_span(span))
        start = _perf()
        try:
            result = await run(*args)
        except BaseException as exc:
            self._end_raised(spec, span, event, exc, _perf() - start)
            raise
        finally:
            _detach(token)
        self._end_process(dispatcher, spec, span, event, result, _perf() - start)
        return result

    def decode_failed(self, message: object, reason: str) -> None:
        """Count a wire message that did not decode, by the codec's reason."""
        spec = SPEC_OF_WIRE.get(message.__class__)
        metric = {DECODE_REASON: reason}
        if spec is not None:
            metric[SYSTEM] = spec.name
        self.decode_failures.add(1, metric)

    def handler_failed(self, error: BaseException) -> None:
        """Record a handler's exception on the current (``process``) span."""
        span = _current_span()
        if span.is_recording():
            span.record_exception(error)

    def _start_process(
        self, spec: BindingSpec | None, where: object, event: Event[Any] | None
    ) -> Span:
        destination = getattr(where, spec.destination, None) if spec else None
        start = self._process_attributes(spec, destination)
        attributes = event.attributes if event is not None else None
        parent = (
            parent_context(attributes.get("traceparent"), attributes.get("tracestate"))
            if attributes
            else None
        )
        links: list[Link] | None = None
        if parent is not None:
            current = _current_context()
            if current:  # an empty context holds no span
                ambient = _current_span(current).get_span_context()
                if ambient.is_valid:
                    links = [Link(ambient)]
        return self.tracer.start_span(
            process_name(destination), parent, SpanKind.CONSUMER, start, links
        )

    def _process_attributes(
        self, spec: BindingSpec | None, destination: object
    ) -> dict[str, str]:
        key = (spec, destination if destination.__class__ is str else None)
        start = self._process_start.get(key)
        if start is None:
            start = {OPERATION_TYPE: "process", OPERATION_NAME: "process"}
            if spec is not None:
                start[SYSTEM] = spec.name
            if key[1]:
                start[DESTINATION] = key[1]
            if len(self._process_start) < CACHE_MAX:
                self._process_start[key] = start
        return start

    def _end_process(
        self,
        dispatcher: DispatcherBase,
        spec: BindingSpec | None,
        span: Span,
        event: Event[Any] | None,
        result: DispatchResult,
        elapsed: float,
    ) -> None:
        message_id, reason = result.message_id, result.reason
        if span.is_recording():
            if event is not None and event.attributes:
                event_attributes(span, event.attributes)
            if message_id is not None:
                span.set_attribute(DEFINITION, message_id)
                compiled = dispatcher._by_id.get(message_id)
                if compiled is not None:
                    template = self._definition(compiled.defn).template
                    if template is not None:
                        span.set_attribute(TEMPLATE, template)
                        span.update_name(f"process {template}")
            if reason is None:
                span.set_attribute(OUTCOME, HANDLED)
            else:
                span.set_attributes(
                    {OUTCOME: DEAD_LETTER, REASON: reason, ERROR_TYPE: reason}
                )
                span.set_status(Status(StatusCode.ERROR, reason))
        span.end()
        metric = self._metric(spec, message_id, reason)
        self.consumed_messages.add(1, metric)
        self.process_duration.record(elapsed, metric)

    def _end_raised(
        self,
        spec: BindingSpec | None,
        span: Span,
        event: Event[Any] | None,
        error: BaseException,
        elapsed: float,
    ) -> None:
        """End the span of a dispatch that raised: ``HandlerError`` (the dispatcher gives the
        message back, ``handler_errors = "raise"``; the handler's exception is recorded
        already) or an exception that is not an ``Exception`` (``KeyboardInterrupt``, a
        cancelled task)."""
        handler_error = isinstance(error, HandlerError)
        kind = HANDLER_ERROR if handler_error else qualified(error)
        message_id = error.message_id if isinstance(error, HandlerError) else None
        if span.is_recording():
            if event is not None and event.attributes:
                event_attributes(span, event.attributes)
            if message_id is not None:
                span.set_attribute(DEFINITION, message_id)
            if not handler_error:
                span.record_exception(error)
            span.set_attributes({OUTCOME: RAISED, ERROR_TYPE: kind})
            span.set_status(Status(StatusCode.ERROR, kind))
        span.end()
        metric = {OPERATION_TYPE: "process", OPERATION_NAME: "process"}
        if spec is not None:
            metric[SYSTEM] = spec.name
        if message_id is not None:
            metric[DEFINITION] = message_id
        metric[OUTCOME] = RAISED
        metric[ERROR_TYPE] = kind
        self.consumed_messages.add(1, metric)
        self.process_duration.record(elapsed, metric)

    def _metric(
        self, spec: BindingSpec | None, message_id: str | None, reason: str | None
    ) -> dict[str, str]:
        key = (spec.name if spec is not None else None, message_id, reason)
        metric = self._dispatch_metric.get(key)
        if metric is None:
            metric = {OPERATION_TYPE: "process", OPERATION_NAME: "process"}
            if key[0] is not None:
                metric[SYSTEM] = key[0]
            if message_id is not None:
                metric[DEFINITION] = message_id
            if reason is None:
                metric[OUTCOME] = HANDLED
            else:
                metric[OUTCOME] = DEAD_LETTER
                metric[REASON] = reason
                metric[ERROR_TYPE] = reason
            # keys come from the catalog and the reason tokens: bounded
            self._dispatch_metric[key] = metric
        return metric
