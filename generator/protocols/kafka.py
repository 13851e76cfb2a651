"""Apache Kafka (``KAFKA``; ``Kafka/3.6`` and other versions spell the same binding)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from xrgen_runtime.bindings import BINDINGS

from ..diagnostics import Diagnostics
from ..model.catalog import LooseInt, LooseStr, NameValueList, OptionsModel
from ._base import Protocol, any_version, literal
from ._endpoint import SENDS, EndpointOption, EndpointOptions


class KafkaOptions(OptionsModel):
    topic: LooseStr = None
    partition: LooseInt = None
    key: LooseStr = None
    key_base64: LooseStr = None
    headers: NameValueList = None


def key_text(key64: Any) -> str | None:
    """The text of a constant ``key_base64`` when it is valid base64 of UTF-8, else None."""
    if not isinstance(key64, str) or "{" in key64:
        return None
    try:
        return base64.b64decode(key64, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _rewrite(po: dict[str, Any]) -> dict[str, Any]:
    text = key_text(literal(po.get("key_base64")))
    if text is not None and po.get("key") is None:
        po.pop("key_base64")
        po["key"] = text
    return po


def _check(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    key64 = literal(po.get("key_base64"))
    if isinstance(key64, str) and "{" not in key64:
        try:
            base64.b64decode(key64, validate=True)
        except (binascii.Error, ValueError):
            diags.error("XRG169", file, ptr + "/key_base64", "key_base64 is not valid base64")


def _check_complete(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    if po.get("key") is not None and po.get("key_base64") is not None:
        diags.error("XRG168", file, ptr, "Kafka 'key' and 'key_base64' are mutually exclusive")


#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["kafka"]

KAFKA = Protocol(
    id="KAFKA",
    names=("kafka",),
    accepts=any_version,
    model=KafkaOptions,
    scalars={"topic": ("topic",), "key": ("key",), "partition": ("partition",)},
    maps={"headers": "headers"},
    routing=frozenset({"topic", "key", "partition"}),
    runtime=_RUNTIME,
    connection=frozenset(
        {
            "acks", "consumer-group", "consumergroup", "consumer_group", "group.id", "group_id",
            "client.id", "client_id", "bootstrap.servers", "bootstrap_servers", "security.protocol",
            "compression.type", "auto.offset.reset",
            # rc4 endpoint options (generator/endpoints reads them on endpoints)
            "keyserializer", "valueserializer", "autooffsetreset", "enableautocommit",
        }
    ),
    unapplied={"key_base64": "a binary key that is not UTF-8 text (set the key when encoding)"},
    rewrite=_rewrite,
    check=_check,
    check_complete=_check_complete,
    separate_roles=True,
)  # fmt: skip
PROTOCOLS = (KAFKA,)


# ------------------------------------------------------------------------ endpoints (rc4)


def _check_endpoint(
    po: Mapping[str, Any], usage: frozenset[str], file: str, ptr: str, diags: Diagnostics
) -> None:
    """Kafka tells its roles apart by ``consumergroup`` (endpoint-spec.md, KAFKA options)."""
    group = po.get("consumergroup")
    if "consumer" in usage and (group is None or group == ""):
        diags.error(
            "XRG194",
            file,
            ptr + ("/consumergroup" if group == "" else ""),
            "a Kafka consumer endpoint must declare a non-empty 'consumergroup' (the group it joins)",
        )
    if "subscriber" in usage and group is not None:
        diags.error(
            "XRG195",
            file,
            ptr + "/consumergroup",
            "a Kafka subscriber endpoint must not declare 'consumergroup' (the group is what"
            " it establishes); joining a group is a consumer endpoint",
        )
    if usage & {"producer", "subscriber"}:
        role = "producer" if "producer" in usage else "subscriber"
        for option in ("autooffsetreset", "enableautocommit"):
            if option in po:
                diags.error(
                    "XRG196",
                    file,
                    ptr + "/" + option,
                    f"'{option}' describes group-based consumption and must not be used on a"
                    f" Kafka {role} endpoint",
                )


_PRODUCER = frozenset({"producer"})
_CONSUMER = frozenset({"consumer"})
_PARTITIONED = frozenset({"producer", "consumer"})
ENDPOINT = EndpointOptions(
    protocol="KAFKA",
    options={
        "topic": EndpointOption("string", message="topic"),
        "acks": EndpointOption("integer", minimum=-1, maximum=1, roles=SENDS),
        "key": EndpointOption("string", message="key", default_roles=_PRODUCER, roles=SENDS),
        "partition": EndpointOption("integer", message="partition", roles=_PARTITIONED),
        "consumergroup": EndpointOption("string", roles=_CONSUMER),
        "headers": EndpointOption(
            "stringmap", message="headers", default_roles=_PRODUCER, roles=SENDS
        ),
        "keyserializer": EndpointOption("string", roles=SENDS),
        "valueserializer": EndpointOption("string", roles=SENDS),
        "autooffsetreset": EndpointOption(
            "string", values=("earliest", "latest", "none"), roles=_CONSUMER
        ),
        "enableautocommit": EndpointOption("boolean", roles=_CONSUMER),
    },
    aliases={"group.id": "consumergroup", "group_id": "consumergroup", "groupid": "consumergroup"},
    retired=frozenset({"clientid", "compressiontype", "securityprotocol", "saslmechanism"}),
    address="bootstrap.servers",
    schemes=frozenset({"plaintext", "ssl", "sasl_plaintext", "sasl_ssl"}),
    check=_check_endpoint,
)
ENDPOINTS = (ENDPOINT,)
