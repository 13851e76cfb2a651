"""Apache RocketMQ (``ROCKETMQ``, after the CloudEvents transport binding draft)."""

from __future__ import annotations

from xrgen_runtime.bindings import BINDINGS

from ..model.catalog import LooseStr, NameValueList, OptionsModel
from ._base import Protocol, any_version


class RocketMqOptions(OptionsModel):
    topic: LooseStr = None
    tag: LooseStr = None
    properties: NameValueList = None


#: the runtime's declaration of the binding (types, fields, transit fields, Spark landing)
_RUNTIME = BINDINGS["rocketmq"]

ROCKETMQ = Protocol(
    id="ROCKETMQ",
    names=("rocketmq",),
    accepts=any_version,
    model=RocketMqOptions,
    scalars={"topic": ("topic",), "tag": ("tag",)},
    maps={"properties": "properties"},
    routing=frozenset({"topic", "tag"}),
    runtime=_RUNTIME,
    connection=frozenset({"consumer_group", "consumergroup", "namespace", "endpoints"}),
    unapplied={"keys": "message keys are set when encoding"},
)
PROTOCOLS = (ROCKETMQ,)
