"""What one dispatch ends in: a handler call (:class:`DispatchResult`, truthy) or exactly one
dead letter, with a reason from :data:`DEAD_LETTER_REASONS`; the types of the handler and of
the dead-letter callback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, final

from ._event import Event
from ._limits import bounded_detail

__all__ = [
    "ASYNC_IN_SYNC",
    "DEAD_LETTER_REASONS",
    "DECODE_ERROR",
    "HANDLER_ERROR",
    "INTERNAL_ERROR",
    "MALFORMED_MESSAGE",
    "NO_HANDLER",
    "NO_MATCH",
    "UNKNOWN_TYPE",
    "VALIDATION_ERROR",
    "DeadLetter",
    "DispatchResult",
    "Handler",
    "HandlerError",
    "PendingDead",
]

#: A handler: ``handler(event, params)``; may be ``async``.
Handler = Callable[[Event[Any], dict[str, str]], object]
#: The dead-letter callback: ``dead_letter(original, reason, detail)``.
DeadLetter = Callable[[object, str, str], object]

#: a field of the wire message holds a value of the wrong type (``object()`` as a Kafka
#: value, an ``int`` as an MQTT payload, headers that are not name/value pairs, ...)
MALFORMED_MESSAGE = "malformed-message"
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
    MALFORMED_MESSAGE,
    DECODE_ERROR,
    UNKNOWN_TYPE,
    NO_MATCH,
    VALIDATION_ERROR,
    NO_HANDLER,
    HANDLER_ERROR,
    ASYNC_IN_SYNC,
    INTERNAL_ERROR,
)


class HandlerError(Exception):
    """A handler raised, and its dispatcher gives the message back instead of dead-lettering
    it (``handler_errors = "raise"``, as ``Endpoint.dispatcher(redeliver=True)`` sets): a
    receiver's ``run`` then calls the handler again (its retry policy, ``Retry``) and, when
    the attempts are used up, sends the message to the dispatcher's dead letter with
    :meth:`dead_letter` (reason ``handler-error``). The handler's exception is ``__cause__``.
    """

    def __init__(self, message_id: str, route: Any = None) -> None:
        super().__init__(f"handler of {message_id!r} raised")
        self.message_id = message_id
        #: ``(dispatcher, PendingDead)``: where :meth:`dead_letter` delivers (``None``: raised
        #: by other code than a dispatcher, which has no dead letter)
        self._route = route

    @property
    def can_dead_letter(self) -> bool:
        """Whether :meth:`dead_letter` has a dead letter to deliver to."""
        return self._route is not None

    def _pending(self, attempts: int) -> PendingDead:
        dead: PendingDead = self._route[1]
        if attempts <= 1:
            return dead
        detail = f"{dead.detail} (after {attempts} attempts)"
        return PendingDead(dead.origin, dead.reason, detail, dead.message_id)

    def dead_letter(self, attempts: int = 1) -> DispatchResult:
        """Deliver the message to the dispatcher's dead letter (reason ``handler-error``,
        the detail naming the number of ``attempts``); the result is ``settled`` unless the
        dead-letter callback raised (the message must then go back to the server)."""
        if self._route is None:
            raise RuntimeError("this HandlerError was not raised by a dispatcher")
        result: DispatchResult = self._route[0]._dead(self._pending(attempts))
        return result

    async def dead_letter_async(self, attempts: int = 1) -> DispatchResult:
        """:meth:`dead_letter` awaiting an async dead-letter callback."""
        if self._route is None:
            raise RuntimeError("this HandlerError was not raised by a dispatcher")
        result: DispatchResult = await self._route[0]._dead_async(
            self._pending(attempts)
        )
        return result


class DispatchResult:
    """What :meth:`DispatcherBase.dispatch` did with one input (truthy when handled).

    ``handled``: a handler was called and returned without raising. ``message_id``: the id of
    the definition that received the event (or that the failure concerns, when known).
    ``reason``: the dead-letter reason, ``None`` when handled. ``settled``: the input is
    finished with (handled, or its dead letter delivered); ``False`` only when the
    dead-letter callback raised: a receiver then leaves the message unacknowledged and gives
    it back to the server. Instances are shared singletons (cheap): compare fields, not
    identity.
    """

    __slots__ = ("handled", "message_id", "reason", "settled")

    def __init__(
        self,
        handled: bool,
        message_id: str | None,
        reason: str | None,
        settled: bool = True,
    ) -> None:
        self.handled = handled
        self.message_id = message_id
        self.reason = reason
        self.settled = settled

    def __bool__(self) -> bool:
        return self.handled

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DispatchResult):
            return NotImplemented
        return (self.handled, self.message_id, self.reason, self.settled) == (
            other.handled,
            other.message_id,
            other.reason,
            other.settled,
        )

    def __hash__(self) -> int:
        return hash((self.handled, self.message_id, self.reason, self.settled))

    def __repr__(self) -> str:
        unsettled = "" if self.settled else ", settled=False"
        return (
            f"DispatchResult(handled={self.handled!r}, "
            f"message_id={self.message_id!r}, reason={self.reason!r}{unsettled})"
        )


@final
class PendingDead:
    """A dead letter still to be delivered: the original input, the reason, the detail
    (bounded, see ``_limits.bounded_detail``) and the definition it concerns, when known.

    The dispatch path tests ``type(x) is PendingDead`` (cheaper than ``isinstance``), the
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
