"""MQTT 5.0 (``MQTT/5.0``, ``MQTT/5``, bare ``MQTT``) and 3.1.1 (``MQTT/3.1.1``, ``MQTT/3.1``,
``MQTT/3``): two protocol ids, one option model."""

from __future__ import annotations

from typing import Any

from xrgen_runtime.bindings import BINDINGS

from ..catalog_model import LooseBool, LooseInt, LooseStr, NameValueList, OptionsModel
from ..diagnostics import Diagnostics, pointer
from ._base import Protocol, literal


class MqttOptions(OptionsModel):
    qos: LooseInt = None
    retain: LooseBool = None
    topic_name: LooseStr = None
    payload_format: LooseInt = None
    payload_format_indicator: LooseInt = None
    message_expiry_interval: LooseInt = None
    response_topic: LooseStr = None
    correlation_data: LooseStr = None
    content_type: LooseStr = None
    user_properties: NameValueList = None


_MQTT5_ONLY = (
    "payload_format",
    "payload_format_indicator",
    "message_expiry_interval",
    "response_topic",
    "correlation_data",
    "content_type",
    "user_properties",
)


def _check_qos(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    qos = literal(po.get("qos"))
    if (
        qos is not None
        and not (isinstance(qos, str) and "{" in qos)
        and (isinstance(qos, bool) or qos not in (0, 1, 2))
    ):
        diags.error("XRG170", file, ptr + "/qos", f"MQTT qos must be 0, 1 or 2, not {qos!r}")


def _check_311(po: dict[str, Any], file: str, ptr: str, diags: Diagnostics) -> None:
    _check_qos(po, file, ptr, diags)
    for opt in _MQTT5_ONLY:
        if opt in po:
            diags.warning(
                "XRG171", file, ptr + pointer(opt), f"'{opt}' exists only in MQTT 5.0; not applied"
            )


def _is_filter(option: str, value: str) -> bool:
    """A topic filter (wildcards ``#``/``+``, or a comma list of them) is a subscription."""
    return "," in value or "#" in value or "+" in value.replace("{+", "{")


_SCALARS_5 = {
    "topic_name": ("topic",),
    "qos": ("qos",),
    "retain": ("retain",),
    "content_type": ("content_type",),
    "response_topic": ("response_topic",),
    "message_expiry_interval": ("message_expiry_interval",),
    "payload_format": ("payload_format_indicator",),
    "payload_format_indicator": ("payload_format_indicator",),
}
_CONNECTION = frozenset(
    {
        "will-message", "will-topic", "will_message", "will_topic", "will-qos", "will-retain",
        "clean-session", "clean_session", "clean-start", "client-id", "client_id", "clientid",
        "keep-alive", "keepalive", "session-expiry-interval",
    }
)  # fmt: skip
_RENAMES = (("topic", "topic_name"), ("user-properties", "user_properties"))
#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["mqtt"]

MQTT5 = Protocol(
    id="MQTT/5.0",
    names=("mqtt", "mqtts"),
    accepts=lambda version: not version or version.startswith("5"),
    model=MqttOptions,
    scalars=_SCALARS_5,
    maps={"user_properties": "user_properties"},
    routing=frozenset({"topic_name", "qos", "retain"}),
    runtime=_RUNTIME,
    connection=_CONNECTION,
    unapplied={"correlation_data": "binary correlation data is set when encoding"},
    renames=_RENAMES,
    wrapper="properties",
    check=_check_qos,
    is_filter=_is_filter,
)
MQTT311 = Protocol(
    id="MQTT/3.1.1",
    names=("mqtt", "mqtts"),
    accepts=lambda version: version.startswith("3"),
    model=MqttOptions,
    scalars={k: v for k, v in _SCALARS_5.items() if k in ("topic_name", "qos", "retain")},
    maps={},
    routing=frozenset({"topic_name", "qos", "retain"}),
    runtime=_RUNTIME,
    connection=_CONNECTION,
    unapplied={opt: "" for opt in _MQTT5_ONLY},  # warned by _check_311 (XRG171)
    renames=_RENAMES,
    wrapper="properties",
    check=_check_311,
    is_filter=_is_filter,
)
PROTOCOLS = (MQTT5, MQTT311)
