"""HTTP: a typed ``com.acme.ReadingBatch`` posted with ``HttpSender`` to an ``AsgiReceiver``
served by uvicorn, and handed to its typed handler.

    python examples/bindings/http.py

producer -> ``http.encode`` -> ``HttpSender`` -> uvicorn (a thread, free 127.0.0.1 port) ->
``AsgiReceiver`` -> ``Dispatcher.dispatch`` -> the typed ``on_reading_batch`` handler. The
request is the catalog's ``POST /plants/{plant}/batches``; the receiver answers 202 once the
handler returned. Exits 1 if nothing was handled.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

# this file is named like the stdlib's http package: keep its own folder off the import path
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, os.environ.get("ACME_PATH", str(HERE.parent.parent / "out")))

import acme  # noqa: E402
import uvicorn  # noqa: E402
from acme.adapters.http import AsgiReceiver, HttpSender  # noqa: E402
from acme.bindings import http  # noqa: E402

TIMEOUT = 30.0  # seconds; every wait below is bounded by it


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(app: AsgiReceiver, port: int) -> tuple[uvicorn.Server, threading.Thread]:
    """Start uvicorn in a daemon thread and wait (bounded) until it accepts requests."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.05)
    return server, thread


def main() -> int:
    producer = acme.producer.ComAcmeBaseProducer(plant="p1")
    now = datetime.now(timezone.utc)
    samples = [{"value": 1.5, "at": now}, {"value": 1.75, "at": now}]
    event = producer.reading_batch({"samples": samples}, sensor="s1")
    # POST /plants/p1/batches; binary mode: the attributes travel as ce-* headers
    wire = http.encode(event, mode="binary")

    received: list[acme.Event[acme.models.ReadingBatch]] = []
    dispatcher = acme.consumer.Dispatcher(
        dead_letter=lambda msg, reason, detail: print(f"dead letter: {reason}: {detail}")
    )

    @dispatcher.on_reading_batch
    def on_batch(
        ev: acme.Event[acme.models.ReadingBatch], params: acme.consumer.ReadingBatchParams
    ) -> None:
        attrs = ev.attributes
        print(f"handled {attrs['type']} id={attrs['id']} params={params} data={ev.data!r}")
        received.append(ev)

    port = free_port()
    server, thread = serve(AsgiReceiver(dispatcher.dispatch), port)
    try:
        with HttpSender(f"http://127.0.0.1:{port}", timeout=TIMEOUT) as sender:
            response = sender.send(wire)
        print(f"sent {event.attributes['id']} as {wire.method} {wire.path}: HTTP {response.status}")
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)
    if not received or response.status != 202:
        print("the receiver handled nothing", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
