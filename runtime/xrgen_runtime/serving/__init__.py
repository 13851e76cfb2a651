"""Services on catalog endpoints: ``App`` (the handlers of a generated package, served on an
endpoint with retries, dead letters and SIGTERM drain), ``Retry`` (the retry policy of a
receiver's ``run``), ``DeadLetterPublisher`` (dead letters to a topic, queue, subject or URL)
and ``Health`` (liveness and readiness probes). ``python -m xrgen_runtime run MODULE:APP
--endpoint ID`` serves an ``App`` (docs/serving.md).
"""

from __future__ import annotations

from .._retry import Retry
from ._app import App
from ._deadletter import (
    DETAIL_HEADER,
    REASON_HEADER,
    DeadLetterPublisher,
    dead_letter_message,
    publisher_for,
)
from ._health import Health

__all__ = [
    "DETAIL_HEADER",
    "REASON_HEADER",
    "App",
    "DeadLetterPublisher",
    "Health",
    "Retry",
    "dead_letter_message",
    "publisher_for",
]
