"""Network helpers shared by the tests that start servers (brokers, Spark standalone)."""

from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])
