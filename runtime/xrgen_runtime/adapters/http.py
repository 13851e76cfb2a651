"""HTTP adapter: httpx senders and an ASGI receiver of ``HttpMessage``.

``HttpSender`` / ``AsyncHttpSender`` turn an ``HttpMessage`` request into an HTTP request
(method, target relative to ``base_url``, headers in order, body) and return the response as
an ``HttpMessage`` with ``status`` set. ``AsgiReceiver`` is an ASGI 3 application (no framework
needed: mount it in any ASGI server or framework) that turns each request into an
``HttpMessage`` and calls ``on_message`` with it (sync or async, typically a dispatcher's
``dispatch``). The response is the ``HttpMessage`` that ``on_message`` returns, or the status
code it returns, or ``202 Accepted``; ``500`` if it raised; ``413`` for bodies over
``max_body`` bytes. Header values are decoded as Latin-1 (byte-preserving).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..bindings import HttpMessage
from ._sender import AsyncSender, Sender

__all__ = ["AsgiReceiver", "AsyncHttpSender", "HttpSender", "from_response"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def from_response(response: Any, method: str, path: str) -> HttpMessage:
    """The ``HttpMessage`` of an httpx ``Response`` to ``method path``."""
    return HttpMessage(
        method=method,
        path=path,
        headers=tuple(response.headers.multi_items()),
        body=response.content,
        status=response.status_code,
    )


class HttpSender(Sender):
    """Send ``HttpMessage`` requests with a (pooled) ``httpx.Client``."""

    __slots__ = ("_client",)

    def __init__(
        self, base_url: str = "", *, timeout: float = 10.0, **options: Any
    ) -> None:
        self._client: Any = httpx.Client(base_url=base_url, timeout=timeout, **options)

    def send(self, msg: HttpMessage) -> HttpMessage:
        """Send the request ``msg``; returns the response (any status, no exception)."""
        response = self._client.request(
            msg.method, msg.path, headers=list(msg.headers), content=msg.body
        )
        return from_response(response, msg.method, msg.path)

    def _release(self) -> None:
        """Close the connection pool."""
        self._client.close()


class AsyncHttpSender(AsyncSender):
    """Send ``HttpMessage`` requests with an ``httpx.AsyncClient``."""

    __slots__ = ("_client",)

    def __init__(
        self, base_url: str = "", *, timeout: float = 10.0, **options: Any
    ) -> None:
        self._client: Any = httpx.AsyncClient(
            base_url=base_url, timeout=timeout, **options
        )

    async def send(self, msg: HttpMessage) -> HttpMessage:
        """Send the request ``msg``; returns the response (any status, no exception)."""
        response = await self._client.request(
            msg.method, msg.path, headers=list(msg.headers), content=msg.body
        )
        return from_response(response, msg.method, msg.path)

    async def close(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()


class AsgiReceiver:
    """An ASGI 3 application handing every HTTP request to ``on_message``."""

    __slots__ = ("_on_message", "_max_body", "_accepted")

    def __init__(
        self,
        on_message: Callable[[HttpMessage], object],
        *,
        max_body: int = 16 * 1024 * 1024,
        accepted_status: int = 202,
    ) -> None:
        self._on_message = on_message
        self._max_body = max_body
        self._accepted = accepted_status

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await _lifespan(receive, send)
            return
        if kind != "http":
            return
        body = await self._body(receive)
        if body is None:
            await _respond(send, 413, (), b"request body too large")
            return
        try:
            result = self._on_message(_request(scope, body))
            if inspect.isawaitable(result):
                result = await result
        except Exception:  # handler failure: answer 500, keep serving
            await _respond(send, 500, (), b"handler failed")
            return
        await self._answer(send, result)

    async def _body(self, receive: Receive) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await receive()
            if event["type"] == "http.disconnect":
                break
            chunk = event.get("body", b"")
            size += len(chunk)
            if size > self._max_body:
                return None
            chunks.append(chunk)
            if not event.get("more_body", False):
                break
        return b"".join(chunks)

    async def _answer(self, send: Send, result: object) -> None:
        if isinstance(result, HttpMessage):
            status = result.status if result.status is not None else 200
            await _respond(send, status, result.headers, result.body)
        elif isinstance(result, int) and not isinstance(result, bool):
            await _respond(send, result, (), b"")
        else:
            await _respond(send, self._accepted, (), b"")


def _request(scope: Scope, body: bytes) -> HttpMessage:
    raw_path = scope.get("raw_path")
    path = raw_path.decode("latin-1") if raw_path else scope["path"]
    query = scope.get("query_string", b"")
    if query:
        path = path + "?" + query.decode("latin-1")
    return HttpMessage(
        method=scope["method"],
        path=path,
        headers=tuple(
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
        ),
        body=body,
    )


async def _respond(
    send: Send, status: int, headers: tuple[tuple[str, str], ...], body: bytes
) -> None:
    raw = [
        (k.encode("latin-1"), v.encode("latin-1"))
        for k, v in headers
        if k.lower() != "content-length"
    ]
    raw.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
