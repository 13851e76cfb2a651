"""The in-memory broker engine shared by every binding: records, routing, groups, senders and
receivers. The binding-specific rules (names, patterns, what a subscriber gets) live in the
subclasses in ``_brokers``.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .._event import Event
from .._retry import Retry
from ..adapters._loop import AsyncPollingReceiver, PollingReceiver
from ..adapters._sender import AsyncSender, Sender
from ..bindings import BINDINGS
from ._routing import Matcher

M = TypeVar("M")

#: the shortest poll of a receiver's ``run`` (seconds): an idle time of 0 does not spin
_MIN_POLL = 0.001
#: how often an asyncio receiver looks at its queue while it waits (seconds)
_ASYNC_SLICE = 0.005

#: what a subscription calls per message: a dispatcher's ``dispatch`` or any callable
Handler = Callable[[M], object]


@dataclass(frozen=True, slots=True)
class Delivery(Generic[M]):
    """What one ``publish`` did: the message as published, its (normalized) destination,
    and what each subscriber that got it returned, in delivery order (a dispatcher's
    ``dispatch`` returns a ``DispatchResult``)."""

    message: M
    destination: str
    results: tuple[object, ...]
    #: whether any subscription took the message (otherwise it is in ``broker.unrouted``)
    routed: bool


class Subscription(Generic[M]):
    """One subscriber: its pattern, handler and group, and every message it was given."""

    __slots__ = (
        "pattern",
        "handler",
        "group",
        "options",
        "received",
        "_match",
        "_broker",
    )

    def __init__(
        self,
        broker: InMemoryBroker[M],
        pattern: object,
        handler: Handler[M],
        match: Callable[[str, M], bool],
        group: str | None,
        options: dict[str, Any],
    ) -> None:
        self.pattern = pattern
        self.handler = handler
        self.group = group
        #: binding-specific subscription options (MQTT ``qos`` and ``version``, HTTP ``method``)
        self.options = options
        #: the messages handed to ``handler``, as the subscriber got them
        self.received: list[M] = []
        self._match = match
        self._broker = broker

    def matches(self, destination: str, message: M) -> bool:
        return self._match(destination, message)

    def cancel(self) -> None:
        """Unsubscribe (idempotent)."""
        self._broker._remove(self)

    def __repr__(self) -> str:
        group = f", group={self.group!r}" if self.group is not None else ""
        return f"Subscription({self.pattern!r}{group})"


def _settle(result: object) -> object:
    """The value of a handler's result, running a coroutine when no event loop runs here."""
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(result))
    close = getattr(result, "close", None)
    if callable(close):
        close()  # never awaited: close it so Python does not warn about it
    raise TypeError(
        "a subscriber returned an awaitable inside a running event loop: "
        "use publish_async / send_async there"
    )


async def _await(awaitable: Awaitable[object]) -> object:
    return await awaitable


class InMemoryBroker(Generic[M]):
    """An in-memory broker of one binding's wire messages (see the package documentation).

    Every published message is recorded in ``published`` (and per destination, see
    :meth:`messages`); one that no subscription took is also recorded in ``unrouted``.
    ``publish`` delivers synchronously to every matching subscription (one member per
    ``group``), in subscription order; an exception of a handler propagates out of
    ``publish`` after the message was recorded (the remaining subscribers do not get it).
    A handler may publish: that message is delivered before the outer ``publish`` returns.
    """

    #: the binding this broker carries (its name in ``xrgen_runtime.bindings.BINDINGS``):
    #: ``send`` encodes with that binding's codec
    codec: str = ""

    def __init__(self) -> None:
        #: every message published, in order, as the producer sent it
        self.published: list[M] = []
        #: the published messages that no subscription took
        self.unrouted: list[M] = []
        self._by_destination: dict[str, list[M]] = {}
        self._subscriptions: list[Subscription[M]] = []
        self._turns: dict[str, int] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------- binding rules (subclasses)

    def _destination(self, message: M) -> str:
        """The destination ``message`` is published to, normalized; ``ValueError`` if the
        real server would refuse it."""
        raise NotImplementedError

    def _normalize(self, destination: str) -> str:
        """A destination name as :meth:`_destination` normalizes it."""
        return destination

    def _encode(self, event: Event[Any], mode: str, options: dict[str, Any]) -> M:
        """``event`` encoded by the codec of the binding (``codec``)."""
        message: M = BINDINGS[self.codec].codec().encode(event, mode, **options)
        return message

    def _placed(self, destination: str, message: M) -> M:
        """The message as the broker stores and delivers it (default: unchanged); called
        once per published message, under the broker's lock."""
        return message

    def _copy_for(self, subscription: Subscription[M], message: M) -> M:
        """The message as ``subscription`` receives it (default: unchanged)."""
        return message

    def _member(
        self, members: list[Subscription[M]], group: str, message: M
    ) -> Subscription[M]:
        """The member of ``group`` that gets ``message`` (default: round robin)."""
        turn = self._turns.get(group, 0)
        self._turns[group] = turn + 1
        return members[turn % len(members)]

    def _selected(self, destination: str, message: M) -> list[Subscription[M]]:
        """The subscriptions that get ``message``: every match, one per group."""
        chosen: list[Subscription[M]] = []
        groups: dict[str, list[Subscription[M]]] = {}
        order: list[Subscription[M] | str] = []
        for sub in self._subscriptions:
            if not sub.matches(destination, message):
                continue
            if sub.group is None:
                order.append(sub)
            else:
                if sub.group not in groups:
                    groups[sub.group] = []
                    order.append(sub.group)
                groups[sub.group].append(sub)
        for item in order:
            if isinstance(item, str):
                chosen.append(self._member(groups[item], item, message))
            else:
                chosen.append(item)
        return chosen

    # ------------------------------------------------------------------------- subscribing

    def _add(
        self,
        pattern: object,
        handler: Handler[M],
        match: Callable[[str, M], bool],
        group: str | None = None,
        **options: Any,
    ) -> Subscription[M]:
        sub = Subscription(self, pattern, handler, match, group, options)
        with self._lock:
            self._subscriptions.append(sub)
        return sub

    def _remove(self, sub: Subscription[M]) -> None:
        with self._lock:
            if sub in self._subscriptions:
                self._subscriptions.remove(sub)

    @staticmethod
    def _by_name(matcher: Matcher) -> Callable[[str, M], bool]:
        return lambda destination, _message: matcher(destination)

    def subscribe(
        self, pattern: str, handler: Handler[M], *, group: str | None = None
    ) -> Subscription[M]:
        """Call ``handler(message)`` for every message published to a destination that
        ``pattern`` matches; within a ``group`` one member gets each message."""
        raise NotImplementedError

    def subscriber(
        self, pattern: str, **options: Any
    ) -> Callable[[Handler[M]], Handler[M]]:
        """Decorator form of :meth:`subscribe`."""

        def decorate(handler: Handler[M]) -> Handler[M]:
            self.subscribe(pattern, handler, **options)
            return handler

        return decorate

    @property
    def subscriptions(self) -> tuple[Subscription[M], ...]:
        return tuple(self._subscriptions)

    # -------------------------------------------------------------------------- publishing

    def messages(self, destination: str) -> list[M]:
        """The messages published to ``destination`` (exactly that name, not a pattern)."""
        return list(self._by_destination.get(self._normalize(destination), ()))

    def _route(self, message: M) -> tuple[str, list[tuple[Subscription[M], M]]]:
        with self._lock:
            destination = self._destination(message)
            self.published.append(message)
            self._by_destination.setdefault(destination, []).append(message)
            placed = self._placed(destination, message)
            targets = [
                (sub, self._copy_for(sub, placed))
                for sub in self._selected(destination, placed)
            ]
            if not targets:
                self.unrouted.append(message)
            for sub, copy in targets:
                sub.received.append(copy)
        return destination, targets

    def publish(self, message: M) -> Delivery[M]:
        """Record ``message`` and deliver it to its subscribers now; ``ValueError`` for a
        destination the real server would refuse."""
        destination, targets = self._route(message)
        results = tuple(_settle(sub.handler(copy)) for sub, copy in targets)
        return Delivery(message, destination, results, bool(targets))

    async def publish_async(self, message: M) -> Delivery[M]:
        """:meth:`publish` awaiting subscribers that return awaitables (``dispatch_async``)."""
        destination, targets = self._route(message)
        results: list[object] = []
        for sub, copy in targets:
            result = sub.handler(copy)
            if inspect.isawaitable(result):
                result = await result
            results.append(result)
        return Delivery(message, destination, tuple(results), bool(targets))

    def encode(self, event: Event[Any], mode: str = "binary", **options: Any) -> M:
        """``event`` encoded with this binding's codec (``options`` go to its ``encode``)."""
        return self._encode(event, mode, options)

    def send(
        self, event: Event[Any], mode: str = "binary", **options: Any
    ) -> Delivery[M]:
        """Encode ``event`` (``mode`` ``"binary"`` or ``"structured"``; ``options`` such as
        ``topic=`` go to the codec's ``encode``) and publish the wire message."""
        return self.publish(self._encode(event, mode, options))

    async def send_async(
        self, event: Event[Any], mode: str = "binary", **options: Any
    ) -> Delivery[M]:
        """:meth:`send` through :meth:`publish_async`."""
        return await self.publish_async(self._encode(event, mode, options))

    def clear(self) -> None:
        """Forget the recorded messages (subscriptions stay)."""
        with self._lock:
            self.published.clear()
            self.unrouted.clear()
            self._by_destination.clear()
            for sub in self._subscriptions:
                sub.received.clear()

    # ------------------------------------------------------------ the adapters' API shape

    def sender(self) -> BrokerSender[M]:
        """A sender shaped like the adapters' ``<X>Sender`` (``send``, ``flush``, ``close``)."""
        return BrokerSender(self)

    def async_sender(self) -> AsyncBrokerSender[M]:
        """An asyncio sender shaped like ``NatsSender`` (``await send(msg)``)."""
        return AsyncBrokerSender(self)

    def receiver(self, *patterns: str, **options: Any) -> BrokerReceiver[M]:
        """A receiver shaped like the adapters' ``<X>Receiver``: messages published to
        ``patterns`` from now on wait in its queue for ``receive`` or ``run``."""
        return BrokerReceiver(self, patterns, options)

    def async_receiver(self, *patterns: str, **options: Any) -> AsyncBrokerReceiver[M]:
        """:meth:`receiver` with an asyncio ``run`` (like ``NatsReceiver``)."""
        return AsyncBrokerReceiver(self, patterns, options)


class BrokerSender(Sender, Generic[M]):
    """``send(msg)`` publishes at once and returns a resolved ``Future`` of the
    :class:`Delivery` (a handler's exception is raised by ``send`` itself, so a test sees
    it); ``flush`` and ``close`` have nothing to wait for."""

    __slots__ = ("broker",)

    def __init__(self, broker: InMemoryBroker[M]) -> None:
        self.broker = broker

    def send(self, msg: M) -> Future[Delivery[M]]:
        future: Future[Delivery[M]] = Future()
        future.set_result(self.broker.publish(msg))
        return future


class AsyncBrokerSender(AsyncSender, Generic[M]):
    """The asyncio twin of :class:`BrokerSender`: ``await send(msg)`` returns the
    :class:`Delivery` (subscribers' awaitables are awaited)."""

    __slots__ = ("broker",)

    def __init__(self, broker: InMemoryBroker[M]) -> None:
        self.broker = broker

    async def send(self, msg: M) -> Delivery[M]:
        return await self.broker.publish_async(msg)


class _QueueReceiver(Generic[M]):
    """The receivers' queue: subscriptions that append to it (each message numbered in arrival
    order), ``_take`` that waits, and the messages taken by ``run`` and not yet settled.
    """

    __slots__ = (
        "_items",
        "_ready",
        "_subscriptions",
        "_arrivals",
        "_in_hand",
        "acknowledged",
    )

    def __init__(
        self,
        broker: InMemoryBroker[M],
        patterns: Iterable[str],
        options: dict[str, Any],
    ) -> None:
        self._items: deque[tuple[int, M]] = deque()
        self._ready = threading.Condition()
        self._arrivals = itertools.count()
        #: the messages ``run`` received and neither acknowledged nor gave back yet
        self._in_hand: dict[int, M] = {}
        #: the messages ``run`` acknowledged, in order
        self.acknowledged: list[M] = []
        self._subscriptions = [
            broker.subscribe(p, self._put, **options) for p in patterns
        ]

    @property
    def pending(self) -> int:
        """How many messages wait in the queue."""
        return len(self._items)

    def _put(self, message: M) -> None:
        with self._ready:
            self._items.append((next(self._arrivals), message))
            self._ready.notify_all()

    def _take(self, timeout: float | None) -> tuple[int, M] | None:
        """The next message; waits up to ``timeout`` seconds (``None``: until one comes)."""
        with self._ready:
            if not self._items and timeout != 0:
                self._ready.wait_for(lambda: bool(self._items), timeout)
            return self._items.popleft() if self._items else None

    def _take_in_hand(self, timeout: float | None) -> tuple[int, M] | None:
        """:meth:`_take` for ``run``: the message stays in hand until it is settled."""
        with self._ready:
            raw = self._take(timeout)
            if raw is not None:
                self._in_hand[raw[0]] = raw[1]
            return raw

    def _acknowledged(self, raw: tuple[int, M]) -> None:
        with self._ready:
            if self._in_hand.pop(raw[0], None) is not None:
                self.acknowledged.append(raw[1])

    def _given_back(self, raw: tuple[int, M]) -> None:
        """Back into the queue at its place in arrival order (as a broker redelivers)."""
        with self._ready:
            self._in_hand.pop(raw[0], None)
            items = self._items
            at = 0
            while at < len(items) and items[at][0] < raw[0]:
                at += 1
            items.insert(at, raw)
            self._ready.notify_all()

    def _give_back_in_hand(self) -> None:
        """After ``run``: what it received and did not settle goes back (nothing is lost)."""
        with self._ready:
            for arrival, message in sorted(self._in_hand.items()):
                self._given_back((arrival, message))

    def _unsubscribe(self) -> None:
        for sub in self._subscriptions:
            sub.cancel()


def _polling(poll_interval: float, idle_timeout: float | None) -> float:
    """The poll timeout of the serving loop over a queue: an idle time shorter than the poll
    interval is noticed at once (``idle_timeout=0.0``: return when the queue is empty).
    """
    if idle_timeout is None:
        return poll_interval
    return min(poll_interval, max(idle_timeout, _MIN_POLL))


class BrokerReceiver(_QueueReceiver[M], PollingReceiver[tuple[int, M], M]):
    """Pull-style subscriber with the adapters' receivers' ``run``: the same serving loop
    (``adapters/_serve``) over the in-memory queue.

    ``run(on_message, ...)`` takes the arguments of the adapters' ``run`` (``stop``,
    ``max_messages``, ``idle_timeout``, ``poll_interval``, ``handle_signals``,
    ``concurrency``, ``retry``) and behaves as on a real broker: a message is acknowledged
    (``acknowledged``) after ``on_message`` returned; a dispatcher's dead letter is delivered
    for a handler error; ``HandlerError`` (``redeliver=True``) is retried per ``retry``, then
    dead-lettered; a dead letter not delivered (its callback raised) sends the message back to
    the queue at its place; any other exception gives the message back and propagates.
    Returns the number of messages acknowledged. ``idle_timeout`` defaults to ``0.0``: ``run``
    returns when the queue is empty (``None`` waits for messages published by other threads
    until ``stop`` or ``max_messages``). Messages in hand when ``run`` ends unsettled go back
    to the queue.
    """

    __slots__ = ()

    def receive(self, timeout: float | None = 0.0) -> M | None:
        """The next message (taken off the queue), or ``None`` after ``timeout`` seconds
        without one."""
        raw = self._take(timeout)
        return None if raw is None else raw[1]

    def _poll(self, timeout: float) -> tuple[int, M] | None:
        return self._take_in_hand(timeout)

    def _convert(self, raw: tuple[int, M]) -> M:
        return raw[1]

    def _ack(self, raw: tuple[int, M]) -> None:
        self._acknowledged(raw)

    def _nack(self, raw: tuple[int, M]) -> None:
        self._given_back(raw)

    def run(
        self,
        on_message: Callable[[M], object] | Any,
        *,
        stop: threading.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = 0.0,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
        retry: Retry | None = None,
    ) -> int:
        try:
            return super().run(
                on_message,
                stop=stop,
                max_messages=max_messages,
                idle_timeout=idle_timeout,
                poll_interval=_polling(poll_interval, idle_timeout),
                handle_signals=handle_signals,
                concurrency=concurrency,
                retry=retry,
            )
        finally:
            self._give_back_in_hand()

    def close(self) -> None:
        """Unsubscribe; queued messages are dropped with the receiver."""
        self._unsubscribe()

    def __enter__(self) -> BrokerReceiver[M]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncBrokerReceiver(_QueueReceiver[M], AsyncPollingReceiver[tuple[int, M], M]):
    """The asyncio twin of :class:`BrokerReceiver` (the adapters' asyncio serving loop;
    ``on_message`` sync or async)."""

    __slots__ = ()

    async def _wait(
        self, timeout: float | None, take: Callable[[float | None], Any]
    ) -> Any:
        """``take(0)`` until it returns a message or ``timeout`` passed, never blocking the
        event loop (and never leaving a thread waiting that could take a message later).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            raw = take(0)
            if raw is not None:
                return raw
            left = _ASYNC_SLICE if deadline is None else deadline - time.monotonic()
            if left <= 0:
                return None
            await asyncio.sleep(min(left, _ASYNC_SLICE))

    async def receive(self, timeout: float | None = 0.0) -> M | None:
        """The next message (taken off the queue), or ``None`` after ``timeout`` seconds
        without one."""
        raw = await self._wait(timeout, self._take)
        return None if raw is None else raw[1]

    async def _poll(self, timeout: float) -> tuple[int, M] | None:
        raw: tuple[int, M] | None = await self._wait(timeout, self._take_in_hand)
        return raw

    def _convert(self, raw: tuple[int, M]) -> M:
        return raw[1]

    async def _ack(self, raw: tuple[int, M]) -> None:
        self._acknowledged(raw)

    async def _nack(self, raw: tuple[int, M]) -> None:
        self._given_back(raw)

    async def run(
        self,
        on_message: Callable[[M], object | Awaitable[object]] | Any,
        *,
        stop: asyncio.Event | None = None,
        max_messages: int | None = None,
        idle_timeout: float | None = 0.0,
        poll_interval: float = 0.2,
        handle_signals: bool = True,
        concurrency: int = 1,
        retry: Retry | None = None,
    ) -> int:
        """:meth:`BrokerReceiver.run` in the running event loop."""
        try:
            return await super().run(
                on_message,
                stop=stop,
                max_messages=max_messages,
                idle_timeout=idle_timeout,
                poll_interval=_polling(poll_interval, idle_timeout),
                handle_signals=handle_signals,
                concurrency=concurrency,
                retry=retry,
            )
        finally:
            self._give_back_in_hand()

    async def close(self) -> None:
        self._unsubscribe()

    async def __aenter__(self) -> AsyncBrokerReceiver[M]:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
