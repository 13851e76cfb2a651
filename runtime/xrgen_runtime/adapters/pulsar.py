"""The Apache Pulsar binding's adapter, ``xrgen_runtime.bindings.pulsar.adapter`` (imports its client
library): see its documentation."""

from ..bindings.pulsar.adapter import PulsarReceiver as PulsarReceiver
from ..bindings.pulsar.adapter import PulsarSender as PulsarSender
from ..bindings.pulsar.adapter import PulsarSendError as PulsarSendError
from ..bindings.pulsar.adapter import from_pulsar as from_pulsar

__all__ = ["PulsarSendError", "PulsarReceiver", "PulsarSender", "from_pulsar"]
