"""The MQTT (5.0 and 3.1.1) binding's adapter, ``xrgen_runtime.bindings.mqtt.adapter`` (imports its client
library): see its documentation."""

from ..bindings.mqtt.adapter import Connection as Connection
from ..bindings.mqtt.adapter import MqttPublishError as MqttPublishError
from ..bindings.mqtt.adapter import MqttReceiver as MqttReceiver
from ..bindings.mqtt.adapter import MqttSender as MqttSender
from ..bindings.mqtt.adapter import NotConnected as NotConnected
from ..bindings.mqtt.adapter import from_paho as from_paho
from ..bindings.mqtt.adapter import to_properties as to_properties

__all__ = [
    "Connection",
    "MqttPublishError",
    "MqttReceiver",
    "MqttSender",
    "NotConnected",
    "from_paho",
    "to_properties",
]
