"""pytest plugin of xrgen-runtime (entry point ``pytest11``: ``xrgen_runtime``).

Fixtures, each a fresh broker per test: one per binding, ``xrgen_<name>_broker``
(``xrgen_kafka_broker``, ``xrgen_amqp_broker``, ``xrgen_mqtt_broker``, ``xrgen_nats_broker``,
``xrgen_http_broker``, ``xrgen_pulsar_broker``, ``xrgen_rocketmq_broker``), and
``xrgen_brokers`` (a :class:`~xrgen_runtime.testing.Brokers` holding those same brokers).

Loading the plugin imports only pytest and the binding declarations: the brokers (and
pydantic behind them) are imported by the first test that requests a fixture. Disable it
with ``-p no:xrgen_runtime``.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..bindings import BINDINGS, BindingSpec


def _fixture(name: str) -> str:
    return f"xrgen_{name}_broker"


def _broker(spec: BindingSpec) -> Any:
    """The fixture of ``spec``'s binding: a fresh in-memory broker (imported on first use)."""

    def fresh() -> Any:
        return spec.part(spec.broker)()

    fresh.__doc__ = (
        f"A fresh in-memory {spec.title} "
        f"(xrgen_runtime.testing.{spec.broker.rpartition(':')[2]})."
    )
    return pytest.fixture(fresh, name=_fixture(spec.name))


globals().update({_fixture(name): _broker(spec) for name, spec in BINDINGS.items()})


@pytest.fixture
def xrgen_brokers(request: pytest.FixtureRequest) -> Any:
    """Every in-memory broker of this test (the same objects as the single fixtures),
    as an xrgen_runtime.testing.Brokers."""
    from ._brokers import Brokers

    return Brokers(
        **{name: request.getfixturevalue(_fixture(name)) for name in BINDINGS}
    )
