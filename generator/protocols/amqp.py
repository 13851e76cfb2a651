"""AMQP 1.0 (``AMQP/1.0``; bare ``AMQP`` too; other AMQP versions are other protocols)."""

from __future__ import annotations

from pydantic import Field
from xrgen_runtime.bindings import BINDINGS

from ..model.catalog import LooseStr, NameValueList, OptionsModel
from ._base import Protocol
from ._endpoint import RECEIVES, SENDS, EndpointOption, EndpointOptions


class AmqpOptions(OptionsModel):
    node: LooseStr = None
    address: LooseStr = None
    properties: NameValueList = None
    application_properties: NameValueList = Field(default=None, alias="application-properties")
    message_annotations: NameValueList = Field(default=None, alias="message-annotations")
    delivery_annotations: NameValueList = Field(default=None, alias="delivery-annotations")
    header: NameValueList = None
    footer: NameValueList = None


#: the AMQP 1.0 properties and header sections: fixed fields (AMQP 1.0 section 3.2)
_PROPERTIES = (
    "message-id", "user-id", "to", "subject", "reply-to", "correlation-id", "content-type",
    "content-encoding", "absolute-expiry-time", "creation-time", "group-id", "group-sequence",
    "reply-to-group-id",
)  # fmt: skip
_HEADER = ("durable", "priority", "ttl", "first-acquirer", "delivery-count")

#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["amqp"]
#: the rc4 endpoint options (endpoint-spec.md, AMQP options)
_ENDPOINT_OPTIONS = {
    "node": EndpointOption("string", message="node"),
    "durable": EndpointOption("boolean", roles=SENDS),
    "link-properties": EndpointOption("stringmap"),
    "connection-properties": EndpointOption("stringmap"),
    "distribution-mode": EndpointOption("string", values=("move", "copy"), roles=RECEIVES),
    "connection-capabilities": EndpointOption("strings"),
    "node-capabilities": EndpointOption("strings"),
    "source-filters": EndpointOption("anymap", roles=RECEIVES),
    "dynamic": EndpointOption("boolean", roles=RECEIVES),
    "terminus-durability": EndpointOption(
        "string", values=("none", "configuration", "unsettled-state")
    ),
    "expiry-policy": EndpointOption(
        "string", values=("link-detach", "session-end", "connection-close", "never")
    ),
    "timeout": EndpointOption("uinteger"),
    "sender-settle-mode": EndpointOption("string", values=("unsettled", "settled", "mixed")),
    "receiver-settle-mode": EndpointOption("string", values=("first", "second")),
}

AMQP = Protocol(
    id="AMQP/1.0",
    names=("amqp", "amqps"),
    accepts=lambda version: not version or version.startswith("1"),
    model=AmqpOptions,
    scalars={"node": ("address",), "address": ("address",)},
    maps={
        "properties": "properties",
        "application-properties": "application_properties",
        "application_properties": "application_properties",
        "message-annotations": "message_annotations",
        "message_annotations": "message_annotations",
        "header": "header",
        "footer": "footer",
    },
    routing=frozenset({"node", "address"}),
    runtime=_RUNTIME,
    fields={
        "properties": {name: name for name in _PROPERTIES},
        "header": {name: name for name in _HEADER},
    },
    custom={"properties": "application-properties", "header": "message-annotations"},
    connection=frozenset(
        {
            "linkproperties",
            "distributionmode",
            "connectionproperties",
            # rc4 endpoint options (generator/endpoints reads them on endpoints)
            *(name for name in _ENDPOINT_OPTIONS if name != "node"),
        }
    ),
    unapplied={
        "delivery-annotations": "delivery annotations are set per hop by the sender's link",
    },
    renames=(
        ("application_properties", "application-properties"),
        ("message_annotations", "message-annotations"),
        ("delivery_annotations", "delivery-annotations"),
    ),
)
PROTOCOLS = (AMQP,)

ENDPOINT = EndpointOptions(
    protocol="AMQP/1.0",
    options=_ENDPOINT_OPTIONS,
    aliases={"address": "node"},
    schemes=frozenset({"amqp", "amqps"}),
    subscribe_and_consume=True,
)
ENDPOINTS = (ENDPOINT,)
