"""The consuming service of the fault tests, run as its own process:
``python fault_service.py '<json settings>'``.

It serves one consumer endpoint of a generated package with the endpoint's receiver and a
dispatcher that gives handler errors back (``redeliver=True``), until SIGTERM. The handler
appends the ``order_id`` of each message it handled to ``log`` with one ``write`` (so a
kill -9 loses no line the handler finished) and raises on the first attempt of each id in
``fail`` (writing the id to ``raised`` first). ``ready`` is printed once the receiver is connected. HTTP endpoints are served by
uvicorn on ``port``.

Settings: ``path`` and ``package`` (the generated package), ``endpoint``, ``arguments`` (the
receiver's keyword arguments), ``log``, ``dead`` (dead letters, one line each), ``fail``,
``raised``,
``asynchronous`` (NATS), ``port`` (HTTP).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import signal
import sys
from typing import Any


def main() -> None:
    if os.environ.get("XRGEN_FAULT_DEBUG"):
        import logging

        logging.basicConfig(
            level=logging.DEBUG, format="%(asctime)s %(name)s %(message)s"
        )
        logging.getLogger("proton").setLevel(logging.INFO)
    settings = json.loads(sys.argv[1])
    sys.path.insert(0, settings["path"])
    package = importlib.import_module(settings["package"])
    endpoint = package.ENDPOINTS[settings["endpoint"]]
    log = os.open(settings["log"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    dead = os.open(settings["dead"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    raised = os.open(settings["raised"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    fail = set(settings.get("fail", ()))
    tried: set[str] = set()

    def handle(event: Any, params: dict[str, str]) -> None:
        order_id = event.data.order_id
        if order_id in fail and order_id not in tried:
            tried.add(order_id)
            os.write(raised, (order_id + "\n").encode())
            raise RuntimeError(f"the first attempt of {order_id} fails")
        os.write(log, (order_id + "\n").encode())

    def dead_letter(wire: Any, reason: str, detail: str) -> None:
        os.write(dead, f"{reason}: {detail}\n".replace("\n", " ").encode() + b"\n")

    dispatcher = endpoint.dispatcher(dead_letter=dead_letter, redeliver=True)
    for message_id in endpoint.message_ids:
        dispatcher.on(message_id)(handle)
    arguments = settings["arguments"]
    if "port" in settings:
        import uvicorn

        app = endpoint.receiver(**arguments, on_message=dispatcher.dispatch_async)
        config = uvicorn.Config(
            app, host="127.0.0.1", port=settings["port"], log_level="warning"
        )
        server = uvicorn.Server(config)
        # uvicorn shuts down gracefully on SIGTERM, then raises it again for the handler it
        # found: a SIGTERM that ends the process with exit 0
        signal.signal(signal.SIGTERM, lambda *args: None)
        print("ready", flush=True)  # the test waits for the port
        server.run()
    elif settings.get("asynchronous"):

        async def serve() -> None:
            async with endpoint.async_receiver(**arguments) as receiver:
                print("ready", flush=True)
                await receiver.run(dispatcher.dispatch)

        asyncio.run(serve())
    else:
        with endpoint.receiver(**arguments) as receiver:
            print("ready", flush=True)
            receiver.run(dispatcher.dispatch)


if __name__ == "__main__":
    main()
