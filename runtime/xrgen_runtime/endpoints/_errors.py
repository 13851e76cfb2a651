"""The errors raised while configuring clients from endpoints (none of them carries a
credential value)."""

from __future__ import annotations

__all__ = [
    "EndpointError",
    "EndpointConnectFailed",
    "MessageNotDeclared",
    "MissingCredential",
    "MissingPlaceholder",
    "UnknownEndpoint",
]


class EndpointError(ValueError):
    """An endpoint cannot configure the requested client (role, option, protocol)."""


class MissingPlaceholder(EndpointError, TypeError):
    """A ``{placeholder}`` of the endpoint's URIs or options has no value."""


class MissingCredential(EndpointError, LookupError):
    """The endpoint's authorization needs a credential that neither an argument nor an
    environment variable supplies."""


class MessageNotDeclared(EndpointError):
    """A producer endpoint was asked to send an event of a message it does not declare."""


class UnknownEndpoint(KeyError):
    """``ENDPOINTS[id]`` with an id the package's catalog does not declare; the message names
    the closest ids (a ``KeyError``, as a mapping raises)."""

    def __init__(self, endpoint_id: object, message: str) -> None:
        super().__init__(endpoint_id)
        self.endpoint_id = endpoint_id
        self.message = message

    def __str__(self) -> str:
        return self.message


class EndpointConnectFailed(ConnectionError):
    """No server of an endpoint accepted a connection within the connect timeout (refused,
    not resolvable, no answer, or the login refused); the message names the endpoint and
    each host and port tried, with the client's reason."""

    def __init__(self, endpoint_id: str, failures: list[tuple[str, str]]) -> None:
        tried = "; ".join(f"{where}: {reason}" for where, reason in failures)
        super().__init__(f"endpoint {endpoint_id!r}: cannot connect to {tried}")
        self.endpoint_id = endpoint_id
        #: (``host:port``, the client's reason) per server tried, in order
        self.failures = tuple(failures)
