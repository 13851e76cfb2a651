"""The NATS binding's declaration: its metadata and wire message types and ``BINDING``.

Read by the registry (``BINDINGS['nats']``) without importing the rest of the binding's
package: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._spec import BindingSpec, array, struct

__all__ = ["BINDING", "NatsBinding", "NatsMessage"]


@dataclass(frozen=True, slots=True)
class NatsBinding:
    subject: str | None = None
    reply: str | None = None
    #: non-CloudEvents headers
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class NatsMessage:
    subject: str
    payload: bytes
    headers: tuple[tuple[str, str], ...] = ()
    reply: str | None = None


BINDING = BindingSpec(
    name="nats",
    family="NATS",
    protocols={"NATS": {}},
    binding_type=NatsBinding,
    message_type=NatsMessage,
    destination="subject",
    landing=(
        ("subject", "string"),
        ("payload", "binary"),
        ("headers", array(struct(("key", "string"), ("value", "string")))),
        ("reply", "string"),
    ),
    decoder="decode_nats",
    decoder_doc="Decode landed NATS messages (LANDING_SCHEMAS['nats']).",
    caseless=frozenset({"headers"}),
    order=3,
    requirement="nats-py>=2.6",
    client_modules=frozenset({"nats"}),
    title="NATS server",
    spark_reader=".bindings.nats.spark:NatsWire",
    broker=".testing._brokers:NatsBroker",
    readdress=".serving._deadletter:_nats",
)
