"""``SendFuture``: the ``concurrent.futures.Future`` a sender returns per message, whose lock
and lists are made on first use, so that a future nobody waits on (the usual case: a sender
that flushes at the end) costs one object to make and no lock to resolve.

A sender may keep thousands of futures in flight; each container object alive while in flight
is one more object the garbage collector walks on every collection, so a pending
``SendFuture`` is one slotted object (no ``__dict__``, no lists, no ``Condition``) until
someone waits on it or adds a callback. A binding that needs per-message state in its
client's confirmation callback subclasses it (the future is the callback) instead of
making a closure per message.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from concurrent.futures._base import (
    CANCELLED,
    CANCELLED_AND_NOTIFIED,
    FINISHED,
    PENDING,
)
from typing import Any, TypeVar

__all__ = ["SendFuture"]

T = TypeVar("T")

_DONE = frozenset((FINISHED, CANCELLED, CANCELLED_AND_NOTIFIED))
#: taken only to make a future's condition, so that two threads asking at once get one
_MAKING = threading.Lock()


class SendFuture(Future[T]):
    """A ``Future`` (same API, same guarantees) with a lazily made condition and lists.

    Resolving it without a lock is safe because the state is written before the condition is
    looked for: a thread that made the condition meanwhile either saw the state already set,
    or is waiting (or adding a callback) under the condition, which the resolving thread then
    takes to notify it. The lists ``Future`` keeps its waiters and callbacks in are made
    under the condition, by whoever adds the first one. A resolved future answers ``done``,
    ``exception`` and a successful ``result`` without the condition (its state is written
    last)."""

    __slots__ = ("_state", "_result", "_exception", "_lock", "_waiting", "_callbacks")

    def __init__(self) -> None:  # Future.__init__ without its Condition and lists
        self._state = PENDING
        self._result: Any = None
        self._exception: BaseException | None = None
        self._lock: threading.Condition | None = None
        self._waiting: list[Any] | None = None
        self._callbacks: list[Any] | None = None

    @property
    def _condition(self) -> threading.Condition:  # type: ignore[override]
        found = self._lock
        if found is None:
            with _MAKING:
                found = self._lock
                if found is None:
                    found = self._lock = threading.Condition()
        return found

    @property
    def _waiters(self) -> list[Any]:  # type: ignore[override]
        """``Future``'s waiters (``concurrent.futures.wait``), used under the condition."""
        found = self._waiting
        if found is None:
            found = self._waiting = []
        return found

    @property
    def _done_callbacks(self) -> list[Any]:
        """``Future``'s callbacks, added under the condition."""
        found = self._callbacks
        if found is None:
            found = self._callbacks = []
        return found

    def done(self) -> bool:
        return self._state in _DONE

    def result(self, timeout: float | None = None) -> T:
        if self._state == FINISHED and self._exception is None:  # no condition to make
            return self._result  # type: ignore[no-any-return]
        return super().result(timeout)  # (raising, it breaks the traceback's cycle)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        if self._state == FINISHED:
            return self._exception
        return super().exception(timeout)

    def set_result(self, result: T) -> None:
        if self._lock is not None or self._state != PENDING:
            super().set_result(result)  # (raises InvalidStateError when done)
            return
        self._result = result
        self._state = FINISHED
        if self._lock is not None:  # made meanwhile: someone waits or added a callback
            self._resolved("add_result")

    def set_exception(self, exception: BaseException | None) -> None:
        if self._lock is not None or self._state != PENDING:
            super().set_exception(exception)
            return
        self._exception = exception
        self._state = FINISHED
        if self._lock is not None:
            self._resolved("add_exception")

    def _resolved(self, report: str) -> None:
        with self._condition:
            for waiter in self._waiters:
                getattr(waiter, report)(self)
            self._condition.notify_all()
        self._invoke_callbacks()

    def _invoke_callbacks(self) -> None:
        if self._callbacks:
            super()._invoke_callbacks()  # type: ignore[misc]
