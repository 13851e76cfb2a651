"""``SendFuture``: the ``concurrent.futures.Future`` a sender returns per message, whose lock is
made on first use, so that a future nobody waits on (the usual case: a sender that flushes
at the end) costs no lock to make or to resolve."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from concurrent.futures._base import FINISHED, PENDING
from typing import Any, TypeVar

__all__ = ["SendFuture"]

T = TypeVar("T")


class SendFuture(Future[T]):
    """A ``Future`` (same API, same guarantees) with a lazily made condition.

    Resolving it without a lock is safe because the state is written before the condition is
    looked for: a thread that made the condition meanwhile either saw the state already set,
    or is waiting (or adding a callback) under the condition, which the resolving thread then
    takes to notify it."""

    def __init__(self) -> None:  # Future.__init__ without its Condition
        self._state = PENDING
        self._result: Any = None
        self._exception: BaseException | None = None
        self._waiters: list[Any] = []
        self._done_callbacks: list[Any] = []

    @property
    def _condition(self) -> threading.Condition:  # type: ignore[override]
        found: threading.Condition | None = self.__dict__.get("_lock")
        if found is None:  # two threads asking at once get the same one
            found = self.__dict__.setdefault("_lock", threading.Condition())
        return found

    def set_result(self, result: T) -> None:
        if "_lock" in self.__dict__ or self._state != PENDING:
            super().set_result(result)  # (raises InvalidStateError when done)
            return
        self._result = result
        self._state = FINISHED
        self._resolved("add_result")

    def set_exception(self, exception: BaseException | None) -> None:
        if "_lock" in self.__dict__ or self._state != PENDING:
            super().set_exception(exception)
            return
        self._exception = exception
        self._state = FINISHED
        self._resolved("add_exception")

    def _resolved(self, report: str) -> None:
        if (
            "_lock" in self.__dict__
        ):  # made meanwhile: someone waits or added a callback
            with self._condition:
                for waiter in self._waiters:
                    getattr(waiter, report)(self)
                self._condition.notify_all()
        self._invoke_callbacks()  # type: ignore[attr-defined]
