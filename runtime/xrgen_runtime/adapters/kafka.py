"""The Kafka binding's adapter, ``xrgen_runtime.bindings.kafka.adapter`` (imports its client
library): see its documentation."""

from ..bindings.kafka.adapter import ConnectFailed as ConnectFailed
from ..bindings.kafka.adapter import KafkaDelivery as KafkaDelivery
from ..bindings.kafka.adapter import KafkaDeliveryError as KafkaDeliveryError
from ..bindings.kafka.adapter import KafkaReceiver as KafkaReceiver
from ..bindings.kafka.adapter import KafkaSender as KafkaSender
from ..bindings.kafka.adapter import NotConnected as NotConnected

__all__ = [
    "ConnectFailed",
    "KafkaDelivery",
    "KafkaDeliveryError",
    "KafkaReceiver",
    "KafkaSender",
    "NotConnected",
]
