"""The serving loop above concurrency 1 (``_serve``): a pump task receives while there is
room in the window of messages in hand, each message's handling runs as a task, and the loop
settles the oldest entries in arrival order.

A blocking receiver's calls (poll, acknowledge, give back) run in one thread of its own
(``ThreadHooks``), an asyncio receiver's in the event loop (``AsyncHooks``); after one
message the pump takes what else is ready (``_DRAIN``), up to the room left.
"""

from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ._handling import Handling, Stop

if TYPE_CHECKING:
    from ._serve import Receiving

__all__ = ["AsyncHooks", "ThreadHooks", "concurrent", "poll_many"]

#: the poll timeout while messages are in hand (a blocking receiver's acknowledgements wait
#: for its poll: seconds)
_BUSY_POLL = 0.02
#: the poll timeout for more messages after one arrived (a positive one: some clients refuse
#: 0, nats-py's JetStream ``fetch`` among them)
_DRAIN = 0.001


class ThreadHooks:
    """A blocking receiver's calls, each in the receiver's own thread."""

    __slots__ = ("_r", "_own", "gives_back")

    def __init__(self, receiver: Receiving, own: ThreadPoolExecutor) -> None:
        self._r = receiver
        self._own = own
        self.gives_back = receiver._gives_back()

    async def poll(self, timeout: float, most: int) -> list[Any]:
        """Up to ``most`` messages: waits up to ``timeout`` for the first only."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._own, poll_many, self._r, timeout, most)

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        """Acknowledge (``True``) or give back (``False``) each message, in order."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._own, _settle_each, self._r, verdicts)


def poll_many(receiver: Receiving, timeout: float, most: int) -> list[Any]:
    raw = receiver._poll(timeout)
    if raw is None:
        return []
    got = [raw]
    while len(got) < most:
        raw = receiver._poll(_DRAIN)
        if raw is None:
            break
        got.append(raw)
    return got


def _settle_each(receiver: Receiving, verdicts: list[tuple[bool, Any]]) -> None:
    for ok, raw in verdicts:
        if ok:
            receiver._ack(raw)
        else:
            receiver._nack(raw)


class AsyncHooks:
    """An asyncio receiver's calls."""

    __slots__ = ("_r", "gives_back")

    def __init__(self, receiver: Any) -> None:
        self._r = receiver
        self.gives_back = receiver._gives_back()

    async def poll(self, timeout: float, most: int) -> list[Any]:
        r = self._r
        many = getattr(r, "_poll_many", None)
        if many is not None:  # a blocking receiver's calls in its own thread: one call
            got: list[Any] = await many(timeout, most)
            return got
        raw = await r._poll(timeout)
        if raw is None:
            return []
        got = [raw]
        while len(got) < most:
            raw = await r._poll(_DRAIN)
            if raw is None:
                break
            got.append(raw)
        return got

    def convert(self, raw: Any) -> Any:
        return self._r._convert(raw)

    async def settle(self, verdicts: list[tuple[bool, Any]]) -> None:
        r = self._r
        for ok, raw in verdicts:
            if ok:
                await r._ack(raw)
            else:
                await r._nack(raw)


Hooks = ThreadHooks | AsyncHooks


class _Window:
    """The messages in hand, in arrival order, with the task handling each; a pump task
    receives into it while the loop settles its oldest entries (``_concurrent``)."""

    __slots__ = (
        "hooks",
        "handling",
        "stop",
        "limit",
        "entries",
        "again",
        "started",
        "handled",
        "rewind",
        "generation",
        "room",
        "arrived",
        "pumping",
    )

    def __init__(
        self, hooks: Hooks, handling: Handling, stop: Stop, limit: int
    ) -> None:
        self.hooks = hooks
        self.handling = handling
        self.stop = stop
        self.limit = limit
        self.entries: deque[tuple[Any, asyncio.Future[bool]]] = deque()
        self.again: deque[Any] = deque()  # unacknowledged, to hand to the handler again
        self.started = self.handled = 0
        #: entries still in the window that go back with an earlier message
        self.rewind = 0
        #: counts the messages given back: a poll that started before one was given back
        #: may hold messages received before the server took it back (they go back too)
        self.generation = 0
        self.room = asyncio.Event()  # set when an entry left the window
        self.arrived = asyncio.Event()  # set when an entry came in, or the pump ended
        self.pumping = True

    def start(self, raw: Any) -> None:
        coro = self.handling.handle_async(self.hooks.convert(raw))
        self.entries.append((raw, asyncio.get_running_loop().create_task(coro)))
        self.arrived.set()

    async def pump(
        self, max_messages: int | None, idle_timeout: float | None, poll_interval: float
    ) -> None:
        """Receive while there is room, until stopping, ``max_messages`` or idle."""
        loop = asyncio.get_running_loop()
        last = loop.time()
        try:
            while not self.stop:
                free = self.limit - len(self.entries)
                if free <= 0:
                    self.room.clear()
                    await self.room.wait()
                    continue
                if self.again:
                    self.start(self.again.popleft())
                    continue
                if max_messages is not None:
                    free = min(free, max_messages - self.started)
                    if free <= 0:
                        break
                timeout = _BUSY_POLL if self.entries else poll_interval
                generation = self.generation
                got = await self.hooks.poll(min(timeout, poll_interval), free)
                if got and generation != self.generation:
                    self.stale(got)
                    continue
                if got:
                    self.started += len(got)
                    last = loop.time()
                    for raw in got:
                        self.start(raw)
                    continue
                if (
                    idle_timeout is not None
                    and not self.entries
                    and loop.time() - last >= idle_timeout
                ):
                    break
                await asyncio.sleep(
                    0
                )  # a receiver that returned at once: let handlers run
        finally:
            self.pumping = False
            self.arrived.set()

    def stale(self, got: list[Any]) -> None:
        """Messages polled while an earlier one was given back: they go back after it, in
        order, unhandled."""
        loop = asyncio.get_running_loop()
        for raw in got:
            done: asyncio.Future[bool] = loop.create_future()
            done.set_result(False)
            self.entries.append((raw, done))
        self.started += len(got)
        self.rewind += len(got)
        self.arrived.set()

    def verdicts(self) -> list[tuple[bool, Any]]:
        """The finished entries at the front that settle now, oldest first (up to the first
        one that raised, which stays)."""
        out: list[tuple[bool, Any]] = []
        entries = self.entries
        while entries and entries[0][1].done():
            raw, task = entries[0]
            if task.exception() is not None:
                break
            entries.popleft()
            if self.rewind:  # goes back with an earlier message
                self.rewind -= 1
                self.started -= 1
                out.append((False, raw))
            elif task.result():
                out.append((True, raw))
                self.handled += 1
            elif self.hooks.gives_back:
                self.started -= 1
                out.append((False, raw))
                self.rewind = len(entries)
                self.generation += 1
            else:
                self.again.append(raw)
        return out


async def concurrent(
    hooks: Hooks,
    handling: Handling,
    stop: Stop,
    max_messages: int | None,
    idle_timeout: float | None,
    poll_interval: float,
    concurrency: int,
) -> int:
    """Up to ``concurrency`` messages in hand; acknowledgements in arrival order."""
    window = _Window(hooks, handling, stop, concurrency)
    entries = window.entries
    pump = asyncio.get_running_loop().create_task(
        window.pump(max_messages, idle_timeout, poll_interval)
    )
    try:
        while True:
            if pump.done() and pump.exception() is not None:
                break  # a receiver error: raised below
            if not entries:
                if not window.pumping:
                    break
                window.arrived.clear()
                await window.arrived.wait()
                continue
            head = entries[0][1]
            if not head.done():
                await asyncio.wait((head,))
            verdicts = window.verdicts()
            if verdicts:
                await hooks.settle(verdicts)
                window.room.set()
            elif entries and entries[0][1].done():  # it raised: serving stops
                raw, task = entries.popleft()
                await hooks.settle([(False, raw)])
                task.result()
        pump.result()  # a receiver error
    finally:
        await _give_back(hooks, entries, pump)
    return window.handled


async def _give_back(
    hooks: Hooks,
    entries: deque[tuple[Any, asyncio.Future[bool]]],
    pump: asyncio.Task[None],
) -> None:
    """Stopping on an error: end the pump and the handlers, give back what is in hand."""
    pump.cancel()
    for _, task in entries:
        task.cancel()
    await asyncio.gather(pump, *(t for _, t in entries), return_exceptions=True)
    if entries:
        await hooks.settle([(False, raw) for raw, _ in entries])
        entries.clear()
