"""AMQP 1.0 (``AMQP/1.0``; bare ``AMQP`` too; other AMQP versions are other protocols)."""

from __future__ import annotations

from pydantic import Field

from ..catalog_model import LooseStr, NameValueList, OptionsModel
from ._base import Protocol, SparkLanding


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
    spark=SparkLanding(
        "amqp", "decode_amqp", "Decode landed AMQP 1.0 messages (LANDING_SCHEMAS['amqp'])."
    ),
)
PROTOCOLS = (AMQP,)
