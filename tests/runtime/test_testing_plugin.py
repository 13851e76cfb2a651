"""The pytest plugin of xrgen-runtime, as a user's test run gets it: registered by the
distribution's ``pytest11`` entry point (no conftest, no ``-p``), fixtures fresh per test,
cheap to load."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import pytest

pytest_plugins = ["pytester"]

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"
#: other plugins of this environment, not needed by the user's tests (each costs start-up time)
OTHERS = ("-p", "no:hypothesispytest", "-p", "no:typeguard", "-p", "no:benchmark")

USER_TESTS = '''
from xrgen_runtime import KafkaMessage, MqttMessage, NatsMessage
from xrgen_runtime.testing import Brokers, KafkaBroker


def test_kafka_fixture(xrgen_kafka_broker):
    assert isinstance(xrgen_kafka_broker, KafkaBroker)
    got = []
    xrgen_kafka_broker.subscribe("orders", got.append)
    xrgen_kafka_broker.publish(KafkaMessage("orders", b"k", b"v"))
    assert [m.value for m in got] == [b"v"]


def test_each_test_gets_fresh_brokers(xrgen_kafka_broker):
    assert xrgen_kafka_broker.published == [] and xrgen_kafka_broker.subscriptions == ()


def test_all_brokers_are_the_single_ones(xrgen_brokers, xrgen_mqtt_broker, xrgen_nats_broker):
    assert isinstance(xrgen_brokers, Brokers)
    assert xrgen_brokers.mqtt is xrgen_mqtt_broker and xrgen_brokers.nats is xrgen_nats_broker
    xrgen_mqtt_broker.publish(MqttMessage("a/b", b"x"))
    xrgen_brokers.nats.publish(NatsMessage("a.b", b"x"))
    assert [len(b.unrouted) for b in xrgen_brokers] == [0, 0, 1, 1, 0, 0, 0]


def test_every_binding_has_a_fixture(
    xrgen_amqp_broker, xrgen_http_broker, xrgen_pulsar_broker, xrgen_rocketmq_broker
):
    names = [type(b).__name__ for b in (
        xrgen_amqp_broker, xrgen_http_broker, xrgen_pulsar_broker, xrgen_rocketmq_broker
    )]
    assert names == ["AmqpBroker", "HttpBroker", "PulsarBroker", "RocketMqBroker"]
'''


def test_the_distribution_registers_the_plugin() -> None:
    (plugin,) = [e for e in entry_points(group="pytest11") if e.name == "xrgen_runtime"]
    assert plugin.value == "xrgen_runtime.testing.plugin"


def test_fixtures_work_in_a_users_test_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    # a subprocess: the plugin comes from the installed entry point, as in a user's run
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *OTHERS)
    result.assert_outcomes(passed=4)


def test_the_plugin_can_be_disabled(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest("-p", "no:xrgen_runtime", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=4)
    result.stdout.fnmatch_lines(["*fixture 'xrgen_kafka_broker' not found*"])


def test_loading_the_plugin_imports_neither_pydantic_nor_the_brokers() -> None:
    """The plugin reads the binding declarations (standard library only), nothing more: of
    each binding's package, its ``__init__`` and ``spec``, not its codec."""
    code = (
        "import sys, xrgen_runtime.testing.plugin\n"
        "def declaring(m):\n"
        "    parts = m.split('.')[2:]\n"
        "    return parts[0].startswith('_') or parts[1:] in ([], ['spec'])\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('pydantic', 'hypothesis')"
        " or m.startswith(('xrgen_runtime._', 'xrgen_runtime.testing._'))"
        " or m.startswith('xrgen_runtime.bindings.') and not declaring(m)]\n"
        "assert heavy == ['xrgen_runtime._version'], heavy\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_documented_example_passes(pytester: pytest.Pytester, acme: ModuleType) -> None:
    text = DOC.read_text()
    (example,) = re.findall(r"## A complete example.*?```python\n(.*?)```", text, re.S)
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(Path(acme.__file__).parents[1])!r})\n")
    pytester.makepyfile(test_alarms=example)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
