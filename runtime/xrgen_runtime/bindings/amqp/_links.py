"""The two sides of an AMQP 1.0 connection (``_io.Io``): ``Sending`` pipelines messages
and resolves their futures from the broker's dispositions (while the connection is down
``send`` raises ``NotConnected``, and the futures of messages in flight fail with it: they may
or may not have reached the broker); ``Receiving`` runs in the caller's thread, grants credit
only for settled messages (at most ``prefetch`` unsettled, so a restart redelivers at most that
many) and settles them with the next round of I/O; messages received on a connection that has
since dropped are not handled (the broker sends them again).

Proton objects are touched by one thread at a time: the connection's own (sending) or the
caller's (receiving).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import proton  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ...adapters._connection import NotConnected
from ...adapters._future import SendFuture
from ...adapters._sender import Receipt
from ._io import AmqpDeliveryError, Io, condition

__all__ = ["Receiving", "Sending"]


class Sending(Io):
    """The sending side: links per target address, messages pipelined, futures resolved by
    the dispositions (see the module doc)."""

    def __init__(
        self, *args: Any, max_in_flight: int, encode: Callable[[Any], bytes]
    ) -> None:
        super().__init__(*args)
        self.max_in_flight = max_in_flight
        #: a ``send`` waiting for room goes on once this few are in flight: a quarter of the
        #: window at once, not one message per settlement (each a wake-up of its thread)
        self.low_water = max_in_flight - max(1, max_in_flight // 4)
        #: what ``send`` gets -> the bytes of its transfer (in the connection's thread)
        self.encode = encode
        self.links: dict[str | None, Any] = {}
        #: link -> futures of its messages sent and not yet settled (in order)
        self.in_flight: dict[Any, dict[Future[Receipt], None]] = {}
        #: (address, message, future) handed over by ``send``
        self.outbox: deque[tuple[str | None, Any, Future[Receipt]]] = deque()
        #: link -> encoded messages waiting for its credit
        self.waiting: dict[Any, deque[tuple[bytes, Future[Receipt], Receipt]]] = {}
        self.sent = 0  # written by the caller's thread only
        self.settled = 0  # written by the container's thread only
        self.room = threading.Event()
        self.room.set()
        self.changed = threading.Condition()
        self.flushing = 0
        self.failures: list[BaseException] = []

    # caller's thread -------------------------------------------------------------------

    def send(
        self, address: str | None, message: Any, timeout: float
    ) -> Future[Receipt]:
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
        future: Future[Receipt] = SendFuture()
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
        error = AmqpDeliveryError(f"link to {address!r} refused: {condition(link)}")
        del self.links[address]
        for _message, future, _receipt in self.waiting.pop(link, ()):
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
            try:
                encoded = self.encode(message)
            except Exception as exc:  # a value proton cannot encode: this message fails
                self._fail(
                    future, AmqpDeliveryError(f"proton cannot encode it: {exc!r}")
                )
                continue
            link = self._link(address)
            waiting = self.waiting[link]
            if waiting or not link.credit:
                waiting.append((encoded, future, Receipt(address)))
            else:
                self._deliver(link, encoded, future, Receipt(address))

    def on_sendable(self, event: Any) -> None:
        link = event.sender
        waiting = self.waiting.get(link)
        while waiting and link.credit:
            message, future, receipt = waiting.popleft()
            self._deliver(link, message, future, receipt)

    def _deliver(
        self, link: Any, encoded: bytes, future: Future[Receipt], receipt: Receipt
    ) -> None:
        # ``proton.Message.send`` on a message encoded before (in ``drain``: one that does
        # not encode fails alone, with no delivery opened on the link)
        delivery = link.delivery(link.delivery_tag())
        link.stream(encoded)
        link.advance()
        if link.snd_settle_mode == proton.Link.SND_SETTLED:
            delivery.settle()
            future.set_result(receipt)  # pre-settled: no disposition will come
            self._settled(1)
        else:
            delivery.future = future
            delivery.receipt = receipt
            self.in_flight[link][future] = None

    def _take(self, event: Any) -> Future[Receipt] | None:
        delivery = event.delivery
        future: Future[Receipt] | None = getattr(delivery, "future", None)
        if future is not None:
            delivery.future = None
            in_flight = self.in_flight.get(event.link)
            if in_flight is not None:
                in_flight.pop(future, None)
        return future

    def on_accepted(self, event: Any) -> None:
        future = self._take(event)
        if future is not None:
            future.set_result(event.delivery.receipt)
            self._settled(1)

    def on_rejected(self, event: Any) -> None:
        self._refused(event, "rejected")

    def on_released(self, event: Any) -> None:
        self._refused(event, "released")

    def _refused(self, event: Any, what: str) -> None:
        future = self._take(event)
        if future is not None:
            why = condition(event.delivery.remote)
            self._fail(
                future,
                AmqpDeliveryError(f"{what} by the broker{': ' + why if why else ''}"),
            )

    def _fail(self, future: Future[Receipt], error: BaseException) -> None:
        if not future.done():
            future.set_exception(error)
            self.failures.append(error)
        self._settled(1)

    def _settled(self, count: int) -> None:
        self.settled += count
        if not self.room.is_set() and self.sent - self.settled <= self.low_water:
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
