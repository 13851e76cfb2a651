"""The Apache RocketMQ binding's adapter, ``xrgen_runtime.bindings.rocketmq.adapter`` (imports its client
library): see its documentation."""

from ..bindings.rocketmq.adapter import RocketMqReceiver as RocketMqReceiver
from ..bindings.rocketmq.adapter import RocketMqSender as RocketMqSender
from ..bindings.rocketmq.adapter import from_rocketmq_message as from_rocketmq_message
from ..bindings.rocketmq.adapter import to_rocketmq_message as to_rocketmq_message

__all__ = [
    "RocketMqReceiver",
    "RocketMqSender",
    "from_rocketmq_message",
    "to_rocketmq_message",
]
