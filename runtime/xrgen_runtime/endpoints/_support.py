"""Finding the endpoint support of a protocol's binding.

Each binding that configures clients from endpoints has a module ``bindings/<x>/endpoint.py``,
beside its adapter, that knows how the endpoint options of its protocol become client
configuration and adapter arguments (``EndpointSupport``); the binding's declaration names it
(``BindingSpec.endpoint_module``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

from ..bindings import BINDINGS, by_protocol
from ._errors import EndpointError

if TYPE_CHECKING:
    from .._event import Event
    from ._credentials import Requirement
    from ._model import Authorization, Endpoint
    from ._resolve import Settings

__all__ = ["EndpointSupport", "support"]


class EndpointSupport(Protocol):
    """What a binding's endpoint support module provides."""

    #: rc4 option names the binding applies (also the names callers may override)
    OPTIONS: frozenset[str]
    #: options whose placeholders take their values as given (not percent-encoded): values
    #: that name no address and that the client library encodes itself (HTTP headers, query)
    VERBATIM: frozenset[str]
    #: further keyword arguments of ``sender``/``receiver``/``config`` (client settings)
    CLIENT_ARGS: frozenset[str]
    #: the roles ``receiver()`` serves, in preference order
    RECEIVER_ROLES: tuple[str, ...]
    #: the client library's name, for messages
    CLIENT: str

    def requirement(self, entry: Authorization) -> Requirement: ...

    def config(self, settings: Settings) -> dict[str, Any]: ...

    def encoder(self, settings: Settings) -> Callable[[Event[Any]], Any]:
        """The binding's encoder of events for the endpoint (before the message check)."""

    def sender(self, settings: Settings) -> Any: ...

    def receiver(self, settings: Settings) -> Any: ...


def family(protocol: str | None) -> str | None:
    """``"MQTT/5.0"`` -> ``"MQTT"``; ``"AMQP"`` and ``"AMQP/1.0"`` -> ``"AMQP"``."""
    if not protocol:
        return None
    return protocol.split("/", 1)[0].strip().upper()


def support(endpoint: Endpoint[Any]) -> EndpointSupport:
    """The endpoint support module of ``endpoint``'s protocol (from its binding's
    declaration)."""

    name = family(endpoint.protocol)
    if name is None:
        raise EndpointError(
            f"endpoint {endpoint.id!r} declares no protocol (an abstract endpoint): "
            "it configures no client"
        )
    spec = by_protocol(endpoint.protocol) or next(
        (b for b in BINDINGS.values() if b.family == name), None
    )
    if spec is None:
        raise EndpointError(
            f"endpoint {endpoint.id!r}: protocol {endpoint.protocol!r} has no runtime binding"
        )
    target = spec.endpoint_module
    try:
        module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name != target:
            raise
        raise EndpointError(
            f"endpoint {endpoint.id!r}: the {name} binding configures no client "
            "from endpoints (docs/endpoints.md)"
        ) from None
    return cast(EndpointSupport, module)
