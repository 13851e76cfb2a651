"""The NATS binding's adapter, ``xrgen_runtime.bindings.nats.adapter`` (imports its client
library): see its documentation."""

from ..bindings.nats.adapter import ConnectFailed as ConnectFailed
from ..bindings.nats.adapter import JetStreamError as JetStreamError
from ..bindings.nats.adapter import JetStreamReceipt as JetStreamReceipt
from ..bindings.nats.adapter import JetStreamReceiver as JetStreamReceiver
from ..bindings.nats.adapter import JetStreamSender as JetStreamSender
from ..bindings.nats.adapter import NatsPublishError as NatsPublishError
from ..bindings.nats.adapter import NatsReceiver as NatsReceiver
from ..bindings.nats.adapter import NatsSender as NatsSender
from ..bindings.nats.adapter import NotConnected as NotConnected
from ..bindings.nats.adapter import connect as connect
from ..bindings.nats.adapter import ensure_stream as ensure_stream
from ..bindings.nats.adapter import from_nats as from_nats
from ..bindings.nats.adapter import headers_dict as headers_dict

__all__ = [
    "ConnectFailed",
    "JetStreamError",
    "JetStreamReceipt",
    "JetStreamReceiver",
    "JetStreamSender",
    "NatsPublishError",
    "NatsReceiver",
    "NatsSender",
    "NotConnected",
    "connect",
    "ensure_stream",
    "from_nats",
    "headers_dict",
]
