"""The connections of the AMQP 1.0 adapter: one proton ``Container`` per client, run by a
thread of its own, which connects, reconnects with backoff and does what the caller's thread
hands over.

``Io`` holds what both roles share: the first connection (bounded by the connect timeout,
``ConnectFailed`` when the server cannot be reached or refuses), reconnecting after a lost
connection (the URIs in turn, ``Backoff`` between attempts), the hand-over of work from the
caller's thread (a queue and one wake-up of the container per batch) and the orderly close.
``Sending`` pipelines messages and resolves their futures from the broker's dispositions;
while the connection is down ``send`` raises ``NotConnected`` and the futures of messages in
flight fail with it (they may or may not have reached the broker: send them again).
``Receiving`` runs in the caller's thread (it drives the container as it asks for messages),
grants credit only for messages settled (at most ``prefetch`` unsettled, so a restart
redelivers at most that many) and settles them with the next round of I/O: before the caller
waits for a message, or every quarter of the window while messages are waiting;
messages received on a connection that has since dropped are not handled (the broker sends
them again).

Proton objects are touched in the container's thread only.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any
from urllib.parse import urlsplit

import proton  # type: ignore[import-untyped,import-not-found,unused-ignore]
from proton import Handler
from proton.handlers import MessagingHandler  # type: ignore[import-untyped,import-not-found,unused-ignore]
from proton.reactor import ApplicationEvent, Container, EventInjector  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ._connection import Backoff, ConnectFailed, NotConnected
from ._future import SendFuture

__all__ = ["AmqpDeliveryError", "Io", "Receiving", "Sending"]

_log = logging.getLogger("xrgen_runtime.adapters")
_WORK = "xrgen_work"


class AmqpDeliveryError(Exception):
    """The broker did not accept a message (rejected, released or modified)."""


def _condition(endpoint: Any) -> str:
    """The error condition the peer sent for a connection, session or link (or a
    transport's own), as text; ``""`` when there is none."""
    if endpoint is None:
        return ""
    condition = getattr(endpoint, "remote_condition", None) or endpoint.condition
    if condition is None:
        return ""
    return f"{condition.name}: {condition.description}"


class Io(MessagingHandler):
    """One AMQP connection served by its own container thread (see the module doc)."""

    def __init__(
        self,
        urls: list[str],
        options: Mapping[str, Any],
        timeout: float,
        address: str | None,
        link_options: list[Any] | None,
    ) -> None:
        super().__init__(prefetch=0, auto_accept=False, auto_settle=True)
        #: the node the link attaches to (a sender's default target, a receiver's source)
        self.address = address
        #: the ``LinkSettings`` of every link
        self.link_options = link_options
        self.urls = urls
        self.options = dict(options)
        self.timeout = timeout
        self.backoff = Backoff()
        self.container = Container(self)
        self.injector = EventInjector()
        self.container.selectable(self.injector)
        self.connection: Any = None
        #: the number of the connection: what came on an earlier one is stale
        self.generation = 0
        #: connected and the links attached: sends and settlements go out
        self.up = False
        self.closing = False
        self.ready = threading.Event()
        self.failure = ""
        self.last_error = ""
        self.work: deque[Callable[[], None]] = deque()
        self.signalled = False
        self.timer: Any = None
        #: the timer of the connect attempt in progress
        self.watchdog: Any = None
        self._next_url = 0
        self.thread = threading.Thread(target=self._run, name="xrgen-amqp", daemon=True)

    # ------------------------------------------------------------------ caller's thread

    #: the container runs in a thread of its own (else the caller's thread drives it in
    #: ``pump``)
    threaded = True

    def start(self) -> None:
        """Connect (the first URI that answers) within the connect timeout."""
        if self.threaded:
            self.thread.start()
            self.ready.wait(self.timeout)
        else:
            self.container.start()
            deadline = time.monotonic() + self.timeout
            while not self.ready.is_set() and self.pump(deadline - time.monotonic()):
                pass
        if not self.ready.is_set() or not self.up:
            reason = self.failure or self.last_error or f"no answer in {self.timeout}s"
            self.stop(0.2)
            host, port = _where(self.urls[0])
            raise ConnectFailed("AMQP", host, port, reason)

    def pump(self, timeout: float) -> bool:
        """Process the connection's events, waiting up to ``timeout`` seconds for the first
        (not threaded); ``False`` once the container has ended or the time is up."""
        if timeout < 0:
            return False
        self.drain()
        self.container.timeout = timeout
        return bool(self.container.process())

    def where(self) -> str:
        host, port = _where(self.urls[(self._next_url - 1) % len(self.urls)])
        return f"{host}:{port}"

    def wake(self) -> None:
        """Have the container do the work handed over (one wake-up per batch)."""
        if self.threaded and not self.signalled:
            self.signalled = True
            self.injector.trigger(ApplicationEvent(_WORK))

    def call(self, fn: Callable[[], None]) -> None:
        if self.threaded:
            self.work.append(fn)
            self.wake()
        else:
            fn()

    def stop(self, timeout: float) -> None:
        """Close the connection after the work handed over so far, and end the thread (not
        threaded: process the close for up to ``timeout`` seconds)."""
        if self.threaded:
            if self.thread.is_alive():
                self.call(self._close)
                self.thread.join(timeout)
            return
        self.drain()  # the settlements first, then the close
        self._close()
        deadline = time.monotonic() + timeout
        while self.pump(min(0.1, deadline - time.monotonic())):
            pass

    # ------------------------------------------------------------------ container thread

    def _run(self) -> None:
        try:
            self.container.run()
        except Exception:  # a bug of ours: the thread must not die silently
            _log.exception("AMQP connection thread failed")
            self.up = False
            self.ready.set()

    def on_start(self, event: Any) -> None:
        self._connect()

    def _connect(self) -> None:
        self.timer = None
        if self.closing:
            return
        url = self.urls[self._next_url % len(self.urls)]
        self._next_url += 1
        _log.debug("AMQP: connecting to %s", self.where())
        connection = self.container.connect(url, reconnect=False, **self.options)
        self.connection = connection
        self.watchdog = self.container.schedule(
            self.timeout, _Watchdog(self, connection)
        )

    def overdue(self, connection: Any) -> None:
        """The connect timeout of ``connection`` passed: unless it serves by now, drop its
        transport (a server that accepted the TCP connection but does not answer)."""
        if self.up or self.connection is None or connection != self.connection:
            return
        self.last_error = f"no answer in {self.timeout}s"
        transport = connection.transport
        if transport is not None:
            transport.close_tail()
            transport.close_head()
        else:
            self._gone(connection)

    def on_timer_task(self, event: Any) -> None:
        self._connect()

    def on_connection_opened(self, event: Any) -> None:
        self.generation += 1
        self.attach(event.connection)

    def attached(self) -> None:
        """The links are attached: the connection serves (called by the subclass)."""
        self._stop_watchdog()
        if not self.up:
            if self.ready.is_set():
                _log.info("AMQP connection to %s is back", self.where())
            self.up = True
            self.backoff.reset()
            self.ready.set()

    def on_transport_error(self, event: Any) -> None:
        self.last_error = _condition(event.transport) or "transport error"

    def on_connection_error(self, event: Any) -> None:
        self._failed(event.connection, _condition(event.connection))

    def on_session_error(self, event: Any) -> None:
        self._failed(event.connection, _condition(event.session))

    def on_link_error(self, event: Any) -> None:
        condition = _condition(event.link)
        _log.warning("AMQP link closed by %s: %s", self.where(), condition)
        self._failed(event.connection, condition)

    def _failed(self, connection: Any, condition: str) -> None:
        """The broker closed the connection, a session or a link with an error: close the
        connection and go on as if it dropped (the broker may never answer the close).
        """
        self.last_error = condition
        connection.close()
        self._gone(connection)

    def on_transport_closed(self, event: Any) -> None:
        self._gone(event.connection)

    def on_disconnected(self, event: Any) -> None:
        self.last_error = self.last_error or _condition(event.transport)
        self._gone(event.connection)

    def on_connection_closed(self, event: Any) -> None:
        if self.closing:
            self.up = False
            self.lost("closed")
            self.injector.close()
        else:  # closed by the broker, or by us after an error
            self._gone(event.connection)

    def _gone(self, connection: Any) -> None:
        """The connection ended without ``stop``: reconnect after a delay (or, before the
        first connection served, try the next URI or give up)."""
        if self.connection is None or connection != self.connection:
            return
        _log.debug("AMQP: connection to %s ended: %s", self.where(), self.last_error)
        was_up, self.up = self.up, False
        self.connection = None
        self._stop_watchdog()
        self.generation += 1
        reason = self.last_error or "connection lost"
        self.lost(reason)
        if self.closing:
            self.injector.close()
            return
        if not self.ready.is_set():
            if self._next_url < len(self.urls):  # the next URI
                self.timer = self.container.schedule(0, self)
                return
            self.failure = reason
            self.closing = True
            self.ready.set()
            self.injector.close()
            return
        if was_up:
            _log.warning(
                "AMQP connection to %s lost (%s); reconnecting", self.where(), reason
            )
        self.timer = self.container.schedule(self.backoff.next(), self)
        self.last_error = ""

    def on_xrgen_work(self, event: Any) -> None:
        self.signalled = False
        self.drain()
        work = self.work
        while work:
            work.popleft()()

    def _stop_watchdog(self) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None

    def _close(self) -> None:
        self.closing = True
        self._stop_watchdog()
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.connection is not None:
            self.connection.close()
        else:
            self.injector.close()

    # ------------------------------------------------------------------ subclass hooks

    def attach(self, connection: Any) -> None:
        raise NotImplementedError

    def lost(self, reason: str) -> None:
        """The connection is gone (``self.up`` is false): fail or drop what depends on it."""

    def drain(self) -> None:
        """Do the hot-path work handed over (before the queued calls)."""


class _Watchdog(Handler):
    """The timer of one connect attempt (``Io.overdue``)."""

    def __init__(self, io: Io, connection: Any) -> None:
        self.io = io
        self.connection = connection

    def on_timer_task(self, event: Any) -> None:
        self.io.overdue(self.connection)


def _where(url: str) -> tuple[str, int]:
    """The host and port of an AMQP URL (``amqps`` defaults to 5671, else 5672)."""
    parts = urlsplit(url if "://" in url else "amqp://" + url)
    return parts.hostname or "", parts.port or (
        5671 if parts.scheme == "amqps" else 5672
    )


class Sending(Io):
    """The sending side: links per target address, messages pipelined, futures resolved by
    the dispositions (see the module doc)."""

    def __init__(self, *args: Any, max_in_flight: int) -> None:
        super().__init__(*args)
        self.max_in_flight = max_in_flight
        self.links: dict[str | None, Any] = {}
        #: link -> futures of its messages sent and not yet settled (in order)
        self.in_flight: dict[Any, dict[Future[None], None]] = {}
        #: (address, proton message, future) handed over by ``send``
        self.outbox: deque[tuple[str | None, Any, Future[None]]] = deque()
        #: link -> messages waiting for its credit
        self.waiting: dict[Any, deque[tuple[Any, Future[None]]]] = {}
        self.sent = 0  # written by the caller's thread only
        self.settled = 0  # written by the container's thread only
        self.room = threading.Event()
        self.room.set()
        self.changed = threading.Condition()
        self.flushing = 0
        self.failures: list[BaseException] = []

    # caller's thread -------------------------------------------------------------------

    def send(self, address: str | None, message: Any, timeout: float) -> Future[None]:
        if not self.up:
            raise NotConnected(
                f"AMQP connection to {self.where()} is down (reconnecting); not sent"
            )
        if self.sent - self.settled >= self.max_in_flight:
            self.room.clear()
            if self.sent - self.settled >= self.max_in_flight and not self.room.wait(
                timeout
            ):
                raise TimeoutError(
                    f"{self.max_in_flight} AMQP messages unsettled for {timeout}s"
                )
        future: Future[None] = SendFuture()
        self.sent += 1
        self.outbox.append((address, message, future))
        self.wake()
        return future

    def flush(self, timeout: float) -> None:
        target = self.sent
        with self.changed:
            self.flushing += 1
            try:
                if not self.changed.wait_for(lambda: self.settled >= target, timeout):
                    raise TimeoutError(
                        f"{target - self.settled} AMQP message(s) unsettled after "
                        f"{timeout}s"
                    )
            finally:
                self.flushing -= 1
        failures, self.failures = self.failures, []
        if failures:
            raise failures[0]

    # container's thread ----------------------------------------------------------------

    def attach(self, connection: Any) -> None:
        self.links = {}
        self.waiting = {}
        self.in_flight = {}
        if self.address is None:
            self.attached()  # links open per message address, as they are needed
        else:
            self._link(self.address)

    def _link(self, address: str | None) -> Any:
        link = self.links.get(address)
        if link is None:
            link = self.container.create_sender(
                self.connection, address, options=self.link_options
            )
            self.links[address] = link
            self.waiting[link] = deque()
            self.in_flight[link] = {}
        return link

    def on_link_opened(self, event: Any) -> None:
        if self.address is not None and event.link == self.links.get(self.address):
            self.attached()

    def on_link_error(self, event: Any) -> None:
        link = event.link
        address = next((a for a, k in self.links.items() if k == link), None)
        if address is None or address == self.address:
            super().on_link_error(event)
            return
        # a node of one message's address refused the link: fail its messages only
        error = AmqpDeliveryError(f"link to {address!r} refused: {_condition(link)}")
        del self.links[address]
        for _message, future in self.waiting.pop(link, ()):
            self._fail(future, error)
        for future in self.in_flight.pop(link, {}):
            self._fail(future, error)
        link.close()

    def drain(self) -> None:
        outbox = self.outbox
        while outbox:
            address, message, future = outbox.popleft()
            if not self.up:
                self._fail(future, self._down())
                continue
            link = self._link(address)
            waiting = self.waiting[link]
            if waiting or not link.credit:
                waiting.append((message, future))
            else:
                self._deliver(link, message, future)

    def on_sendable(self, event: Any) -> None:
        link = event.sender
        waiting = self.waiting.get(link)
        while waiting and link.credit:
            message, future = waiting.popleft()
            self._deliver(link, message, future)

    def _deliver(self, link: Any, message: Any, future: Future[None]) -> None:
        delivery = link.send(message)
        if link.snd_settle_mode == proton.Link.SND_SETTLED:
            future.set_result(None)  # pre-settled: no disposition will come
            self._settled(1)
        else:
            delivery.future = future
            self.in_flight[link][future] = None

    def _take(self, event: Any) -> Future[None] | None:
        delivery = event.delivery
        future: Future[None] | None = getattr(delivery, "future", None)
        if future is not None:
            delivery.future = None
            in_flight = self.in_flight.get(event.link)
            if in_flight is not None:
                in_flight.pop(future, None)
        return future

    def on_accepted(self, event: Any) -> None:
        future = self._take(event)
        if future is not None:
            future.set_result(None)
            self._settled(1)

    def on_rejected(self, event: Any) -> None:
        self._refused(event, "rejected")

    def on_released(self, event: Any) -> None:
        self._refused(event, "released")

    def _refused(self, event: Any, what: str) -> None:
        future = self._take(event)
        if future is not None:
            condition = _condition(event.delivery.remote)
            self._fail(
                future,
                AmqpDeliveryError(
                    f"{what} by the broker{': ' + condition if condition else ''}"
                ),
            )

    def _fail(self, future: Future[None], error: BaseException) -> None:
        if not future.done():
            future.set_exception(error)
            self.failures.append(error)
        self._settled(1)

    def _settled(self, count: int) -> None:
        self.settled += count
        if not self.room.is_set() and self.sent - self.settled < self.max_in_flight:
            self.room.set()
        if self.flushing:
            with self.changed:
                self.changed.notify_all()

    def _down(self) -> NotConnected:
        return NotConnected(
            f"AMQP connection to {self.where()} lost ({self.last_error or 'closed'}): the "
            "message may or may not have reached the broker; send it again"
        )

    def lost(self, reason: str) -> None:
        error = self._down()
        for futures in self.in_flight.values():
            for future in futures:
                self._fail(future, error)
        for waiting in self.waiting.values():
            while waiting:
                self._fail(waiting.popleft()[1], error)
        while self.outbox:
            self._fail(self.outbox.popleft()[2], error)
        self.links = {}
        self.waiting = {}
        self.in_flight = {}


class Receiving(Io):
    """The receiving side: one link, credit for at most ``prefetch`` unsettled messages,
    settlements sent with the next batch of I/O. The caller's thread drives the container
    (``next``; settlements every half window while messages wait), as a hand-written proton consumer's handler would: nothing crosses threads.
    """

    threaded = False

    def __init__(self, *args: Any, prefetch: int, dynamic: bool) -> None:
        super().__init__(*args)
        if prefetch < 1:
            raise ValueError("prefetch must be at least 1")
        self.prefetch = prefetch
        #: messages handed out between two rounds of I/O while more are waiting
        self.batch = max(1, prefetch // 2)
        self.dynamic = dynamic
        self.link: Any = None
        self.presettled = False
        #: (generation, delivery, message) received
        self.inbox: deque[tuple[int, Any, Any]] = deque()
        #: (generation, delivery, outcome) of messages handled, to settle
        self.outcomes: deque[tuple[int, Any, int]] = deque()
        self.since = 0

    def next(self, timeout: float) -> tuple[int, Any, Any] | None:
        """The next message received, waiting up to ``timeout`` seconds; settlements go out
        and more messages come in before it when the last ones are used up, or every
        ``batch`` messages."""
        inbox = self.inbox
        if inbox and self.since < self.batch:
            self.since += 1
            return inbox.popleft()
        self.since = 0
        self.pump(0.0)
        deadline = time.monotonic() + timeout
        while not inbox:
            if not self.pump(deadline - time.monotonic()):
                return None
        return inbox.popleft()

    def attach(self, connection: Any) -> None:
        self.link = self.container.create_receiver(
            connection,
            None if self.dynamic else self.address,
            dynamic=self.dynamic,
            options=self.link_options,
        )

    def on_link_opened(self, event: Any) -> None:
        link = event.link
        if link != self.link:
            return
        if self.dynamic:
            self.address = link.remote_source.address
        self.presettled = link.remote_snd_settle_mode == proton.Link.SND_SETTLED
        link.flow(self.prefetch)
        self.attached()

    def on_message(self, event: Any) -> None:
        delivery = event.delivery
        if self.presettled:
            delivery.settle()
            self.link.flow(1)
        self.inbox.append((self.generation, delivery, event.message))

    def outcome(self, generation: int, delivery: Any, outcome: int) -> None:
        """The outcome of a message handled: settled with the next round of I/O."""
        self.outcomes.append((generation, delivery, outcome))

    def flush_outcomes(self) -> None:
        """Send the outcomes so far now."""
        if self.outcomes:
            self.pump(0.0)

    def drain(self) -> None:
        outcomes = self.outcomes
        current = self.generation
        link = self.link
        settled = 0
        while outcomes:
            generation, delivery, outcome = outcomes.popleft()
            if generation != current or not self.up:
                continue  # its connection dropped: the broker sends it again
            delivery.update(outcome)
            delivery.settle()
            settled += 1
        if settled and link is not None:
            link.flow(settled)

    def lost(self, reason: str) -> None:
        self.link = None
