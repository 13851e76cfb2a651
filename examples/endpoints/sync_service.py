"""The blocking shape of an endpoint's clients, the same on every binding: ``ep.sender()``
(``send`` returns a ``Future[Receipt]``) and ``ep.receiver()`` (``run`` serves until it
returns), with a typed handler.

    SHOP_PATH=out BINDING=kafka HOST=127.0.0.1 PORT=9092 python examples/endpoints/sync_service.py

``BINDING`` is ``kafka``, ``mqtt``, ``amqp``, ``nats`` or ``http``; ``SHOP_PATH`` the folder of
the package generated from ``examples/endpoints/catalog.json`` (``--package shop``). Prints a
``sent`` line per receipt and a ``handled`` line per message; exits 1 if not all arrived.
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any

sys.path.insert(0, os.environ.get("SHOP_PATH", "out"))

import shop  # noqa: E402

BINDING = os.environ.get("BINDING", "kafka")
WHERE = {
    "host": os.environ.get("HOST", "127.0.0.1"),
    "port": os.environ.get("PORT", "9092"),
}


def main() -> int:
    where = {**WHERE, "run": uuid.uuid4().hex[:8]}
    out = shop.ENDPOINTS[f"shop.{BINDING}.out"]
    orders = [
        shop.MESSAGES["shop.OrderPlaced"].create(
            {"order": f"o-{i}", "total": 9.5}, shop="s1"
        )
        for i in range(3)
    ]
    if BINDING == "http":
        return http(out, where, orders)
    into = shop.ENDPOINTS[f"shop.{BINDING}.in"]
    handled: list[str] = []
    dispatcher = into.dispatcher()

    @dispatcher.on_order_placed
    def on_order(event: shop.Event[shop.models.Order], params: dict[str, str]) -> None:
        print(f"handled {event.data.order} from shop {params['shop']}")
        handled.append(event.data.order)

    with into.receiver(**where) as receiver:  # connected and subscribed
        with out.sender(**where) as sender:
            receipts = [sender.send(order) for order in orders]
            sender.flush()  # everything confirmed by the server
            for receipt in receipts:
                print(f"sent to {receipt.result().destination}")
        receiver.run(dispatcher, max_messages=len(orders), idle_timeout=30)
    return 0 if len(handled) == len(orders) else 1


def http(
    out: Any,
    where: dict[str, str],
    orders: list[Any],
) -> int:
    """HTTP: the producer endpoint's sender posts to the ASGI application that serves the
    same endpoint (uvicorn in a thread)."""
    import threading

    import uvicorn

    handled: list[str] = []
    dispatcher = out.dispatcher()
    dispatcher.on_order_placed(lambda event, params: handled.append(event.data.order))
    app = out.receiver(**where, on_message=dispatcher)
    server = uvicorn.Server(
        uvicorn.Config(
            app, host=where["host"], port=int(where["port"]), log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    try:
        with out.sender(**where) as sender:
            for order in orders:
                receipt = sender.send(order).result()
                print(f"sent to {receipt.destination}: HTTP {receipt.status}")
    finally:
        server.should_exit = True
        thread.join(10)
    for order in handled:
        print(f"handled {order}")
    return 0 if len(handled) == len(orders) else 1


if __name__ == "__main__":
    sys.exit(main())
