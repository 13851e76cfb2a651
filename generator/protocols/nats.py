"""NATS (``NATS``, any version)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field
from xrgen_runtime.bindings import BINDINGS

from ..diagnostics import Diagnostics, pointer
from ..model.catalog import LooseStr, NameValueList, OptionsModel
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
            # endpoint options (generator/endpoints reads them on endpoints)
            "subjectfilter", "queuegroup", "jetstream",
        }
    ),  # fmt: skip
    is_filter=_is_filter,
)
PROTOCOLS = (NATS,)


# ------------------------------------------------------------------------ endpoints (rc4)


#: the settings of the ``jetstream`` endpoint option (an xrgen extension: rc4 defines no
#: JetStream options) -> (the JSON types it takes, its values when it is an enum); the
#: runtime's ``bindings/nats/endpoint.JETSTREAM`` applies them
_NUMBER = (int, float)
JETSTREAM: dict[str, tuple[tuple[type, ...], tuple[str, ...], str]] = {
    "stream": ((str,), (), "a string"),
    "create": ((bool,), (), "true or false"),
    "subjects": ((list,), (), "an array of strings"),
    "storage": ((str,), ("file", "memory"), ""),
    "retention": ((str,), ("limits", "interest", "workqueue"), ""),
    "maxage": (_NUMBER, (), "a number of seconds"),
    "replicas": ((int,), (), "an integer"),
    "durable": ((str,), (), "a string"),
    "ackwait": (_NUMBER, (), "a number of seconds"),
    "maxdeliver": ((int,), (), "an integer"),
    "maxackpending": ((int,), (), "an integer"),
    "backoff": ((list,), (), "an array of numbers of seconds"),
    "deliverpolicy": ((str,), ("all", "last", "new", "last_per_subject"), ""),
}


def _check_jetstream(value: Any, file: str, ptr: str, diags: Diagnostics) -> None:
    """XRG189: ``jetstream`` is ``true``, ``false`` or an object of the ``JETSTREAM``
    settings, each of its type (and one of its values)."""
    if isinstance(value, bool):
        return
    if not isinstance(value, dict):
        diags.error(
            "XRG189", file, ptr, "endpoint option 'jetstream' must be an object, true or false"
        )
        return
    for key, item in value.items():
        where = ptr + pointer(str(key))
        found = JETSTREAM.get(key)
        if found is None:
            diags.error(
                "XRG189",
                file,
                where,
                f"endpoint option 'jetstream' has no setting {key!r} (it has "
                f"{', '.join(JETSTREAM)})",
            )
            continue
        kinds, values, kind = found
        ok = isinstance(item, kinds) and not (isinstance(item, bool) and bool not in kinds)
        if ok and isinstance(item, list):
            element = str if key == "subjects" else _NUMBER
            ok = all(isinstance(v, element) and not isinstance(v, bool) for v in item)
        if ok and values and item not in values and "{" not in str(item):
            ok = False
        if not ok:
            expected = "one of " + ", ".join(values) if values else kind
            diags.error(
                "XRG189",
                file,
                where,
                f"jetstream setting {key!r} must be {expected}, not {item!r}",
            )


def _check_endpoint(
    po: Mapping[str, Any], usage: frozenset[str], file: str, ptr: str, diags: Diagnostics
) -> None:
    """The NATS addressing rules of endpoint-spec.md, and the ``jetstream`` settings."""
    if "jetstream" in po:
        _check_jetstream(po["jetstream"], file, ptr + "/jetstream", diags)
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
        # xrgen: JetStream (checked by ``_check_jetstream``)
        "jetstream": EndpointOption("any"),
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
