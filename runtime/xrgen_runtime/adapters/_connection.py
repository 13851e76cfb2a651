"""What the adapters share about connections: the error of a server that cannot be reached
within the connect timeout, the error of a send while the connection is down, and the delays
between reconnect attempts."""

from __future__ import annotations

import random

from ._sender import SendError

__all__ = ["CONNECT_TIMEOUT", "Backoff", "ConnectFailed", "NotConnected"]

#: seconds a client waits for a server to accept its connection unless told otherwise
CONNECT_TIMEOUT = 10.0


class ConnectFailed(ConnectionError):
    """No connection to ``host:port`` within the connect timeout: refused (by the network or
    by the server: a login refused), not resolvable, or no answer. ``reason`` is what the
    client library reported."""

    def __init__(self, client: str, host: str, port: int | str, reason: str) -> None:
        where = f"{host}:{port}" if port != "" else host
        super().__init__(f"{client}: cannot connect to {where}: {reason}")
        self.host = host
        self.port = port
        self.reason = reason


class NotConnected(SendError, ConnectionError):
    """The connection to the server is down, so the message was not sent (or, for a message
    in flight when it went down, its fate is unknown: send it again). The client reconnects
    in the background with backoff; sends succeed again once it is back. A ``SendError``, as
    every failure of ``send`` is."""


class Backoff:
    """Delays between reconnect attempts: ``first`` seconds, doubling up to ``longest``, each
    with up to 20 % random jitter (so clients restarted together do not reconnect in step);
    ``reset`` after a successful connection."""

    __slots__ = ("first", "longest", "_next")

    def __init__(self, first: float = 0.1, longest: float = 5.0) -> None:
        self.first = first
        self.longest = longest
        self._next = first

    def next(self) -> float:
        """The delay before the next attempt (and double the one after it)."""
        delay = self._next
        self._next = min(self.longest, delay * 2)
        return delay * (1.0 + 0.2 * random.random())

    def reset(self) -> None:
        self._next = self.first
