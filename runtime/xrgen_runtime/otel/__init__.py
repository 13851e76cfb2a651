"""OpenTelemetry instrumentation of the runtime: traces and metrics of producing, sending and
dispatching CloudEvents (docs/observability.md).

::

    import xrgen_runtime.otel
    xrgen_runtime.otel.instrument(tracer_provider=..., meter_provider=...)  # None: the global ones
    ...
    xrgen_runtime.otel.uninstrument()

While instrumented, every event a generated producer creates gets a ``create`` span (PRODUCER)
whose W3C trace context it carries as the CloudEvents ``traceparent``/``tracestate``
extension attributes (never replacing values the caller set); the adapters' senders run
``send`` in a span (CLIENT) linked to that context; every dispatcher runs the handler of a
message in a ``process`` span (CONSUMER) whose parent is the context the message carries.
Metrics count events created, messages sent and dispatched (by message definition and
outcome, dead letters by reason), decode failures by reason, and time processing and sending.

Importing this module imports nothing of OpenTelemetry; :func:`instrument` does (it needs
``opentelemetry-api``: ``pip install 'xrgen-runtime[otel]'``) and puts its observer in the
runtime's hook slot (``xrgen_runtime._hooks.HOOKS``); :func:`uninstrument` empties the slot.
Not instrumented, each hook in the runtime is one test of the slot. ``XrgenInstrumentor`` is the same switch as an
OpenTelemetry ``BaseInstrumentor`` (needs ``opentelemetry-instrumentation``); the
distribution registers it as the ``xrgen`` entry point of ``opentelemetry_instrumentor``, so
``opentelemetry-instrument`` turns it on (``OTEL_PYTHON_DISABLED_INSTRUMENTATIONS=xrgen``
leaves it off).
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import TYPE_CHECKING, Any

from .._hooks import HOOKS

if TYPE_CHECKING:
    from ._instrumentor import XrgenInstrumentor
    from ._observer import Observer

__all__ = ["XrgenInstrumentor", "instrument", "is_instrumented", "uninstrument"]

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_active: Observer | None = None

_INSTALL_HINT = "pip install 'xrgen-runtime[otel]'"


def instrument(tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Turn instrumentation on, with these providers (``None``: the global providers of
    ``opentelemetry.trace`` and ``opentelemetry.metrics`` at each use).

    A second call while instrumented changes nothing (it logs a warning, as OpenTelemetry's
    instrumentors do): call :func:`uninstrument` first to change providers. Raises
    ``ImportError`` when ``opentelemetry-api`` is not installed.
    """
    global _active
    with _lock:
        if _active is not None:
            _log.warning("xrgen_runtime.otel: already instrumented")
            return
        try:
            from ._observer import Observer
        except ImportError as exc:
            raise ImportError(
                f"xrgen_runtime.otel needs opentelemetry-api: {_INSTALL_HINT}"
            ) from exc
        observer = Observer(tracer_provider, meter_provider)
        HOOKS.observer = observer
        _active = observer


def uninstrument() -> None:
    """Turn instrumentation off (nothing happens when it is off)."""
    global _active
    with _lock:
        if _active is None:
            return
        HOOKS.observer = None
        _active = None


def is_instrumented() -> bool:
    """Whether :func:`instrument` is in effect."""
    return _active is not None


def __getattr__(name: str) -> Any:
    if name == "XrgenInstrumentor":
        value = importlib.import_module(f"{__name__}._instrumentor").XrgenInstrumentor
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
