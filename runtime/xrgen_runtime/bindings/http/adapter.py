"""HTTP adapter: httpx senders and an ASGI receiver of ``HttpMessage``.

``HttpSender`` / ``AsyncHttpSender`` turn an ``HttpMessage`` request into an HTTP request
(method, target relative to ``base_url``, headers in order, body) and return the response as
an ``HttpMessage`` with ``status`` set. ``AsgiReceiver`` is an ASGI 3 application (no framework
needed: mount it in any ASGI server or framework) that turns each request into an
``HttpMessage`` and calls ``on_message`` with it (sync or async, typically a dispatcher's
``dispatch``). The response is the ``HttpMessage`` that ``on_message`` returns, or the status
code it returns, or ``202 Accepted``; ``500`` if it raised; ``413`` for bodies over
``max_body`` bytes; ``405``/``404``/``401`` outside the method, path and authorization it
is restricted to. Header values are decoded as Latin-1 (byte-preserving).
``HttpPullReceiver`` requests messages from an HTTP endpoint (``run`` like the other
receivers; HTTP pull has no acknowledgement).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, cast
from urllib.parse import parse_qsl, quote

import httpx  # type: ignore[import-untyped,import-not-found,unused-ignore]

from ..._event import Event
from ..._retry import Retry
from ...adapters._connection import CONNECT_TIMEOUT, Backoff, NotConnected
from ...adapters._encoding import Encoder, encoder_or_refusal
from ...adapters._handling import Handling, Stop
from ...adapters._loop import PollingReceiver
from ...adapters._sender import AsyncSender, Sender
from .spec import HttpMessage

__all__ = [
    "AsgiReceiver",
    "AsyncHttpSender",
    "HttpPullReceiver",
    "HttpSender",
    "NotConnected",
    "from_response",
]

_log = logging.getLogger("xrgen_runtime.adapters")
#: what a URI path holds unencoded (RFC 3986 pchar and ``/``) and ``%`` of its triplets
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"

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


def _timeout(timeout: float, connect_timeout: float) -> Any:
    return httpx.Timeout(timeout, connect=min(timeout, connect_timeout))


def _not_sent(client: Any, exc: Exception) -> NotConnected:
    """A transport failure of a request as ``NotConnected``: refused or unanswered
    connections were not sent; a connection lost during the exchange leaves it unknown
    whether the server got the request."""
    url = client.base_url
    where = f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return NotConnected(
            f"HTTP server {where}: {type(exc).__name__}: {exc}; not sent"
        )
    return NotConnected(
        f"HTTP server {where}: {type(exc).__name__}: {exc}; the request may or may not "
        "have reached it: send it again"
    )


class HttpSender(Sender):
    """Send ``HttpMessage`` requests with a (pooled) ``httpx.Client``.

    Each request connects within ``connect_timeout`` and completes within ``timeout``; a
    request that cannot be sent (server down, connection lost) raises ``NotConnected`` at
    once, and the next ``send`` connects again. ``options`` are more ``httpx.Client``
    arguments (``headers`` and ``params`` of every request, ``auth``, ``cert``, ``verify``,
    ...). ``encoder`` turns what ``send`` gets other than an ``HttpMessage`` (a typed event)
    into one (an endpoint's sender sets it).
    """

    __slots__ = ("_client", "_encode")

    def __init__(
        self,
        base_url: str = "",
        *,
        timeout: float = 10.0,
        connect_timeout: float = CONNECT_TIMEOUT,
        encoder: Encoder | None = None,
        **options: Any,
    ) -> None:
        self._client: Any = httpx.Client(
            base_url=base_url, timeout=_timeout(timeout, connect_timeout), **options
        )
        self._encode = encoder_or_refusal(encoder, HttpMessage, "HttpSender")

    def send(self, msg: HttpMessage | Event[Any]) -> HttpMessage:
        """Send the request ``msg`` (an event is encoded first); returns the response (any
        status, no exception); ``NotConnected`` when it could not be sent."""
        if msg.__class__ is not HttpMessage:
            msg = self._encode(msg)
        msg = cast(HttpMessage, msg)
        try:
            response = self._client.request(
                msg.method, msg.path, headers=list(msg.headers), content=msg.body
            )
        except httpx.TransportError as exc:
            raise _not_sent(self._client, exc) from exc
        return from_response(response, msg.method, msg.path)

    def _release(self) -> None:
        """Close the connection pool."""
        self._client.close()


class AsyncHttpSender(AsyncSender):
    """Send ``HttpMessage`` requests with an ``httpx.AsyncClient`` (see ``HttpSender``)."""

    __slots__ = ("_client", "_encode")

    def __init__(
        self,
        base_url: str = "",
        *,
        timeout: float = 10.0,
        connect_timeout: float = CONNECT_TIMEOUT,
        encoder: Encoder | None = None,
        **options: Any,
    ) -> None:
        self._client: Any = httpx.AsyncClient(
            base_url=base_url, timeout=_timeout(timeout, connect_timeout), **options
        )
        self._encode = encoder_or_refusal(encoder, HttpMessage, "AsyncHttpSender")

    async def send(self, msg: HttpMessage | Event[Any]) -> HttpMessage:
        """Send the request ``msg`` (an event is encoded first); returns the response (any
        status, no exception); ``NotConnected`` when it could not be sent."""
        if msg.__class__ is not HttpMessage:
            msg = self._encode(msg)
        msg = cast(HttpMessage, msg)
        try:
            response = await self._client.request(
                msg.method, msg.path, headers=list(msg.headers), content=msg.body
            )
        except httpx.TransportError as exc:
            raise _not_sent(self._client, exc) from exc
        return from_response(response, msg.method, msg.path)

    async def close(self) -> None:
        """Close the connection pool."""
        await self._client.aclose()


class AsgiReceiver:
    """An ASGI 3 application handing every HTTP request to ``on_message``.

    ``method`` and ``path`` restrict it to one operation: another method is answered 405,
    a path outside ``path`` (itself or below it) 404. Paths compare as sent (percent-encoded:
    ``/hooks/a%2Fb`` is not ``/hooks/a/b``); characters a path cannot hold in ``path`` are
    percent-encoded first. ``required_headers`` and
    ``required_query`` are ``(name, value)`` pairs every request must carry (header names
    compare case-insensitively, values in constant time), else 401: an endpoint's receiver
    checks its authorization so.

    ``on_message`` (a dispatcher, its ``dispatch_async``, or a callable) runs as a receiver's
    ``run`` calls it (``_handling``): awaited; a ``HandlerError`` retried per ``retry``, then
    dead-lettered. The answer is 202 (``accepted_status``, or the ``HttpMessage`` or status
    ``on_message`` returned), 503 when the message was not handled (its dead letter was not
    delivered: the sender sends it again), 500 when ``on_message`` raised.
    """

    __slots__ = (
        "_on_message",
        "_max_body",
        "_accepted",
        "_method",
        "_path",
        "_headers",
        "_query",
        "_handling",
    )

    def __init__(
        self,
        on_message: Callable[[HttpMessage], object] | Any,
        *,
        max_body: int = 16 * 1024 * 1024,
        accepted_status: int = 202,
        method: str | None = None,
        path: str | None = None,
        required_headers: Iterable[tuple[str, str]] = (),
        required_query: Iterable[tuple[str, str]] = (),
        retry: Retry | None = None,
    ) -> None:
        self._on_message = on_message
        self._handling = Handling(on_message, retry, Stop())
        self._max_body = max_body
        self._accepted = accepted_status
        self._method = method.upper() if method else None
        self._path = quote(path.rstrip("/"), safe=_PATH_SAFE) if path else None
        self._headers = tuple((k.lower(), v) for k, v in required_headers)
        self._query = tuple(required_query)

    def _refusal(self, scope: Scope) -> int | None:
        """The status refusing a request outside the operation, or ``None``."""
        if self._method is not None and scope["method"].upper() != self._method:
            return 405
        if self._path:
            raw = scope.get("raw_path")
            path = (
                raw.decode("latin-1").split("?", 1)[0]
                if raw
                else quote(scope["path"], safe=_PATH_SAFE)
            )
            if path != self._path and not path.startswith(self._path + "/"):
                return 404
        if self._headers:
            got: dict[str, list[str]] = {}
            for k, v in scope["headers"]:
                got.setdefault(k.decode("latin-1").lower(), []).append(
                    v.decode("latin-1")
                )
            for name, value in self._headers:
                if not any(_same(v, value) for v in got.get(name, ())):
                    return 401
        if self._query:
            pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
            for name, value in self._query:
                if not any(k == name and _same(v, value) for k, v in pairs):
                    return 401
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await _lifespan(receive, send)
            return
        if kind != "http":
            return
        refused = self._refusal(scope)
        if refused is not None:
            await _respond(send, refused, (), b"")
            return
        body = await self._body(receive)
        if body is None:
            await _respond(send, 413, (), b"request body too large")
            return
        try:
            ok, result = await self._handling.respond_async(_request(scope, body))
        except Exception:  # handler failure: answer 500, keep serving
            await _respond(send, 500, (), b"handler failed")
            return
        if not ok:  # retries used up without a dead letter, or its callback raised
            await _respond(send, 503, (), b"not handled: send it again")
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


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(
        a.encode("latin-1", "replace"), b.encode("latin-1", "replace")
    )


class HttpPullReceiver(PollingReceiver[Any, HttpMessage]):
    """Pull messages from an HTTP endpoint: each poll requests ``base_url`` with ``method``.

    A 200 response is one message (its headers and body, as an ``HttpMessage`` with the
    status); 204 and 404 mean none yet, and the receiver waits out the poll interval before it
    asks again. HTTP pull has no acknowledgement. A failed request (connection error, 5xx) is
    passed to ``on_error`` (default: one warning per outage) and retried after a delay that
    doubles up to 5 seconds while the failures last. Each request connects within
    ``connect_timeout``. ``options`` are more ``httpx.Client`` arguments.
    """

    __slots__ = ("_client", "_method", "_on_error", "_backoff", "_failing")

    def __init__(
        self,
        base_url: str,
        *,
        method: str = "GET",
        timeout: float = 10.0,
        connect_timeout: float = CONNECT_TIMEOUT,
        on_error: Callable[[Exception], None] | None = None,
        **options: Any,
    ) -> None:
        self._client: Any = httpx.Client(
            base_url=base_url, timeout=_timeout(timeout, connect_timeout), **options
        )
        self._method = method.upper()
        self._on_error = on_error
        self._backoff = Backoff()
        self._failing = False

    def _poll(self, timeout: float) -> Any:
        start = time.monotonic()
        try:
            response = self._client.request(self._method, "")
            if response.status_code >= 500:
                raise httpx.HTTPStatusError(
                    f"status {response.status_code}",
                    request=response.request,
                    response=response,
                )
        except httpx.HTTPError as exc:
            if self._on_error is not None:
                self._on_error(exc)
            elif not self._failing:
                _log.warning("HTTP pull from %s failed: %s", self._client.base_url, exc)
            self._failing = True
            time.sleep(self._backoff.next())
            return None
        if self._failing:
            self._failing = False
            self._backoff.reset()
            _log.info("HTTP pull from %s answers again", self._client.base_url)
        if response.status_code == 200:
            return response
        time.sleep(max(0.0, timeout - (time.monotonic() - start)))
        return None

    def _convert(self, raw: Any) -> HttpMessage:
        return from_response(
            raw, self._method, raw.request.url.raw_path.decode("latin-1")
        )

    def _ack(self, raw: Any) -> None:
        """HTTP pull has no acknowledgement."""

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()


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
