"""AMQP 1.0 (``AMQP/1.0``; bare ``AMQP`` too; other AMQP versions are other protocols)."""

from __future__ import annotations

from pydantic import Field
from xrgen_runtime.bindings import BINDINGS

from ..catalog_model import LooseStr, NameValueList, OptionsModel
from ._base import Protocol


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
            "link-properties",
            "distributionmode",
            "connectionproperties",
            "sender-settle-mode",
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
