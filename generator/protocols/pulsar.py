"""Apache Pulsar (``PULSAR``, after the CloudEvents transport binding draft)."""

from __future__ import annotations

from xrgen_runtime.bindings import BINDINGS

from ..model.catalog import LooseStr, NameValueList, OptionsModel
from ._base import Protocol, any_version


class PulsarOptions(OptionsModel):
    topic: LooseStr = None
    partition_key: LooseStr = None
    key: LooseStr = None
    properties: NameValueList = None


#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["pulsar"]

PULSAR = Protocol(
    id="PULSAR",
    names=("pulsar",),
    accepts=any_version,
    model=PulsarOptions,
    scalars={"topic": ("topic",), "partition_key": ("partition_key",), "key": ("partition_key",)},
    maps={"properties": "properties"},
    routing=frozenset({"topic", "partition_key", "key"}),
    runtime=_RUNTIME,
    connection=frozenset(
        {"subscription", "subscription_name", "subscription_type", "tenant", "namespace"}
    ),
    unapplied={"event_time": "the event time is set when the message is sent"},
)
PROTOCOLS = (PULSAR,)
