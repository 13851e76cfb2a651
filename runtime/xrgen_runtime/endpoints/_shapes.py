"""The blocking and the asyncio shape of an endpoint's clients (``Endpoint.sender``,
``async_sender``, ``receiver``, ``async_receiver``): the binding's endpoint support builds the
client (``_support``), ``adapters._bridge`` gives it the shape asked for.

An asyncio binding (NATS) builds a ``Connecting``; asked for its blocking shape inside a
running event loop, the ``Connecting`` itself is returned with a ``DeprecationWarning`` (the
code ``await ep.sender()`` keeps working; ``ep.async_sender()`` is the asyncio shape).
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..adapters._bridge import asynchronous, blocking
from ..adapters._connecting import Connecting
from ._resolve import resolve

if TYPE_CHECKING:
    from ._model import Endpoint
    from ._resolve import Settings

__all__ = ["async_receiver", "async_sender", "blocking_receiver", "blocking_sender"]


def _sender_settings(endpoint: Endpoint[Any], arguments: Mapping[str, Any]) -> Settings:
    role = endpoint.role(None, ("producer",), "sender()")
    return resolve(endpoint, role, arguments)


def _receiver_settings(
    endpoint: Endpoint[Any], arguments: Mapping[str, Any]
) -> Settings:
    return resolve(endpoint, endpoint.receiver_role(), arguments)


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _blocking(built: Any, kind: str, name: str) -> Any:
    if isinstance(built, Connecting) and _in_event_loop():
        warnings.warn(
            f"ep.{kind}() in asyncio code (awaited, or with async with) is deprecated: "
            f"use ep.async_{kind}() (ep.{kind}() is the blocking {name} on every binding)",
            DeprecationWarning,
            stacklevel=4,
        )
        return built

    return blocking(built, kind)


def blocking_sender(endpoint: Endpoint[Any], arguments: Mapping[str, Any]) -> Any:
    settings = _sender_settings(endpoint, arguments)
    return _blocking(settings.support.sender(settings), "sender", "sender")


def blocking_receiver(endpoint: Endpoint[Any], arguments: Mapping[str, Any]) -> Any:
    settings = _receiver_settings(endpoint, arguments)
    return _blocking(settings.support.receiver(settings), "receiver", "receiver")


def async_sender(endpoint: Endpoint[Any], arguments: Mapping[str, Any]) -> Any:
    arguments = dict(arguments)
    settings = _sender_settings(endpoint, arguments)
    if "asynchronous" in settings.support.CLIENT_ARGS:  # HTTP: the asyncio client
        settings = _sender_settings(endpoint, {**arguments, "asynchronous": True})
    return asynchronous(lambda: settings.support.sender(settings), "sender")


def async_receiver(endpoint: Endpoint[Any], arguments: Mapping[str, Any]) -> Any:
    settings = _receiver_settings(endpoint, arguments)
    return asynchronous(lambda: settings.support.receiver(settings), "receiver")
