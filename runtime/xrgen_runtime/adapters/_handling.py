"""One message through ``on_message``, as the serving loop (``_serve``) runs it.

``on_message`` is a dispatcher, its ``dispatch`` or ``dispatch_async``, or any callable taking
the wire message (sync, or returning an awaitable). A dispatcher is called the way the loop
runs: ``dispatch`` in a synchronous loop, ``dispatch_async`` in an event loop (its async
handlers awaited, its synchronous handlers run in the loop's threads when ``offload`` is
given). A callable's awaitable result is awaited (in a synchronous loop, on an event loop the
serving call owns).

The outcome is ``True`` (acknowledge) or ``False`` (give the message back):

- the call returned: acknowledge, unless it returned a ``DispatchResult`` that is not
  ``settled`` (its dead-letter callback raised): the message goes back after the retry
  policy's first ``delay`` (the server would otherwise hand it back at once);
- it raised ``HandlerError``: the call is repeated after the ``Retry`` waits until an attempt
  succeeds or the attempts are used up; then the dispatcher's dead letter is delivered
  (``HandlerError.dead_letter``) and the outcome is as above. Stopping (``Stop``) during a
  wait gives the message back; so does a ``HandlerError`` without a dead letter;
- any other exception propagates (the loop gives the message back and stops serving).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .._dispatch import DispatcherBase, DispatchResult, HandlerError
from .._retry import DEFAULT_RETRY, Retry

__all__ = ["Handling", "Stop", "offload_to"]

_log = logging.getLogger("xrgen_runtime.adapters")
#: the longest a retry wait sleeps before it looks at ``Stop`` again (seconds)
_SLICE = 0.05


class Stop:
    """Why serving ends: the caller's event, a signal, or neither yet (truthy when stopping)."""

    __slots__ = ("event", "signalled")

    def __init__(self, event: Any = None) -> None:
        self.event = event
        self.signalled = False

    def __bool__(self) -> bool:
        return self.signalled or (self.event is not None and self.event.is_set())

    def pause(self, seconds: float) -> bool:
        """Sleep ``seconds``; ``False`` as soon as stopping (the sleep cut short)."""
        deadline = time.monotonic() + seconds
        while not self:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            time.sleep(min(left, _SLICE))
        return False

    async def pause_async(self, seconds: float) -> bool:
        """:meth:`pause` in an event loop."""
        deadline = time.monotonic() + seconds
        while not self:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            await asyncio.sleep(min(left, _SLICE))
        return False


Offload = Callable[..., Awaitable[Any]]


def offload_to(executor: Any) -> Offload:
    """``offload(fn, *args)``: ``fn(*args)`` in ``executor``, in the caller's context (the
    OpenTelemetry span of the dispatch stays current in the thread)."""

    def offload(fn: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        ctx = contextvars.copy_context()
        return asyncio.get_running_loop().run_in_executor(executor, ctx.run, fn, *args)

    return offload


def _settled(result: object) -> bool:
    return type(result) is not DispatchResult or result.settled


def _dispatcher_of(on_message: object) -> DispatcherBase | None:
    if isinstance(on_message, DispatcherBase):
        return on_message
    owner = getattr(on_message, "__self__", None)
    if isinstance(owner, DispatcherBase) and getattr(on_message, "__name__", "") in (
        "dispatch",
        "dispatch_async",
    ):
        return owner
    return None


class Handling:
    """Calls ``on_message`` for the loop and decides the outcome (see the module doc).

    ``offload``: run synchronous callables (and a dispatcher's synchronous handlers) there
    from the async path (the loop's threads at a concurrency above one).
    """

    __slots__ = ("_fn", "_dispatcher", "_retry", "_stop", "_offload", "_runner")

    def __init__(
        self,
        on_message: Any,
        retry: Retry | None,
        stop: Stop,
        offload: Offload | None = None,
    ) -> None:
        self._dispatcher = _dispatcher_of(on_message)
        if self._dispatcher is None and not callable(on_message):
            raise TypeError(
                f"on_message must be callable or a dispatcher, not {on_message!r}"
            )
        self._fn: Callable[[Any], Any] = on_message
        self._retry = retry or DEFAULT_RETRY
        self._stop = stop
        self._offload = offload
        self._runner: asyncio.Runner | None = None

    def close(self) -> None:
        """Close the event loop the synchronous path awaited results on, if any."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None

    # ------------------------------------------------------------------ synchronous

    def _call(self, message: Any) -> object:
        """``on_message`` that is not a dispatcher; an awaitable result is awaited."""
        result = self._fn(message)
        if result is not None and inspect.isawaitable(result):
            if self._runner is None:
                self._runner = asyncio.Runner()
            return self._runner.run(_awaited(result))
        return result

    def handle(self, message: Any) -> bool:
        """The outcome of ``message`` (``True``: acknowledge), in this thread."""
        attempt = 1
        d = self._dispatcher
        while True:
            try:
                # a dispatcher called here, not through ``_call``: one frame less per message
                result = d.dispatch(message) if d is not None else self._call(message)
            except HandlerError as exc:
                if self._retry.again(attempt):
                    wait = self._retry.wait(attempt)
                    _retrying(exc, attempt, wait)
                    if self._stop.pause(wait):
                        attempt += 1
                        continue
                    return _given_back(exc, "stopping")
                if not exc.can_dead_letter:
                    return _given_back(exc, "no dead letter")
                result = exc.dead_letter(attempt)
            if _settled(result):
                return True
            _unsettled()
            self._stop.pause(self._retry.delay)  # not at once: the server gives it back
            return False

    # ------------------------------------------------------------------ in an event loop

    async def _call_async(self, message: Any) -> object:
        fn = self._fn
        if self._offload is not None and not _is_async(fn):
            result = await self._offload(fn, message)
        else:
            result = fn(message)
        if result is not None and inspect.isawaitable(result):
            result = await result
        return result

    async def handle_async(self, message: Any) -> bool:
        """The outcome of ``message`` (``True``: acknowledge), in the running event loop."""
        return (await self.respond_async(message))[0]

    async def respond_async(self, message: Any) -> tuple[bool, object]:
        """The outcome of ``message`` and what ``on_message`` returned last (``None`` when
        it raised): an HTTP receiver answers with it."""
        attempt = 1
        d = self._dispatcher
        result: object
        while True:
            try:
                # as in ``handle``: a dispatcher awaited here, one coroutine less per message
                if d is not None:
                    result = await d.dispatch_async(message, offload=self._offload)
                else:
                    result = await self._call_async(message)
            except HandlerError as exc:
                if self._retry.again(attempt):
                    wait = self._retry.wait(attempt)
                    _retrying(exc, attempt, wait)
                    if await self._stop.pause_async(wait):
                        attempt += 1
                        continue
                    return _given_back(exc, "stopping"), None
                if not exc.can_dead_letter:
                    return _given_back(exc, "no dead letter"), None
                result = await exc.dead_letter_async(attempt)
            if _settled(result):
                return True, result
            _unsettled()
            await self._stop.pause_async(self._retry.delay)
            return False, result


def _is_async(fn: object) -> bool:
    """A coroutine function, or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        type(fn).__call__
    )


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__
    return repr(cause) if cause is not None else "an error"


def _retrying(exc: HandlerError, attempt: int, wait: float) -> None:
    _log.warning(
        "handler of %s raised %s (attempt %d): calling it again in %.3g s",
        exc.message_id,
        _cause(exc),
        attempt,
        wait,
    )


def _given_back(exc: HandlerError, why: str) -> bool:
    _log.warning(
        "handler of %s raised %s (%s): the message goes back to the server",
        exc.message_id,
        _cause(exc),
        why,
    )
    return False


def _unsettled() -> None:
    _log.warning("dead letter not delivered: the message goes back to the server")
