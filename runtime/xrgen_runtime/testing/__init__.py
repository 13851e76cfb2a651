"""Testing kit for services built on xrgen-generated packages (see docs/testing.md).

- In-memory brokers, one per binding (:class:`KafkaBroker`, :class:`AmqpBroker`,
  :class:`MqttBroker`, :class:`NatsBroker`, :class:`HttpBroker`, :class:`PulsarBroker`,
  :class:`RocketMqBroker`, all in :class:`Brokers`): they carry the ENCODED wire messages
  (``KafkaMessage``, ...) from producers to subscribers such as a dispatcher's ``dispatch``,
  with each protocol's routing rules (Kafka topics, regex subscriptions and consumer groups;
  MQTT ``+``/``#`` filters, shared subscriptions and retained messages; NATS ``*``/``>``
  subjects and queue groups; AMQP addresses; HTTP method and path routes; Pulsar full topic
  names; RocketMQ tag filters), and record every message (``published``, ``messages(dest)``,
  ``unrouted``). ``sender()`` has the shape of the client adapters' senders; ``receiver()``
  runs the adapters' own serving loop over the broker's queue.
- :func:`example_event`: a valid event of any message id, made by the package's producer;
  :func:`example_events`: a hypothesis strategy of them (needs ``hypothesis``).
- A pytest plugin (``xrgen_runtime.testing.plugin``, registered by the distribution) with
  the fixtures ``xrgen_kafka_broker``, ..., ``xrgen_brokers``.

The names load on first use, so ``import xrgen_runtime.testing`` is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..bindings import BINDINGS
from ..bindings._spec import load

if TYPE_CHECKING:
    from ._broker import (
        AsyncBrokerReceiver,
        AsyncBrokerSender,
        BrokerReceiver,
        BrokerSender,
        Delivery,
        InMemoryBroker,
        Subscription,
    )
    from ._brokers import (
        AmqpBroker,
        Brokers,
        HttpBroker,
        KafkaBroker,
        MqttBroker,
        NatsBroker,
        PulsarBroker,
        RocketMqBroker,
    )
    from ._examples import example_event, example_events
    from ._schema import ExampleError

#: the module of each name of this package
_HOMES = {
    "AsyncBrokerReceiver": "_broker",
    "AsyncBrokerSender": "_broker",
    "BrokerReceiver": "_broker",
    "BrokerSender": "_broker",
    "Delivery": "_broker",
    "InMemoryBroker": "_broker",
    "Subscription": "_broker",
    "Brokers": "_brokers",
    "example_event": "_examples",
    "example_events": "_examples",
    "ExampleError": "_schema",
}
#: public name -> ``"module:name"``: the names above, and each binding's in-memory broker
#: where its declaration puts it
_WHERE = {
    **{name: f".testing.{home}:{name}" for name, home in _HOMES.items()},
    **{b.stem + "Broker": b.broker for b in BINDINGS.values()},
}

__all__ = [
    "AmqpBroker",
    "AsyncBrokerReceiver",
    "AsyncBrokerSender",
    "BrokerReceiver",
    "BrokerSender",
    "Brokers",
    "Delivery",
    "ExampleError",
    "HttpBroker",
    "InMemoryBroker",
    "KafkaBroker",
    "MqttBroker",
    "NatsBroker",
    "PulsarBroker",
    "RocketMqBroker",
    "Subscription",
    "example_event",
    "example_events",
]
__all__ += sorted(set(_WHERE) - set(__all__))


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = load(where)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
