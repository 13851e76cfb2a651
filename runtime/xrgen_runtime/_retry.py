"""``Retry``: how often a receiver calls a failing handler again, and how long it waits.

A dispatcher that gives handler errors back (``Endpoint.dispatcher(redeliver=True)``) raises
``HandlerError``; the receiver's ``run`` then calls the handler again with the same message,
in the process (every binding: no broker round trip, no reconnect), after ``delay`` seconds,
multiplied by ``factor`` for each further attempt up to ``max_delay``. After ``attempts``
calls the message goes to the dead letter (reason ``handler-error``) and is acknowledged once
the dead letter is delivered. ``attempts=None`` retries until the handler succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_RETRY", "Retry"]


@dataclass(frozen=True, slots=True)
class Retry:
    """The retry policy of a receiver's ``run`` (see the module doc)."""

    #: handler calls per message, the first included (``None``: no limit)
    attempts: int | None = 3
    #: seconds before the second call
    delay: float = 0.1
    #: each further wait is the previous one times ``factor``...
    factor: float = 2.0
    #: ... up to ``max_delay`` seconds
    max_delay: float = 5.0

    def __post_init__(self) -> None:
        if self.attempts is not None and self.attempts < 1:
            raise ValueError("Retry.attempts must be at least 1 (or None: no limit)")
        if self.delay < 0 or self.max_delay < 0 or self.factor < 1:
            raise ValueError(
                "Retry: delay and max_delay must not be negative, factor at least 1"
            )

    def again(self, attempt: int) -> bool:
        """Whether a message whose ``attempt``-th handler call failed is tried again."""
        return self.attempts is None or attempt < self.attempts

    def wait(self, attempt: int) -> float:
        """Seconds to wait after the ``attempt``-th failed call (1 for the first)."""
        step = min(attempt - 1, 64)  # bounded: no overflow however many attempts
        return float(min(self.delay * self.factor**step, self.max_delay))


#: the policy of ``run`` when none is given
DEFAULT_RETRY = Retry()
