"""Liveness and readiness of a service: an optional HTTP port answering ``GET /healthz`` and
``GET /readyz``, and an optional ready file.

- ``/healthz``: 200 while the process serves and the serving loop has not failed, else 503;
- ``/readyz``: 200 while the receiver is connected and taking messages, else 503 (before it
  connected, and from the moment it stops taking messages: a SIGTERM drain is not ready);
- the ready file exists while ready (created when ready, removed when not).
"""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

__all__ = ["Health"]


class Health:
    """The probes of one service (see the module doc); ``port=None``: no HTTP server,
    ``port=0``: a free port (``port`` tells which once started)."""

    def __init__(
        self,
        port: int | None = None,
        host: str = "127.0.0.1",
        ready_file: str | Path | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.ready_file = Path(ready_file) if ready_file is not None else None
        self.alive = True
        self.is_ready = False
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start answering (when a port is set)."""
        if self.port is None or self._server is not None:
            return
        health = self

        class Probe(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                path = self.path.split("?", 1)[0]
                if path == "/healthz":
                    ok = health.alive
                elif path == "/readyz":
                    ok = health.alive and health.is_ready
                else:
                    self.send_error(404)
                    return
                body = b"ok\n" if ok else b"unavailable\n"
                self.send_response(200 if ok else 503)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # probes every few seconds: no log line each

        self._server = ThreadingHTTPServer((self.host, self.port), Probe)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="xrgen-health", daemon=True
        )
        self._thread.start()

    def ready(self) -> None:
        self.is_ready = True
        if self.ready_file is not None:
            self.ready_file.touch()

    def not_ready(self) -> None:
        self.is_ready = False
        if self.ready_file is not None:
            with contextlib.suppress(FileNotFoundError):
                self.ready_file.unlink()

    def failed(self) -> None:
        self.alive = False
        self.not_ready()

    def close(self) -> None:
        self.not_ready()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
