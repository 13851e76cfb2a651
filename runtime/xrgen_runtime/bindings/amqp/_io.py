"""The connection of an AMQP 1.0 client: one proton ``Container`` per client, which connects,
reconnects with backoff and does what the caller hands over.

``Io`` holds what both sides (``_links``) share: the first connection (bounded by the
connect timeout, ``ConnectFailed`` when the server cannot be reached or refuses), reconnecting
after a lost connection (the URIs in turn, ``Backoff`` between attempts, a connect attempt that
gets no answer dropped after the timeout), and running the container: in a thread of its own,
with work handed over by a queue and one wake-up per batch (``threaded``), or driven by the
caller's thread (``pump``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from proton import Handler
from proton.handlers import MessagingHandler  # type: ignore[import-untyped,import-not-found,unused-ignore]
from proton.reactor import ApplicationEvent, Container, EventInjector  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ...adapters._connection import Backoff, ConnectFailed
from ...adapters._sender import SendError

__all__ = ["AmqpDeliveryError", "Io", "condition"]

_log = logging.getLogger("xrgen_runtime.adapters")
_WORK = "xrgen_work"


class AmqpDeliveryError(SendError):
    """The broker did not accept a message (rejected, released or modified)."""


def condition(endpoint: Any) -> str:
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
        self.last_error = condition(event.transport) or "transport error"

    def on_connection_error(self, event: Any) -> None:
        self._failed(event.connection, condition(event.connection))

    def on_session_error(self, event: Any) -> None:
        self._failed(event.connection, condition(event.session))

    def on_link_error(self, event: Any) -> None:
        why = condition(event.link)
        _log.warning("AMQP link closed by %s: %s", self.where(), why)
        self._failed(event.connection, why)

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
        self.last_error = self.last_error or condition(event.transport)
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
