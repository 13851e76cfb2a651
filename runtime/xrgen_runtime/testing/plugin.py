"""pytest plugin of xrgen-runtime (entry point ``pytest11``: ``xrgen_runtime``).

Fixtures, each a fresh broker per test: ``xrgen_kafka_broker``, ``xrgen_amqp_broker``,
``xrgen_mqtt_broker``, ``xrgen_nats_broker``, ``xrgen_http_broker``,
``xrgen_pulsar_broker``, ``xrgen_rocketmq_broker``, and ``xrgen_brokers`` (a
:class:`~xrgen_runtime.testing.Brokers` holding those same brokers).

Loading the plugin imports only pytest: the brokers (and pydantic behind them) are imported
by the first test that requests a fixture. Disable it with ``-p no:xrgen_runtime``.
"""

from __future__ import annotations

from typing import Any

import pytest


def _broker(name: str, cls: str, what: str) -> Any:
    """A fixture ``name`` returning a fresh ``_brokers.<cls>`` (imported on first use)."""

    def fresh() -> Any:
        from . import _brokers

        return getattr(_brokers, cls)()

    fresh.__doc__ = f"A fresh in-memory {what} (xrgen_runtime.testing.{cls})."
    return pytest.fixture(fresh, name=name)


xrgen_kafka_broker = _broker("xrgen_kafka_broker", "KafkaBroker", "Kafka broker")
xrgen_amqp_broker = _broker("xrgen_amqp_broker", "AmqpBroker", "AMQP 1.0 broker")
xrgen_mqtt_broker = _broker("xrgen_mqtt_broker", "MqttBroker", "MQTT 5.0/3.1.1 broker")
xrgen_nats_broker = _broker("xrgen_nats_broker", "NatsBroker", "NATS server")
xrgen_http_broker = _broker("xrgen_http_broker", "HttpBroker", "HTTP router")
xrgen_pulsar_broker = _broker("xrgen_pulsar_broker", "PulsarBroker", "Pulsar broker")
xrgen_rocketmq_broker = _broker(
    "xrgen_rocketmq_broker", "RocketMqBroker", "RocketMQ broker"
)


@pytest.fixture
def xrgen_brokers(
    xrgen_kafka_broker: Any,
    xrgen_amqp_broker: Any,
    xrgen_mqtt_broker: Any,
    xrgen_nats_broker: Any,
    xrgen_http_broker: Any,
    xrgen_pulsar_broker: Any,
    xrgen_rocketmq_broker: Any,
) -> Any:
    """Every in-memory broker of this test (the same objects as the single fixtures),
    as an xrgen_runtime.testing.Brokers."""
    from ._brokers import Brokers

    return Brokers(
        kafka=xrgen_kafka_broker,
        amqp=xrgen_amqp_broker,
        mqtt=xrgen_mqtt_broker,
        nats=xrgen_nats_broker,
        http=xrgen_http_broker,
        pulsar=xrgen_pulsar_broker,
        rocketmq=xrgen_rocketmq_broker,
    )
