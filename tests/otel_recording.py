"""The OpenTelemetry SDK set up for the tests of xrgen_runtime.otel (tests/runtime/test_otel.py,
tests/brokers/test_otel.py): an in-memory span exporter and metric reader, and the runtime
instrumented with them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import xrgen_runtime.otel as otel
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class Telemetry:
    """The SDK providers of one test, their exporter and reader."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.tracer = self.tracer_provider.get_tracer("test")

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def named(self, prefix: str) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name.split(" ")[0] == prefix]

    def points(self, name: str) -> dict[frozenset[tuple[str, Any]], Any]:
        """The data points of metric ``name``: attributes -> value (sums) or count
        (histograms)."""
        found: dict[frozenset[tuple[str, Any]], Any] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != name:
                        continue
                    for point in metric.data.data_points:
                        value = getattr(point, "value", None)
                        if value is None:
                            value = point.count
                        found[frozenset(point.attributes.items())] = value
        return found

    def bounds(self, name: str) -> list[tuple[float, ...]]:
        """The bucket boundaries of each data point of histogram ``name``."""
        data = self.reader.get_metrics_data()
        return [
            tuple(point.explicit_bounds)
            for resource in (data.resource_metrics if data else ())
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]


@contextmanager
def instrumented() -> Iterator[Telemetry]:
    """The runtime instrumented with a new :class:`Telemetry` while the block runs."""
    t = Telemetry()
    otel.instrument(tracer_provider=t.tracer_provider, meter_provider=t.meter_provider)
    try:
        yield t
    finally:
        otel.uninstrument()
