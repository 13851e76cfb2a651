"""xrgen_runtime.otel with the OpenTelemetry SDK's in-memory span exporter and metric reader:
one trace from the generated producer through the in-memory broker of each binding to the
handler, the spans and metrics of handled, dead-lettered, undecodable and failing messages,
the trace context a caller or a received event already carries, switching instrumentation on
and off, and the package without OpenTelemetry installed."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import xrgen_runtime
import xrgen_runtime.otel as otel
from acme_samples import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from otel_recording import Telemetry, instrumented
from xrgen_runtime import KafkaMessage
from xrgen_runtime._hooks import HOOKS
from xrgen_runtime.bindings import BINDINGS
from xrgen_runtime.otel._context import parent_context
from xrgen_runtime.testing import Brokers

UPSTREAM = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    with instrumented() as t:
        yield t



def attrs(**kw: Any) -> frozenset[tuple[str, Any]]:
    """Metric attributes written with ``__`` for ``.`` (``xrgen__outcome``)."""
    return frozenset((k.replace("__", "."), v) for k, v in kw.items())


def dispatcher(acme: ModuleType, message_id: str, handler: Any = None) -> tuple[Any, list[Any]]:
    dead: list[Any] = []
    d = acme.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append(reason))
    if handler is not None:
        d.on(message_id)(handler)
    return d, dead


def codec(acme: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{acme.__name__}.bindings.{name}")


def create(acme: ModuleType, message_id: str) -> Any:
    data, kwargs = SAMPLES[message_id]
    return acme.MESSAGES[message_id].create(data, **kwargs)


# ----------------------------------------------------------------- one trace, every binding

BOUND = {
    "com.acme.Reading": "kafka",
    "com.acme.Alarm": "mqtt",
    "com.acme.ReadingBatch": "http",
    "com.acme.ops.MaintenanceScheduled": "amqp",
    "com.acme.ops.ShiftChanged": "nats",
}


@pytest.mark.parametrize("mode", ["binary", "structured"])
@pytest.mark.parametrize("message_id", sorted(BOUND))
def test_one_trace_from_producer_through_in_memory_broker_to_handler(
    acme: ModuleType, telemetry: Telemetry, message_id: str, mode: str
) -> None:
    name = BOUND[message_id]
    spec = BINDINGS[name]
    broker = getattr(Brokers(), name)
    seen: list[tuple[Any, Any]] = []
    d, dead = dispatcher(
        acme,
        message_id,
        lambda ev, params: seen.append((ev, trace.get_current_span().get_span_context())),
    )
    with telemetry.tracer.start_as_current_span("request") as request:
        event = create(acme, message_id)
        wire = broker.encode(event, mode)
        destination = getattr(wire, spec.destination)
        broker.subscribe(destination, d.dispatch)
        broker.sender().send(wire)
    assert not dead and len(seen) == 1

    (created,) = telemetry.named("create")
    (sent,) = telemetry.named("send")
    (processed,) = telemetry.named("process")
    trace_id = request.get_span_context().trace_id
    assert {s.context.trace_id for s in telemetry.finished()} == {trace_id}

    # create: PRODUCER child of the caller's span; its context travels in the event
    assert created.kind is SpanKind.PRODUCER
    assert created.parent is not None
    assert created.parent.span_id == request.get_span_context().span_id
    assert event.attributes["traceparent"] == (
        f"00-{trace_id:032x}-{created.context.span_id:016x}-{created.context.trace_flags:02x}"
    )
    template = next(
        (o.value for o in acme.MESSAGES[message_id].definition.options
         if o.path == (spec.destination,) and o.template),
        None,
    )
    assert created.name == f"create {template or destination}"
    assert created.attributes is not None
    assert created.attributes["messaging.operation.type"] == "create"
    assert created.attributes["messaging.system"] == name
    assert created.attributes["messaging.destination.name"] == destination
    assert created.attributes["cloudevents.event_id"] == event.attributes["id"]
    assert created.attributes["cloudevents.event_type"] == event.attributes["type"]
    assert created.attributes["cloudevents.event_source"] == event.attributes["source"]
    assert created.attributes["messaging.message.id"] == event.attributes["id"]
    assert created.attributes["xrgen.message.id"] == message_id
    if template is not None:
        assert created.attributes["messaging.destination.template"] == template

    # send: CLIENT child of the caller's span, linked to the creation context
    assert sent.kind is SpanKind.CLIENT
    assert sent.parent is not None and sent.parent.span_id == request.get_span_context().span_id
    assert sent.name == f"send {destination}"
    assert [link.context.span_id for link in sent.links] == [created.context.span_id]
    assert sent.attributes is not None
    assert sent.attributes["messaging.operation.type"] == "send"
    assert sent.attributes["cloudevents.event_id"] == event.attributes["id"]

    # process: CONSUMER child of the creation context, the handler runs in it; the span that
    # was current (the in-memory sender delivers inside send) is a link
    assert processed.kind is SpanKind.CONSUMER
    assert processed.parent is not None and processed.parent.is_remote
    assert processed.parent.span_id == created.context.span_id
    assert [link.context.span_id for link in processed.links] == [sent.context.span_id]
    handled, current = seen[0]
    assert current.span_id == processed.context.span_id
    assert handled.attributes["traceparent"] == event.attributes["traceparent"]
    assert processed.name == f"process {template or destination}"
    assert processed.attributes is not None
    assert processed.attributes["messaging.operation.type"] == "process"
    assert processed.attributes["messaging.system"] == name
    assert processed.attributes["messaging.destination.name"] == destination
    assert processed.attributes["xrgen.message.id"] == message_id
    assert processed.attributes["xrgen.outcome"] == "handled"
    assert processed.attributes["cloudevents.event_id"] == event.attributes["id"]
    assert processed.status.status_code is StatusCode.UNSET

    for span in (created, sent, processed):
        assert span.instrumentation_scope is not None
        assert span.instrumentation_scope.name == "xrgen_runtime"
        assert span.instrumentation_scope.version == xrgen_runtime.__version__

    assert telemetry.points("xrgen.events.created") == {
        attrs(xrgen__message__id=message_id, messaging__system=name): 1
    }
    sent_attributes = attrs(messaging__operation__name="send", messaging__system=name)
    assert telemetry.points("messaging.client.sent.messages") == {sent_attributes: 1}
    assert telemetry.points("messaging.client.operation.duration") == {sent_attributes: 1}


def test_an_event_produced_by_the_handler_continues_the_trace(
    acme: ModuleType, telemetry: Telemetry
) -> None:
    forwarded: list[Any] = []
    d, dead = dispatcher(
        acme, "com.acme.Reading", lambda ev, params: forwarded.append(create(acme, "com.acme.Alarm"))
    )
    event = create(acme, "com.acme.Reading")
    assert d.dispatch(codec(acme, "kafka").encode(event)) and not dead
    processed = telemetry.named("process")[0]
    first, second = sorted(telemetry.named("create"), key=lambda s: s.start_time or 0)
    assert second.parent is not None and second.parent.span_id == processed.context.span_id
    assert {first.context.trace_id, second.context.trace_id, processed.context.trace_id} == {
        first.context.trace_id
    }
    assert forwarded[0].attributes["traceparent"].split("-")[1] == f"{first.context.trace_id:032x}"


def test_a_failing_send_records_its_error(acme: ModuleType, telemetry: Telemetry) -> None:
    broker = Brokers().kafka
    event = create(acme, "com.acme.Reading")
    with pytest.raises(ValueError):
        broker.sender().send(codec(acme, "kafka").encode(event, topic="no spaces allowed"))
    (sent,) = telemetry.named("send")
    assert sent.status.status_code is StatusCode.ERROR
    assert (sent.attributes or {})["error.type"] == "ValueError"
    assert [e.name for e in sent.events] == ["exception"]
    assert telemetry.points("messaging.client.sent.messages") == {
        attrs(messaging__operation__name="send", messaging__system="kafka", error__type="ValueError"): 1
    }


def test_async_dispatch_runs_the_handler_in_the_process_span(
    acme: ModuleType, telemetry: Telemetry
) -> None:
    seen: list[Any] = []

    async def handler(ev: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0)
        seen.append(trace.get_current_span().get_span_context())

    d, dead = dispatcher(acme, "com.acme.Reading", handler)
    event = create(acme, "com.acme.Reading")
    result = asyncio.run(d.dispatch_async(codec(acme, "kafka").encode(event)))
    assert result and not dead
    (created,) = telemetry.named("create")
    (processed,) = telemetry.named("process")
    assert processed.parent is not None and processed.parent.span_id == created.context.span_id
    assert seen[0].span_id == processed.context.span_id


# ------------------------------------------------------------------- outcomes and metrics


def test_metrics_of_handled_dead_lettered_and_failing_messages(
    acme: ModuleType, telemetry: Telemetry
) -> None:
    kafka = codec(acme, "kafka")
    failures = iter([False, True, False])

    def handler(ev: Any, params: dict[str, str]) -> None:
        if next(failures):
            raise RuntimeError("boom")

    d, dead = dispatcher(acme, "com.acme.Reading", handler)
    reading = kafka.encode(create(acme, "com.acme.Reading"))
    line = kafka.encode(create(acme, "com.acme.ops.LineStatus"))  # no handler
    garbage = KafkaMessage(topic="acme.readings", key=None, value=b"{", headers=(("ce_specversion", b"1.0"),))
    for message in (reading, reading, reading, line, garbage):
        d.dispatch(message)
    assert dead == ["handler-error", "no-handler", "decode-error"]

    common = {"messaging__operation__name": "process", "messaging__operation__type": "process", "messaging__system": "kafka"}
    handled = attrs(**common, xrgen__message__id="com.acme.Reading", xrgen__outcome="handled")
    failed = attrs(
        **common,
        xrgen__message__id="com.acme.Reading",
        xrgen__outcome="dead-letter",
        xrgen__dead_letter__reason="handler-error",
        error__type="handler-error",
    )
    unhandled = attrs(
        **common,
        xrgen__message__id="com.acme.ops.LineStatus",
        xrgen__outcome="dead-letter",
        xrgen__dead_letter__reason="no-handler",
        error__type="no-handler",
    )
    undecodable = attrs(
        **common,
        xrgen__outcome="dead-letter",
        xrgen__dead_letter__reason="decode-error",
        error__type="decode-error",
    )
    expected = {handled: 2, failed: 1, unhandled: 1, undecodable: 1}
    assert telemetry.points("messaging.client.consumed.messages") == expected
    assert telemetry.points("messaging.process.duration") == expected
    assert set(telemetry.bounds("messaging.process.duration")) == {
        (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
    }
    assert telemetry.points("xrgen.decode.failures") == {
        attrs(messaging__system="kafka", xrgen__decode__reason="missing-attribute"): 1
    }

    spans = telemetry.named("process")
    assert len(spans) == 5
    by_reason = {
        (s.attributes or {}).get("xrgen.dead_letter.reason"): s for s in spans
    }
    failing = by_reason["handler-error"]
    assert failing.status.status_code is StatusCode.ERROR
    assert failing.status.description == "handler-error"
    assert failing.attributes is not None
    assert failing.attributes["error.type"] == "handler-error"
    (exception,) = [e for e in failing.events if e.name == "exception"]
    assert exception.attributes is not None
    assert exception.attributes["exception.type"] == "RuntimeError"
    assert exception.attributes["exception.message"] == "boom"
    assert (by_reason["no-handler"].attributes or {})["xrgen.message.id"] == "com.acme.ops.LineStatus"
    bad = by_reason["decode-error"]
    assert bad.status.status_code is StatusCode.ERROR and bad.parent is None
    assert bad.name == "process acme.readings"

    # not a wire message at all: its own decode reason, no binding
    assert d.dispatch(object()).reason == "decode-error"
    assert telemetry.points("xrgen.decode.failures")[
        attrs(xrgen__decode__reason="unsupported-message-type")
    ] == 1


def test_a_handler_error_given_back_ends_the_span(acme: ModuleType, telemetry: Telemetry) -> None:
    """``handler_errors = "raise"`` (an endpoint's ``dispatcher(redeliver=True)``): dispatch
    raises ``HandlerError``, the span and the metrics say so."""
    from xrgen_runtime import HandlerError

    def handler(ev: Any, params: dict[str, str]) -> None:
        raise RuntimeError("retry me")

    d, dead = dispatcher(acme, "com.acme.Reading", handler)
    d.handler_errors = "raise"
    wire = codec(acme, "kafka").encode(create(acme, "com.acme.Reading"))
    with pytest.raises(HandlerError):
        d.dispatch(wire)
    with pytest.raises(HandlerError):
        asyncio.run(d.dispatch_async(wire))
    assert not dead
    spans = telemetry.named("process")
    assert len(spans) == 2
    for span in spans:
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes is not None
        assert span.attributes["xrgen.outcome"] == "raised"
        assert span.attributes["error.type"] == "handler-error"
        assert span.attributes["xrgen.message.id"] == "com.acme.Reading"
        (exception,) = [e for e in span.events if e.name == "exception"]
        assert (exception.attributes or {})["exception.type"] == "RuntimeError"
    assert telemetry.points("messaging.client.consumed.messages") == {
        attrs(
            messaging__operation__name="process",
            messaging__operation__type="process",
            messaging__system="kafka",
            xrgen__message__id="com.acme.Reading",
            xrgen__outcome="raised",
            error__type="handler-error",
        ): 2
    }


def test_a_templated_destination_names_the_process_span_and_metric(
    acme: ModuleType, telemetry: Telemetry
) -> None:
    d, dead = dispatcher(acme, "com.acme.Alarm", lambda ev, params: None)
    event = create(acme, "com.acme.Alarm")
    assert d.dispatch(codec(acme, "mqtt").encode(event)) and not dead
    (processed,) = telemetry.named("process")
    assert processed.name == "process acme/{plant}/alarms/{sensor}"
    assert processed.attributes is not None
    assert processed.attributes["messaging.destination.template"] == "acme/{plant}/alarms/{sensor}"
    assert processed.attributes["messaging.destination.name"] == "acme/p1/alarms/s1"


# ------------------------------------------------------------- trace context already there


def test_a_received_event_keeps_its_traceparent(acme: ModuleType, telemetry: Telemetry) -> None:
    """Upstream context in the wire message: the handler's event keeps it, the process span is
    its child, and an event that already carries a context gets no create span."""
    seen: list[Any] = []
    d, dead = dispatcher(acme, "com.acme.Reading", lambda ev, params: seen.append(ev))
    event = create(acme, "com.acme.Reading")
    telemetry.spans.clear()
    event.attributes["traceparent"] = UPSTREAM
    event.attributes["tracestate"] = "vendor=x"
    event.attributes["subject"] = "line 4"
    for mode in ("binary", "structured"):
        assert d.dispatch(codec(acme, "kafka").encode(event, mode=mode)) and not dead
    assert [ev.attributes["traceparent"] for ev in seen] == [UPSTREAM, UPSTREAM]
    assert [ev.attributes["tracestate"] for ev in seen] == ["vendor=x", "vendor=x"]
    for processed in telemetry.named("process"):
        assert processed.context.trace_id == 0x4BF92F3577B34DA6A3CE929D0E0E4736
        assert processed.parent is not None and processed.parent.span_id == 0x00F067AA0BA902B7
        assert processed.context.trace_state.get("vendor") == "x"
        assert (processed.attributes or {})["cloudevents.event_subject"] == "line 4"


def test_the_callers_trace_context_is_never_replaced(telemetry: Telemetry) -> None:
    from datetime import datetime, timezone

    from xrgen_runtime import AttrDef, MessageDef
    from xrgen_runtime._produce import Emitter

    definition = MessageDef(
        id="t.Plain",
        group="t",
        envelope="CloudEvents/1.0",
        type="t.Plain",
        attributes=(
            AttrDef("specversion", "string", True, "1.0"),
            AttrDef("type", "string", True, "t.Plain"),
            AttrDef("source", "uritemplate", True, "/t"),
        ),
    )
    emitter = Emitter(definition)
    now = datetime.now(timezone.utc)
    given_context = emitter.emit_raw(b"x", {}, None, now, {"traceparent": UPSTREAM})
    assert given_context.attributes["traceparent"] == UPSTREAM
    assert "tracestate" not in given_context.attributes
    assert telemetry.named("create") == []
    # a caller's tracestate alone stays as well (the traceparent is the create span's)
    with_state = emitter.emit_raw(b"x", {}, None, now, {"tracestate": "mine=1"})
    (created,) = telemetry.named("create")
    assert with_state.attributes["tracestate"] == "mine=1"
    assert with_state.attributes["traceparent"].split("-")[2] == f"{created.context.span_id:016x}"
    assert created.name == "create" and created.parent is None
    assert telemetry.points("xrgen.events.created") == {attrs(xrgen__message__id="t.Plain"): 2}


def test_a_plain_message_gets_no_trace_context(acme: ModuleType, telemetry: Telemetry) -> None:
    from xrgen_runtime import MessageDef
    from xrgen_runtime._produce import Emitter

    plain = Emitter(MessageDef(id="t.Raw", group="t", envelope=None, type=None, protocol="KAFKA"))
    event = plain.emit_raw(b"x", {}, None, None, {})
    assert event.attributes == {}
    assert telemetry.named("create") == []
    assert telemetry.points("xrgen.events.created") == {
        attrs(xrgen__message__id="t.Raw", messaging__system="kafka"): 1
    }


# ------------------------------------------------------------------ switching on and off


def test_instrument_and_uninstrument_are_idempotent(
    acme: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    t = Telemetry()
    d, dead = dispatcher(acme, "com.acme.Reading", lambda ev, params: None)
    assert not otel.is_instrumented()
    otel.uninstrument()  # off already: nothing happens
    otel.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    other = Telemetry()
    try:
        otel.instrument(tracer_provider=other.tracer_provider)  # on already: nothing changes
        assert otel.is_instrumented()
        assert [r.getMessage() for r in caplog.records] == ["xrgen_runtime.otel: already instrumented"]
        event = create(acme, "com.acme.Reading")
        assert d.dispatch(codec(acme, "kafka").encode(event))
        assert [s.name.split()[0] for s in t.finished()] == ["create", "process"]
        assert other.finished() == []
    finally:
        otel.uninstrument()
        otel.uninstrument()
    assert not otel.is_instrumented()
    event = create(acme, "com.acme.Reading")
    assert "traceparent" not in event.attributes
    assert d.dispatch(codec(acme, "kafka").encode(event)) and not dead
    assert len(t.finished()) == 2
    # on again, with the other providers
    otel.instrument(tracer_provider=other.tracer_provider, meter_provider=other.meter_provider)
    try:
        assert "traceparent" in create(acme, "com.acme.Reading").attributes
        assert [s.name for s in other.finished()] == ["create acme.readings"]
    finally:
        otel.uninstrument()


def test_instrument_fills_the_hook_slot_and_uninstrument_empties_it(acme: ModuleType) -> None:
    """The runtime's one hook slot is the switch: the producer, the dispatcher and the senders
    read it at each use, so an observer put there sees all of them."""
    from xrgen_runtime.otel._observer import Observer

    assert HOOKS.observer is None
    t = Telemetry()
    otel.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    try:
        assert isinstance(HOOKS.observer, Observer)
    finally:
        otel.uninstrument()
    assert HOOKS.observer is None
    seen: list[str] = []

    class Recording:
        """An observer of its own in the slot: every hook reaches it."""

        def created(self, emitter: Any, event: Any) -> None:
            seen.append("created")

        def process(self, dispatcher: Any, run: Any, event: Any, family: Any, origin: Any) -> Any:
            seen.append("process")
            return run(event, family, origin)

        def handler_failed(self, error: BaseException) -> None:
            seen.append("handler_failed")

    def fail(ev: Any, params: Any) -> None:
        raise ValueError("no")

    d, dead = dispatcher(acme, "com.acme.Reading", fail)
    HOOKS.observer = Recording()  # type: ignore[assignment]
    try:
        d.dispatch(codec(acme, "kafka").encode(create(acme, "com.acme.Reading")))
    finally:
        HOOKS.observer = None
    assert seen == ["created", "process", "handler_failed"]
    assert dead == ["handler-error"]


def test_the_opentelemetry_instrument_command_turns_it_on(tmp_path: Any) -> None:
    """The ``xrgen`` entry point of ``opentelemetry_instrumentor``, loaded by
    ``opentelemetry-instrument`` (and left off by OTEL_PYTHON_DISABLED_INSTRUMENTATIONS)."""
    command = [
        str(sys.executable.rsplit("/", 1)[0] + "/opentelemetry-instrument"),
        "--traces_exporter", "none", "--metrics_exporter", "none", "--logs_exporter", "none",
        sys.executable, "-c",
        "import xrgen_runtime.otel as o; print(o.is_instrumented())",
    ]
    on = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    assert on.stdout.strip() == "True", on.stderr
    env = {"OTEL_PYTHON_DISABLED_INSTRUMENTATIONS": "xrgen", "PATH": "/usr/bin:/bin"}
    off = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True, env=env)
    assert off.stdout.strip() == "False", off.stderr


def test_the_instrumentor_class(acme: ModuleType) -> None:
    from opentelemetry.instrumentation.instrumentor import BaseInstrumentor

    t = Telemetry()
    instrumentor = otel.XrgenInstrumentor()
    assert isinstance(instrumentor, BaseInstrumentor)
    instrumentor.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    try:
        assert otel.is_instrumented()
        create(acme, "com.acme.Reading")
        assert [s.name for s in t.finished()] == ["create acme.readings"]
    finally:
        instrumentor.uninstrument()
    assert not otel.is_instrumented()


# ------------------------------------------------------------------ without OpenTelemetry

_SCRIPT = """
import sys
from datetime import datetime, timezone
{block}
from xrgen_runtime import AttrDef, MessageDef, KafkaMessage
from xrgen_runtime._dispatch import DispatcherBase
from xrgen_runtime._produce import Emitter
from xrgen_runtime.adapters._sender import Sender
from xrgen_runtime.bindings import kafka
from xrgen_runtime.testing import KafkaBroker
import xrgen_runtime.otel as otel

definition = MessageDef(
    id="t.E", group="t", envelope="CloudEvents/1.0", type="t.E",
    attributes=(
        AttrDef("specversion", "string", True, "1.0"),
        AttrDef("type", "string", True, "t.E"),
        AttrDef("source", "uritemplate", True, "/t"),
    ),
)
event = Emitter(definition).emit_raw(b"x", {{}}, None, datetime.now(timezone.utc), {{}})
assert "traceparent" not in event.attributes
handled = []
d = DispatcherBase((definition,), dead_letter=lambda *a: None)
d.on("t.E")(lambda ev, params: handled.append(ev))
broker = KafkaBroker()
broker.subscribe("t", d.dispatch)
broker.sender().send(kafka.encode(event, topic="t"))
assert len(handled) == 1
assert not otel.is_instrumented()
{after}
print(sorted(m for m in sys.modules if m.split(".")[0] == "opentelemetry"))
"""

_BLOCK = """
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Blocked())
"""

_INSTRUMENT_FAILS = """
try:
    otel.instrument()
except ImportError as exc:
    assert "xrgen-runtime[otel]" in str(exc), exc
else:
    raise AssertionError("instrument() without opentelemetry")
assert not otel.is_instrumented()
"""


@pytest.mark.parametrize("blocked", [True, False], ids=["not-installed", "not-instrumented"])
def test_without_opentelemetry(blocked: bool) -> None:
    """Produce, send and dispatch import nothing of OpenTelemetry unless instrumented, and
    work when it is not installed (its import blocked); ``instrument()`` then says what to
    install."""
    script = _SCRIPT.format(
        block=_BLOCK if blocked else "",
        after=_INSTRUMENT_FAILS if blocked else "",
    )
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


# ------------------------------------------------------------------ the pieces


def test_every_binding_declares_its_destination_field() -> None:
    import dataclasses

    for spec in BINDINGS.values():
        for cls in (spec.binding_type, spec.message_type):
            assert spec.destination in {f.name for f in dataclasses.fields(cls)}, spec.name


_HEX = "0123456789abcdef"
_hexes = st.text(alphabet=_HEX + "AF", min_size=0, max_size=34)
_traceparents = st.one_of(
    st.builds(
        lambda v, t, s, f, tail: f"{v}-{t}-{s}-{f}{tail}",
        st.sampled_from(["00", "01", "ff", "0g", "cc"]),
        st.one_of(st.text(alphabet=_HEX, min_size=32, max_size=32), _hexes, st.just("0" * 32)),
        st.one_of(st.text(alphabet=_HEX, min_size=16, max_size=16), _hexes, st.just("0" * 16)),
        st.sampled_from(["00", "01", "03", "ff", "1", "0X"]),
        st.sampled_from(["", "-", "-x", " ", "\t", "\n", "-abc-def"]),
    ),
    st.text(max_size=80),
    st.builds(lambda s: " " + s, st.just(UPSTREAM)),
    st.just("x" * 600),
)


@settings(max_examples=400, deadline=None)
@given(_traceparents, st.one_of(st.none(), st.just("a=1,b=2"), st.just("bad"), st.just("k=" + "v" * 9000)))
def test_traceparent_is_read_as_the_w3c_propagator_reads_it(value: str, state: str | None) -> None:
    carrier = {"traceparent": value}
    if state is not None:
        carrier["tracestate"] = state
    theirs = trace.get_current_span(TraceContextTextMapPropagator().extract(carrier)).get_span_context()
    ours_context = parent_context(value, state)
    if not theirs.is_valid:
        assert ours_context is None
        return
    assert ours_context is not None
    ours = trace.get_current_span(ours_context).get_span_context()
    assert ours == theirs
    assert ours.is_remote and ours.trace_state == theirs.trace_state


def test_the_guide_lists_every_metric_and_span_attribute(acme: ModuleType) -> None:
    """docs/observability.md's tables name exactly the metrics the instrumentation creates and
    the span attributes it sets (the names of the OpenTelemetry conventions and xrgen's)."""
    import re
    from pathlib import Path

    from xrgen_runtime.otel import _vocabulary

    guide = (Path(__file__).resolve().parents[2] / "docs" / "observability.md").read_text()
    metrics_table = guide.split("## Metrics", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"^\| `([a-z.]+)` \|", metrics_table, re.M))
    with instrumented() as t:
        d, _ = dispatcher(acme, "com.acme.Reading", lambda ev, params: None)
        d.dispatch(codec(acme, "kafka").encode(create(acme, "com.acme.Reading")))
        d.dispatch(KafkaMessage(topic="t", key=None, value=b"{", headers=(("ce_specversion", b"1.0"),)))
        Brokers().kafka.sender().send(codec(acme, "kafka").encode(create(acme, "com.acme.Reading")))
        recorded = {
            m.name
            for r in t.reader.get_metrics_data().resource_metrics
            for s in r.scope_metrics
            for m in s.metrics
        }
    assert recorded == documented

    attributes_table = guide.split("### Span attributes", 1)[1].split("\n\n", 2)[1]
    in_guide = set(re.findall(r"`((?:messaging|cloudevents|xrgen|error)\.[a-z_.]+)`", attributes_table))
    names = {
        value
        for key, value in vars(_vocabulary).items()
        if key.isupper() and isinstance(value, str) and "." in value
    } - {"xrgen.decode.reason"}  # a metric attribute only
    assert in_guide == names
