"""The asyncio shape of an endpoint's clients, the same on every binding:
``ep.async_sender()`` (``await send`` returns the ``Receipt``) and ``ep.async_receiver()``
(``await run`` serves in the running event loop), with an async typed handler.

    SHOP_PATH=out BINDING=nats HOST=127.0.0.1 PORT=4222 python examples/endpoints/async_service.py

``BINDING`` is ``kafka``, ``mqtt``, ``amqp``, ``nats`` or ``http``; ``SHOP_PATH`` the folder of
the package generated from ``examples/endpoints/catalog.json`` (``--package shop``). Prints a
``sent`` line per receipt and a ``handled`` line per message; exits 1 if not all arrived.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from typing import Any

sys.path.insert(0, os.environ.get("SHOP_PATH", "out"))

import shop  # noqa: E402

BINDING = os.environ.get("BINDING", "nats")
WHERE = {
    "host": os.environ.get("HOST", "127.0.0.1"),
    "port": os.environ.get("PORT", "4222"),
}


async def main() -> int:
    where = {**WHERE, "run": uuid.uuid4().hex[:8]}
    out = shop.ENDPOINTS[f"shop.{BINDING}.out"]
    orders = [
        shop.MESSAGES["shop.OrderPlaced"].create(
            {"order": f"o-{i}", "total": 9.5}, shop="s1"
        )
        for i in range(3)
    ]
    if BINDING == "http":
        return await http(out, where, orders)
    into = shop.ENDPOINTS[f"shop.{BINDING}.in"]
    handled: list[str] = []
    dispatcher = into.dispatcher()

    @dispatcher.on_order_placed
    async def on_order(
        event: shop.Event[shop.models.Order], params: dict[str, str]
    ) -> None:
        await asyncio.sleep(0.01)  # awaited before the message is acknowledged
        print(f"handled {event.data.order} from shop {params['shop']}")
        handled.append(event.data.order)

    async with into.async_receiver(**where) as receiver:  # connected and subscribed
        async with out.async_sender(**where) as sender:
            for order in orders:
                receipt = await sender.send(order)  # confirmed by the server
                print(f"sent to {receipt.destination}")
        await receiver.run(
            dispatcher, max_messages=len(orders), idle_timeout=30, concurrency=3
        )
    return 0 if len(handled) == len(orders) else 1


async def http(
    out: Any,
    where: dict[str, str],
    orders: list[Any],
) -> int:
    """HTTP: the producer endpoint's sender posts to the ASGI application that serves the
    same endpoint (uvicorn in this event loop)."""
    import uvicorn

    handled: list[str] = []
    dispatcher = out.dispatcher()

    @dispatcher.on_order_placed
    async def on_order(
        event: shop.Event[shop.models.Order], params: dict[str, str]
    ) -> None:
        handled.append(event.data.order)

    app = out.receiver(**where, on_message=dispatcher)
    server = uvicorn.Server(
        uvicorn.Config(
            app, host=where["host"], port=int(where["port"]), log_level="warning"
        )
    )
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
    try:
        async with out.async_sender(**where) as sender:
            for order in orders:
                receipt = await sender.send(order)
                print(f"sent to {receipt.destination}: HTTP {receipt.status}")
    finally:
        server.should_exit = True
        await serving
    for order in handled:
        print(f"handled {order}")
    return 0 if len(handled) == len(orders) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
