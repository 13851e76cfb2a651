"""The ``Receipt`` shape of the HTTP senders, as an endpoint's ``sender()`` returns them.

``HttpSender.send`` returns the response itself (HTTP is request/response). An endpoint's
sender answers like every other binding's: ``send`` returns a ``Future[Receipt]`` (resolved
when ``send`` returns: the response is the confirmation; its ``HttpReceipt`` reads ``status``,
``headers`` and ``body`` of the response), the asyncio one the ``HttpReceipt``. A response
with a status of 400 or more is a refusal: ``HttpSendError`` (``.response``).
"""

from __future__ import annotations

import warnings
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Self

from ...adapters._sender import Receipt, SendError
from .spec import HttpMessage

__all__ = [
    "AsyncHttpEndpointSender",
    "HttpEndpointSender",
    "HttpReceipt",
    "HttpSendError",
]


class HttpSendError(SendError):
    """The server answered with a status of 400 or more (``response``)."""

    def __init__(self, response: HttpMessage) -> None:
        super().__init__(f"{response.path or '/'}: HTTP status {response.status}")
        self.response = response


@dataclass(frozen=True, slots=True)
class HttpReceipt(Receipt):
    """An HTTP ``Receipt``: ``native`` is the response (``HttpMessage``)."""

    @property
    def status(self) -> int | None:
        return self.native.status  # type: ignore[no-any-return]

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        return self.native.headers  # type: ignore[no-any-return]

    @property
    def body(self) -> bytes | None:
        return self.native.body  # type: ignore[no-any-return]


def _receipt(response: HttpMessage) -> HttpReceipt:
    if response.status is not None and response.status >= 400:
        raise HttpSendError(response)
    return HttpReceipt(response.path, native=response)


class _Sent(Future[Receipt]):
    """The resolved future of a sync HTTP send; reading ``status``, ``headers`` or ``body``
    on it reads the response (deprecated: ``send(...).result().status``)."""

    def __init__(self, response: HttpMessage) -> None:
        super().__init__()
        self._response = response
        try:
            self.set_result(_receipt(response))
        except HttpSendError as exc:
            self.set_exception(exc)

    def __getattr__(self, name: str) -> Any:
        if name in ("status", "headers", "body"):
            warnings.warn(
                f"send(...).{name} is deprecated: send returns a Future[Receipt]; "
                f"read send(...).result().{name} (HttpSendError.response on a refusal)",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(self._response, name)
        raise AttributeError(name)


class HttpEndpointSender:
    """An ``HttpSender`` whose ``send`` returns a ``Future[Receipt]`` (see the module doc)."""

    __slots__ = ("_sender",)

    def __init__(self, sender: Any) -> None:
        self._sender = sender

    def send(self, msg: Any) -> Future[Receipt]:
        return _Sent(self._sender.send(msg))

    def flush(self, timeout: float = 30.0) -> None:
        self._sender.flush(timeout)

    def close(self, timeout: float = 30.0) -> None:
        self._sender.close(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncHttpEndpointSender:
    """An ``AsyncHttpSender`` whose ``send`` returns the ``HttpReceipt``."""

    __slots__ = ("_sender",)

    def __init__(self, sender: Any) -> None:
        self._sender = sender

    async def send(self, msg: Any) -> HttpReceipt:
        return _receipt(await self._sender.send(msg))

    async def flush(self, timeout: float = 30.0) -> None:
        await self._sender.flush(timeout)

    async def close(self) -> None:
        await self._sender.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
