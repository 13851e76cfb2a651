"""``XrgenInstrumentor``: :func:`xrgen_runtime.otel.instrument` as an OpenTelemetry
``BaseInstrumentor`` (needs ``opentelemetry-instrumentation``), the object that
``opentelemetry-instrument`` loads from the ``opentelemetry_instrumentor`` entry point.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined,unused-ignore]
    BaseInstrumentor,
)

from . import instrument, uninstrument

__all__ = ["XrgenInstrumentor"]


class XrgenInstrumentor(BaseInstrumentor):  # type: ignore[misc,unused-ignore]
    """``XrgenInstrumentor().instrument(tracer_provider=..., meter_provider=...)`` and
    ``uninstrument()``; the runtime's own library is all it instruments."""

    def instrumentation_dependencies(self) -> Collection[str]:
        return ()

    def _instrument(self, **kwargs: Any) -> None:
        instrument(
            tracer_provider=kwargs.get("tracer_provider"),
            meter_provider=kwargs.get("meter_provider"),
        )

    def _uninstrument(self, **kwargs: Any) -> None:
        uninstrument()
