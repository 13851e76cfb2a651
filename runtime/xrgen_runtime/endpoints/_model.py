"""``Endpoint``: one catalog endpoint (xRegistry 1.0-rc4) as an immutable object that
configures clients (its values, ``Authorization`` among them, live in ``_values``).

A generated ``NAME/endpoints.py`` builds one ``Endpoint`` per catalog endpoint. The object holds
the catalog's data only (URIs and options with their ``{placeholder}`` texts, authorization
metadata, never a credential); ``config``, ``sender`` and ``receiver`` resolve placeholders,
overrides and credentials per call (``_resolve``) and hand the result to the endpoint support
module of the protocol's binding (``_support``), which builds the client configuration and the
adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._errors import EndpointError
from ._values import Authorization, freeze, placeholders_of

if TYPE_CHECKING:
    from .._dispatch import DeadLetter

__all__ = ["ROLES", "Authorization", "Endpoint", "placeholders_of"]

D = TypeVar("D")

#: the ``usage`` values of the rc4 endpoint model
ROLES = ("producer", "consumer", "subscriber")


_FIELDS = (
    "id",
    "usage",
    "protocol",
    "channel",
    "envelope",
    "envelope_options",
    "uris",
    "options",
    "authorization",
    "deployed",
    "message_ids",
    "placeholders",
    "package",
    "dispatcher_class",
    "description",
)


class Endpoint(Generic[D]):
    """A catalog endpoint: where a broker or service is, which roles a client plays there,
    with which options and authorization; builds the clients for those roles.

    ``D`` is the endpoint's generated dispatcher class (accepting the endpoint's messages only).
    Immutable; equal and hashed by ``(package, id)``.
    """

    __slots__ = (*_FIELDS, "__weakref__")

    id: str
    usage: tuple[str, ...]
    protocol: str | None
    channel: str | None
    envelope: str | None
    envelope_options: Mapping[str, Any]
    uris: tuple[str, ...]
    options: Mapping[str, Any]
    authorization: tuple[Authorization, ...]
    deployed: bool
    message_ids: tuple[str, ...]
    placeholders: tuple[str, ...]
    package: str
    #: ``None`` for an endpoint that only sends: it has no dispatcher
    dispatcher_class: type[D] | None
    description: str | None

    def __init__(
        self,
        *,
        id: str,
        usage: tuple[str, ...],
        protocol: str | None,
        channel: str | None,
        envelope: str | None,
        envelope_options: Mapping[str, Any],
        uris: tuple[str, ...],
        options: Mapping[str, Any],
        authorization: tuple[Authorization, ...],
        deployed: bool,
        message_ids: tuple[str, ...],
        placeholders: tuple[str, ...],
        package: str,
        dispatcher_class: type[D] | None,
        description: str | None = None,
    ) -> None:
        unknown = [u for u in usage if u not in ROLES]
        if not usage or unknown:
            raise ValueError(
                f"endpoint {id!r}: usage must be a non-empty subset of {ROLES}, "
                f"not {usage!r}"
            )
        frozen_uris = tuple(uris)
        frozen_options = freeze(options)
        found = placeholders_of(frozen_options, placeholders_of(frozen_uris, set()))
        if tuple(sorted(found)) != tuple(placeholders):
            raise ValueError(
                f"endpoint {id!r}: placeholders {tuple(placeholders)!r} do not match "
                f"the URIs and options ({tuple(sorted(found))!r})"
            )
        values = {
            "id": id,
            "usage": tuple(usage),
            "protocol": protocol,
            "channel": channel,
            "envelope": envelope,
            "envelope_options": freeze(envelope_options),
            "uris": frozen_uris,
            "options": frozen_options,
            "authorization": tuple(authorization),
            "deployed": deployed,
            "message_ids": tuple(message_ids),
            "placeholders": tuple(placeholders),
            "package": package,
            "dispatcher_class": dispatcher_class,
            "description": description,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ immutability, identity

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Endpoint is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Endpoint is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Endpoint):
            return NotImplemented
        return (self.package, self.id) == (other.package, other.id)

    def __hash__(self) -> int:
        return hash((Endpoint, self.package, self.id))

    def __repr__(self) -> str:
        return (
            f"Endpoint({self.id!r}, protocol={self.protocol!r}, usage={self.usage!r}, "
            f"package={self.package!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled by reference: the generated package holds the one instance
        return (_lookup, (self.package, self.id))

    # ------------------------------------------------------------------ roles and messages

    @property
    def messages(self) -> Mapping[str, Any]:
        """The ``MessageInfo`` of every message the endpoint carries (from the package)."""
        catalog = importlib.import_module(self.package).MESSAGES
        return MappingProxyType({m: catalog[m] for m in self.message_ids})

    def dispatcher(
        self, dead_letter: DeadLetter | None = None, *, redeliver: bool = False
    ) -> D:
        """A new dispatcher that accepts the endpoint's messages only.

        ``redeliver=False`` (default): a handler that raises sends the message to
        ``dead_letter`` (reason ``handler-error``) and the receiver acknowledges it.
        ``redeliver=True``: a handler that raises makes ``dispatch`` raise
        ``HandlerError``; a receiver's ``run`` then calls the handler again per its ``retry``
        policy and, when the attempts are used up, delivers the dead letter before it
        acknowledges (docs/serving.md). A ``dead_letter`` that raises leaves the message
        unacknowledged: the receiver gives it back.
        """
        if self.dispatcher_class is None:
            raise EndpointError(
                f"endpoint {self.id!r} has usage {list(self.usage)}: it only sends, so it has no"
                " dispatcher (build one from a consumer endpoint, or"
                " consumer.Dispatcher)"
            )
        d: Any = self.dispatcher_class(dead_letter)  # type: ignore[call-arg]
        if redeliver:
            d.handler_errors = "raise"  # DispatcherBase: raise HandlerError
        return d  # type: ignore[no-any-return]

    def role(self, role: str | None, wanted: tuple[str, ...], action: str) -> str:
        """The role a client built by ``action`` plays (``role`` if given, checked)."""
        if role is not None:
            if role not in self.usage:
                raise EndpointError(
                    f"endpoint {self.id!r} has usage {list(self.usage)}, "
                    f"not {role!r}"
                )
            return role
        for r in wanted:
            if r in self.usage:
                return r
        raise EndpointError(
            f"endpoint {self.id!r} has usage {list(self.usage)}: {action} needs "
            f"one of {list(wanted)}"
        )

    # ------------------------------------------------------------------ clients

    def config(self, role: str | None = None, **arguments: Any) -> dict[str, Any]:
        """The client library's own configuration for ``role`` (default: the endpoint's role;
        ``consumer`` for a subscriber and consumer endpoint): for Kafka the confluent-kafka
        dict, for the others the keyword arguments of the client's connect call and of the
        adapter. ``arguments``: placeholder values, option overrides, credentials and client
        settings (docs/endpoints.md). Credentials appear as ``Secret`` values."""
        from ._resolve import resolve

        if role is None:
            role = self.role(None, ("consumer", "producer", "subscriber"), "config()")
        settings = resolve(self, self.role(role, (), "config()"), arguments)
        return settings.support.config(settings)

    def sender(self, **arguments: Any) -> Any:
        """The binding's sender, connected to the endpoint (``producer`` role): the blocking
        shape on every binding. ``send(x)`` takes a typed event (encoded with the endpoint's
        binding, content mode and options; an event of a message the endpoint does not
        declare is refused) or a wire message and returns a
        ``concurrent.futures.Future[Receipt]``; a context manager.

        NATS (an asyncio client) runs on an event loop of its own. Called inside a running
        event loop on NATS, it returns what ``async_sender`` returns (deprecated: call
        ``async_sender``).
        """
        from ._shapes import blocking_sender

        return blocking_sender(self, arguments)

    def async_sender(self, **arguments: Any) -> Any:
        """The asyncio shape of :meth:`sender` on every binding: ``await ep.async_sender()``
        (or ``async with``) gives a sender whose ``await send(x)`` returns the ``Receipt``.
        A blocking client (Kafka, MQTT, AMQP) is connected and called in a thread of its
        own."""
        from ._shapes import async_sender

        return async_sender(self, arguments)

    def receiver(self, **arguments: Any) -> Any:
        """The binding's receiver, connected and subscribed (``consumer`` or ``subscriber``
        role; for HTTP, the ASGI application serving a ``producer`` endpoint): the blocking
        shape on every binding, ``run(handler)`` serving until it returns
        (docs/endpoints.md). NATS runs its asyncio client on an event loop of its own in the
        calling thread. Called inside a running event loop on NATS, it returns what
        ``async_receiver`` returns (deprecated: call ``async_receiver``).
        """
        from ._shapes import blocking_receiver

        return blocking_receiver(self, arguments)

    def async_receiver(self, **arguments: Any) -> Any:
        """The asyncio shape of :meth:`receiver` on every binding: ``await
        ep.async_receiver()`` (or ``async with``) gives a receiver whose ``await
        run(handler)`` serves in the running event loop; a blocking client (Kafka, MQTT,
        AMQP, HTTP pull) is called in a thread of its own."""
        from ._shapes import async_receiver

        return async_receiver(self, arguments)

    def receiver_role(self) -> str:
        """The role ``receiver()`` plays (the binding may serve ``producer`` endpoints)."""
        from ._support import support

        wanted = support(self).RECEIVER_ROLES
        return self.role(None, wanted, "receiver()")


def _lookup(package: str, endpoint_id: str) -> Endpoint[Any]:
    endpoint: Endpoint[Any] = importlib.import_module(package).ENDPOINTS[endpoint_id]
    return endpoint
