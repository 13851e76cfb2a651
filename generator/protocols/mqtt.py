"""MQTT 5.0 (``MQTT/5.0``, ``MQTT/5``, bare ``MQTT``) and 3.1.1 (``MQTT/3.1.1``, ``MQTT/3.1``,
``MQTT/3``): two protocol ids, one option model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xrgen_runtime.bindings import BINDINGS

from ..diagnostics import Diagnostics, pointer
from ..model.catalog import LooseBool, LooseInt, LooseStr, NameValueList, OptionsModel
from ._base import Protocol, literal
from ._endpoint import RECEIVES, SENDS, EndpointOption, EndpointOptions, literal_text, mqtt_wildcard


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
        # rc4 endpoint options (generator/endpoints reads them on endpoints)
        "topicfilter", "willtopic", "willmessage", "cleansession", "cleanstart",
        "sessionexpiryinterval", "sharedsubscriptiongroup", "nolocal", "retainaspublished",
        "retainhandling",
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
    endpoint_names=frozenset({"topic"}),
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
    endpoint_names=frozenset({"topic"}),
    wrapper="properties",
    check=_check_311,
    is_filter=_is_filter,
)
PROTOCOLS = (MQTT5, MQTT311)


# ------------------------------------------------------------------------ endpoints (rc4)


def _check_endpoint(
    po: Mapping[str, Any], usage: frozenset[str], file: str, ptr: str, diags: Diagnostics
) -> None:
    """The MQTT addressing and shared-subscription rules of endpoint-spec.md."""
    topic, topicfilter = po.get("topic"), po.get("topicfilter")
    if topic is not None and topicfilter is not None:
        diags.error(
            "XRG190",
            file,
            ptr + "/topicfilter",
            "an MQTT endpoint must not declare both 'topic' and 'topicfilter'",
        )
    if isinstance(topic, str) and mqtt_wildcard(topic):
        diags.error(
            "XRG191",
            file,
            ptr + "/topic",
            f"MQTT topic {topic!r} holds a wildcard ('+' or '#'), which is not a publish"
            " destination; a subscription filter goes in 'topicfilter'",
        )
    group = po.get("sharedsubscriptiongroup")
    if group is not None and topicfilter is None:
        diags.error(
            "XRG192",
            file,
            ptr + "/sharedsubscriptiongroup",
            "'sharedsubscriptiongroup' needs a 'topicfilter' on the same endpoint",
        )
    if isinstance(group, str) and "/" in literal_text(group):
        diags.error(
            "XRG193",
            file,
            ptr + "/sharedsubscriptiongroup",
            f"'sharedsubscriptiongroup' {group!r} must be the bare group name: no '$share/'"
            " prefix and no '/'",
        )


_EP_COMMON = {
    "topic": EndpointOption("string", message="topic_name", roles=SENDS),
    "qos": EndpointOption("uinteger", values=(0, 1, 2), message="qos"),
    "retain": EndpointOption(
        "boolean", message="retain", default_roles=frozenset({"producer"}), roles=SENDS
    ),
    "topicfilter": EndpointOption("string", roles=RECEIVES),
    "willtopic": EndpointOption("string"),
    "willmessage": EndpointOption("xid"),
}
_EP_311 = {"cleansession": EndpointOption("boolean")}
_EP_5 = {
    "cleanstart": EndpointOption("boolean"),
    "sessionexpiryinterval": EndpointOption("uinteger", maximum=4294967295),
    "sharedsubscriptiongroup": EndpointOption("string", roles=RECEIVES),
    "nolocal": EndpointOption("boolean", roles=RECEIVES),
    "retainaspublished": EndpointOption("boolean", roles=RECEIVES),
    "retainhandling": EndpointOption("uinteger", values=(0, 1, 2), roles=RECEIVES),
}
def _endpoint(
    protocol: str, mine: dict[str, EndpointOption], theirs: dict[str, EndpointOption]
) -> EndpointOptions:
    other = "MQTT/3.1.1" if protocol == "MQTT/5.0" else "MQTT/5.0"
    return EndpointOptions(
        protocol=protocol,
        options={**_EP_COMMON, **mine},
        aliases={"topic_name": "topic"},
        message_names=frozenset({"topic_name"}),
        other_version={name: other for name in theirs},
        retired=frozenset({"clientid", "keepalive", "willqos", "willretain"}),
        schemes=frozenset({"mqtt", "mqtts", "tcp", "ssl", "wss"}),
        pathless=frozenset({"tcp", "ssl", "wss"}),
        path_is_topic=True,
        subscribe_and_consume=True,
        filters={"topic": "topicfilter"},
        wildcard=mqtt_wildcard,
        check=_check_endpoint,
    )


ENDPOINTS = (_endpoint("MQTT/5.0", _EP_5, _EP_311), _endpoint("MQTT/3.1.1", _EP_311, _EP_5))
