"""Apache RocketMQ (``ROCKETMQ``, after the CloudEvents transport binding draft)."""

from __future__ import annotations

from ..catalog_model import LooseStr, NameValueList, OptionsModel
from ._base import Protocol, SparkLanding, any_version


class RocketMqOptions(OptionsModel):
    topic: LooseStr = None
    tag: LooseStr = None
    properties: NameValueList = None


ROCKETMQ = Protocol(
    id="ROCKETMQ",
    names=("rocketmq",),
    accepts=any_version,
    model=RocketMqOptions,
    scalars={"topic": ("topic",), "tag": ("tag",)},
    maps={"properties": "properties"},
    routing=frozenset({"topic", "tag"}),
    connection=frozenset({"consumer_group", "consumergroup", "namespace", "endpoints"}),
    unapplied={"keys": "message keys are set when encoding"},
    spark=SparkLanding(
        "rocketmq",
        "decode_rocketmq",
        "Decode landed RocketMQ messages (LANDING_SCHEMAS['rocketmq']).",
    ),
)
PROTOCOLS = (ROCKETMQ,)
