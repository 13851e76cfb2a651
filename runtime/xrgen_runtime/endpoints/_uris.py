"""Endpoint URIs split for the client libraries (shared by the bindings' endpoint supports)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from ._errors import EndpointConnectFailed, EndpointError

if TYPE_CHECKING:
    from ._resolve import Settings

__all__ = ["Address", "Scheme", "addresses", "connected", "first_connected", "reason"]

T = TypeVar("T")

#: ``scheme://user[:password]@``: user information in the authority
_USERINFO = re.compile(r"^[^:/?#]*://[^/?#]*@")


@dataclass(frozen=True, slots=True)
class Scheme:
    """What a URI scheme means to a client: TLS, transport and the default port."""

    tls: bool
    port: int
    transport: str = "tcp"


@dataclass(frozen=True, slots=True)
class Address:
    """One endpoint URI, split."""

    uri: str
    scheme: str
    host: str
    port: int
    #: the path as written (percent-encoded, as a placeholder value was inserted), without the
    #: leading ``/`` (``""``: none): a topic or node taken from it is the text a producer's
    #: template of the same address expands to
    path: str
    info: Scheme


def addresses(settings: Settings, schemes: dict[str, Scheme]) -> tuple[Address, ...]:
    """The endpoint's URIs in preference order; an error names a URI the protocol cannot use.

    User information in a URI is refused: credentials come from arguments or the environment.
    """
    endpoint = settings.endpoint
    if not settings.uris:
        raise EndpointError(
            f"endpoint {endpoint.id!r} has no URI (protocoloptions.endpoints"
            f"{'' if endpoint.deployed else '; it is not deployed'}): pass uris=[...]"
        )
    out: list[Address] = []
    for uri in settings.uris:
        if _USERINFO.search(uri):
            raise EndpointError(
                f"endpoint {endpoint.id!r}: a URI carries no credentials; pass username= "
                "and password= or set the environment variables (docs/endpoints.md)"
            )
        try:
            parts = urlsplit(uri)
            port = parts.port
        except ValueError as exc:
            raise EndpointError(
                f"endpoint {endpoint.id!r}: bad URI {uri!r}: {exc}"
            ) from None
        scheme = parts.scheme.lower()
        info = schemes.get(scheme)
        if info is None or not parts.hostname:
            raise EndpointError(
                f"endpoint {endpoint.id!r}: URI {uri!r} needs a host and one of the "
                f"schemes {', '.join(sorted(schemes))}"
            )
        path = parts.path.lstrip("/")
        out.append(Address(uri, scheme, parts.hostname, port or info.port, path, info))
    return tuple(out)


def first_connected(
    settings: Settings, found: tuple[Address, ...], build: Callable[[Address], T]
) -> T:
    """``build(address)`` for the URIs in preference order, until one connects.

    When none does, ``EndpointConnectFailed`` names the endpoint and each host and port tried
    with what the client raised (its connect timeout bounds each attempt).
    """
    failures: list[tuple[str, str]] = []
    for address in found:
        try:
            return build(address)
        except (OSError, TimeoutError) as exc:
            failures.append((f"{address.host}:{address.port}", reason(exc)))
    raise EndpointConnectFailed(settings.endpoint.id, failures)


def connected(settings: Settings, where: str, build: Callable[[], T]) -> T:
    """``build()`` of a client that tries the endpoint's servers itself (``where``: them, for
    the message); a connect error becomes ``EndpointConnectFailed`` naming the endpoint.
    """
    try:
        return build()
    except (OSError, TimeoutError) as exc:
        host, port = getattr(exc, "host", None), getattr(exc, "port", None)
        if host is not None and port is not None:
            where = f"{host}:{port}" if port != "" else str(host)
        raise EndpointConnectFailed(
            settings.endpoint.id, [(where, reason(exc))]
        ) from exc


def reason(exc: BaseException) -> str:
    """What a client raised, for a connect error: the adapter's reason, or the exception."""
    text = getattr(exc, "reason", None)
    if isinstance(text, str):
        return text
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
