"""Benchmark of the OpenTelemetry instrumentation (runtime/xrgen_runtime/otel).

    python bench/bench_otel.py [--quick]

Everything in one run, CPU time per message, best of interleaved rounds (instrumentation is
switched on and off around each case's slot of every round):

1. dispatch: a Kafka binary wire message through ``DispatcherBase.dispatch`` (10-type
   catalog of bench_dispatch.py, 8-field payload, handler called), every event carrying a
   ``traceparent`` as an instrumented producer writes it (not sampled), uninstrumented
   against instrumented with the SDK's samplers that record nothing (``ALWAYS_OFF``,
   ``ParentBased(ALWAYS_OFF)``) and no meter provider (the global one, which records
   nothing unless the application sets one); then with the
   SDK's metrics recorded (``MeterProvider`` with an ``InMemoryMetricReader``), and with every
   span recorded (``ALWAYS_ON``, a span processor that drops them);
2. the floors of the instrumented dispatch: the SDK's ``start_span`` + ``end`` of a span
   that is not recorded, with the span made current and the ``traceparent`` read, measured
   alone;
3. producing: an event built by the producer's ``Emitter``, uninstrumented against
   instrumented (``ALWAYS_OFF``: the ``create`` span and the ``traceparent`` written).

Target: dispatch instrumented with ``ALWAYS_OFF`` or ``ParentBased(ALWAYS_OFF)`` within 1.15x
of uninstrumented.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_dispatch as bd  # noqa: E402
import xrgen_runtime.otel as otel  # noqa: E402
from opentelemetry import context, trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased  # noqa: E402
from opentelemetry.trace import SpanKind  # noqa: E402
from xrgen_runtime._produce import Emitter  # noqa: E402
from xrgen_runtime.otel._context import parent_context  # noqa: E402

#: a case: a label, the providers to instrument with (``None``: uninstrumented), the call
#: and its inputs
Case = tuple[str, tuple[Any, Any] | None, Callable[[Any], object], Sequence[Any]]


class Dropping(SpanProcessor):
    """Receives every recorded span and keeps none (the recording cost without an export)."""


def providers(sampler: Any, metrics: bool = False) -> tuple[Any, Any]:
    tracer_provider = TracerProvider(sampler=sampler)
    if sampler is ALWAYS_ON:
        tracer_provider.add_span_processor(Dropping())
    # no meter provider: the global one, a no-op unless the application sets one
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()]) if metrics else None
    return tracer_provider, meter_provider


def run_cases(cases: list[Case], seconds: float, rounds: int) -> list[float]:
    """Microseconds of CPU time per call of each case (``bench_dispatch.timings``: best
    round, cases interleaved), each with its instrumentation switched on for its slots only."""

    def switch(i: int) -> None:
        otel.uninstrument()
        with_providers = cases[i][1]
        if with_providers is not None:
            otel.instrument(*with_providers)

    try:
        return bd.timings(
            [(fn, list(items)) for _, _, fn, items in cases], seconds, rounds, before=switch
        )
    finally:
        otel.uninstrument()


def traced(events: list[Any]) -> None:
    """Give each event the ``traceparent`` of a producer whose span was not sampled."""
    for i, event in enumerate(events):
        event.attributes["traceparent"] = f"00-{i + 1:032x}-{i + 7:016x}-00"


def report(title: str, labels: list[str], timings: list[float]) -> None:
    print(f"\n## {title}")
    base = timings[0]
    print(f"{'case':58} {'us':>7} {'vs base':>8}")
    for label, t in zip(labels, timings, strict=True):
        print(f"{label:58} {t:7.2f} {t / base:7.2f}x")


def bench_dispatch(rt: Any, seconds: float, rounds: int) -> None:
    defs = bd.catalog(rt, 10)
    events = [bd.event_for(rt, defs[i % len(defs)], i) for i in range(500)]
    traced(events)
    counter = bd.Counter()
    d = bd.dispatcher(rt, defs, counter)
    encode = bd.encoder("kafka", "binary")
    wire = [encode(e) for e in events]
    cases: list[Case] = [
        ("uninstrumented", None, d.dispatch, wire),
        ("instrumented, ALWAYS_OFF", providers(ALWAYS_OFF), d.dispatch, wire),
        (
            "instrumented, ParentBased(ALWAYS_OFF)",
            providers(ParentBased(ALWAYS_OFF)),
            d.dispatch,
            wire,
        ),
        (
            "instrumented, ALWAYS_OFF, SDK metrics recorded",
            providers(ALWAYS_OFF, metrics=True),
            d.dispatch,
            wire,
        ),
        ("instrumented, ALWAYS_ON, spans recorded (not exported)", providers(ALWAYS_ON), d.dispatch, wire),
    ]
    timings = run_cases(cases, seconds, rounds)
    bd.check(counter, "dispatch")
    report(
        "1. Dispatch per message (Kafka binary, 10 types, CPU us)",
        [c[0] for c in cases],
        timings,
    )

    tracer = TracerProvider(sampler=ALWAYS_OFF).get_tracer("bench")
    attrs = [e.attributes for e in events]

    def span_alone(_: object) -> None:
        tracer.start_span("process synth", None, SpanKind.CONSUMER).end()

    def span_current(a: dict[str, Any]) -> None:
        parent = parent_context(a["traceparent"], None)
        span = tracer.start_span("process synth", parent, SpanKind.CONSUMER)
        token = context.attach(trace.set_span_in_context(span))
        context.detach(token)
        span.end()

    floors = run_cases(
        [
            ("uninstrumented dispatch", None, d.dispatch, wire),
            ("SDK start_span + end (ALWAYS_OFF)", None, span_alone, attrs),
            ("+ traceparent read, span current", None, span_current, attrs),
        ],
        seconds,
        rounds,
    )
    report(
        "2. What an unsampled span costs alone (the floor of the instrumented dispatch)",
        [
            "uninstrumented dispatch",
            "SDK start_span + end (ALWAYS_OFF)",
            "+ traceparent read, span made current",
        ],
        floors,
    )
    overhead = timings[1] - timings[0]
    print(
        f"\ninstrumented (ALWAYS_OFF) - uninstrumented: {overhead:.2f} us per message; "
        f"the span alone: {floors[2]:.2f} us"
    )


def bench_produce(rt: Any, seconds: float, rounds: int) -> None:
    defs = bd.catalog(rt, 10)
    emitters = [Emitter(x) for x in defs]
    calls = [(emitters[i % 10], defs[i % 10], bd.synth_payload(i)) for i in range(500)]

    def produce(call: tuple[Any, Any, dict[str, Any]]) -> object:
        emitter, defn, data = call
        return emitter.emit(defn.model, data, {"deviceid": data["deviceid"]}, None, None, {})

    cases: list[Case] = [
        ("uninstrumented", None, produce, calls),
        ("instrumented, ALWAYS_OFF", providers(ALWAYS_OFF), produce, calls),
    ]
    timings = run_cases(cases, seconds, rounds)
    report("3. Producing an event (Emitter.emit, CPU us)", [c[0] for c in cases], timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter rounds")
    args = parser.parse_args()
    seconds, rounds = (4.0, 8) if args.quick else (20.0, 20)
    print(
        f"python {sys.version.split()[0]}, CPU time, best of {rounds} interleaved rounds, "
        f"{seconds / rounds:.2f} s per case per round"
    )
    rt = bd.load_runtime()
    bench_dispatch(rt, seconds, rounds)
    bench_produce(rt, seconds, rounds)


if __name__ == "__main__":
    main()
