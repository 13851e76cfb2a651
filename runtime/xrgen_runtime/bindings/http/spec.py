"""The HTTP binding's declaration: its metadata and wire message types and ``BINDING``.

Read by the registry (``BINDINGS['http']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._spec import BindingSpec, array, struct

__all__ = ["BINDING", "HttpBinding", "HttpMessage"]


@dataclass(frozen=True, slots=True)
class HttpBinding:
    method: str | None = None
    #: path without query string
    path: str | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, str], ...] = ()
    query: tuple[tuple[str, str], ...] = ()
    status: int | None = None


@dataclass(frozen=True, slots=True)
class HttpMessage:
    method: str
    #: request target: path plus optional ``?query``
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    #: response status for responses; ``None`` for requests
    status: int | None = None


BINDING = BindingSpec(
    name="http",
    family="HTTP",
    protocols={"HTTP": {}},
    binding_type=HttpBinding,
    message_type=HttpMessage,
    destination="path",
    landing=(
        ("method", "string"),
        ("path", "string"),
        ("headers", array(struct(("key", "string"), ("value", "string")))),
        ("body", "binary"),
        ("status", "integer"),
    ),
    decoder="decode_http",
    decoder_doc="Decode landed HTTP requests (LANDING_SCHEMAS['http']).",
    caseless=frozenset({"headers"}),
    upper=frozenset({"method"}),
    order=4,
    requirement="httpx>=0.27",
    client_modules=frozenset({"httpx"}),
    title="HTTP router",
    spark_reader=".bindings.http.spark:HttpWire",
    broker=".testing._brokers:HttpBroker",
    readdress=".serving._deadletter:_http",
)
