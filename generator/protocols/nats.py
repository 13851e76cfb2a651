"""NATS (``NATS``, any version)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field
from xrgen_runtime.bindings import BINDINGS

from ..catalog_model import LooseStr, NameValueList, OptionsModel
from ..diagnostics import Diagnostics
from ._base import Protocol, any_version
from ._endpoint import RECEIVES, SENDS, EndpointOption, EndpointOptions, nats_wildcard


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
    connection=frozenset(
        {
            "queue", "queue-group", "queue_group", "stream", "durable", "consumer",
            # rc4 endpoint options (generator/endpoints reads them on endpoints)
            "subjectfilter", "queuegroup",
        }
    ),  # fmt: skip
    is_filter=_is_filter,
)
PROTOCOLS = (NATS,)


# ------------------------------------------------------------------------ endpoints (rc4)


def _check_endpoint(
    po: Mapping[str, Any], usage: frozenset[str], file: str, ptr: str, diags: Diagnostics
) -> None:
    """The NATS addressing rules of endpoint-spec.md."""
    subject, subjectfilter = po.get("subject"), po.get("subjectfilter")
    if isinstance(subject, str) and nats_wildcard(subject):
        diags.error(
            "XRG191",
            file,
            ptr + "/subject",
            f"NATS subject {subject!r} holds a wildcard ('*' token or final '>'), which is not"
            " a publish destination; a subscription filter goes in 'subjectfilter'",
        )
    if subject is not None and subjectfilter is not None:
        diags.error(
            "XRG198",
            file,
            ptr + "/subjectfilter",
            "a NATS endpoint must not declare both 'subject' and 'subjectfilter'",
        )
    if po.get("queuegroup") is not None and subjectfilter is None:
        diags.error(
            "XRG197",
            file,
            ptr + "/queuegroup",
            "'queuegroup' needs a 'subjectfilter' on the same endpoint",
        )


ENDPOINT = EndpointOptions(
    protocol="NATS",
    options={
        "subject": EndpointOption("string", message="subject", roles=SENDS),
        "subjectfilter": EndpointOption("string", roles=RECEIVES),
        "queuegroup": EndpointOption("string", roles=RECEIVES),
    },
    aliases={"queue": "queuegroup"},
    retired=frozenset({"stream", "durable", "consumer"}),
    schemes=frozenset({"nats", "tls", "ws"}),
    port_required=True,
    subscribe_and_consume=True,
    filters={"subject": "subjectfilter"},
    wildcard=nats_wildcard,
    check=_check_endpoint,
)
ENDPOINTS = (ENDPOINT,)
