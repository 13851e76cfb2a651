"""The AMQP 1.0 binding's adapter, ``xrgen_runtime.bindings.amqp.adapter`` (imports its client
library): see its documentation."""

from ..bindings.amqp.adapter import AmqpDeliveryError as AmqpDeliveryError
from ..bindings.amqp.adapter import AmqpReceiver as AmqpReceiver
from ..bindings.amqp.adapter import AmqpSender as AmqpSender
from ..bindings.amqp.adapter import LinkSettings as LinkSettings
from ..bindings.amqp.adapter import NotConnected as NotConnected
from ..bindings.amqp.adapter import connect_options as connect_options
from ..bindings.amqp.adapter import from_proton as from_proton
from ..bindings.amqp.adapter import to_proton as to_proton

__all__ = [
    "AmqpDeliveryError",
    "AmqpReceiver",
    "AmqpSender",
    "LinkSettings",
    "NotConnected",
    "connect_options",
    "from_proton",
    "to_proton",
]
