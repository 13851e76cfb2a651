"""NATS (``NATS``, any version)."""

from __future__ import annotations

from pydantic import Field
from xrgen_runtime.bindings import BINDINGS

from ..catalog_model import LooseStr, NameValueList, OptionsModel
from ._base import Protocol, any_version


class NatsOptions(OptionsModel):
    subject: LooseStr = None
    reply_to: LooseStr = Field(default=None, alias="reply-to")
    reply: LooseStr = None
    headers: NameValueList = None


def _is_filter(option: str, value: str) -> bool:
    """A subject with wildcards (``*`` token, ``>`` tail) or a comma list is a subscription."""
    tokens = value.split(".")
    return "," in value or "*" in tokens or tokens[-1] == ">"


#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["nats"]

NATS = Protocol(
    id="NATS",
    names=("nats",),
    accepts=any_version,
    model=NatsOptions,
    scalars={
        "subject": ("subject",),
        "reply-to": ("reply",),
        "reply_to": ("reply",),
        "reply": ("reply",),
    },
    maps={"headers": "headers"},
    routing=frozenset({"subject"}),
    runtime=_RUNTIME,
    connection=frozenset({"queue", "queue-group", "queue_group", "stream", "durable", "consumer"}),
    is_filter=_is_filter,
)
PROTOCOLS = (NATS,)
