"""The catalog of the serving tests: one job message; per binding a producer endpoint, a
consumer endpoint whose ``deadletter`` option names a destination, and a consumer endpoint
reading that destination. Placeholders ``{host}``, the servers' ports and ``{run}`` (unique
per test) as in ``endpoints_catalog``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest

from .conftest import HOST, unique
from .endpoints_catalog import _endpoint, _split

JOB = {
    "type": "object",
    "properties": {"job": {"type": "integer"}},
    "required": ["job"],
    "title": "Job",
}
GROUPS = ["/messagegroups/srv.jobs"]


def _ep(
    usage: str, protocol: str, uri: str | None, options: dict[str, Any], **kw: Any
) -> Any:
    return _endpoint([usage], protocol, uri, options, groups=GROUPS, **kw)


KAFKA = "{host}:{kafkaport}"
MQTT = "mqtt://{host}:{mqttport}"
AMQP = "amqp://{host}:{amqpport}"
NATS = "nats://{host}:{natsport}"
KAFKA_IN = {
    "consumergroup": "g-{run}",
    "autooffsetreset": "earliest",
    "enableautocommit": False,
}

CATALOG: dict[str, Any] = {
    "messagegroups": {
        "srv.jobs": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                "srv.Job": {
                    "messageid": "srv.Job",
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {
                        "type": {"value": "srv.Job"},
                        "source": {"value": "/jobs"},
                    },
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": JOB,
                }
            },
        }
    },
    "endpoints": {
        "srv.kafka.out": _ep(
            "producer", "KAFKA", None, {"topic": "jobs-{run}"}, bootstrap=KAFKA
        ),
        "srv.kafka.in": _ep(
            "consumer",
            "KAFKA",
            None,
            {"topic": "jobs-{run}", **KAFKA_IN, "deadletter": "jobs-{run}-dlq"},
            bootstrap=KAFKA,
        ),
        "srv.kafka.dlq": _ep(
            "consumer",
            "KAFKA",
            None,
            {"topic": "jobs-{run}-dlq", **KAFKA_IN},
            bootstrap=KAFKA,
        ),
        "srv.mqtt5.out": _ep(
            "producer", "MQTT/5.0", MQTT, {"topic": "jobs/{run}/in", "qos": 1}
        ),
        "srv.mqtt5.in": _ep(
            "consumer",
            "MQTT/5.0",
            MQTT,
            {
                "topicfilter": "jobs/{run}/in",
                "qos": 1,
                "cleanstart": False,
                "sessionexpiryinterval": 300,
                "deadletter": "jobs/{run}/dlq",
            },
        ),
        "srv.mqtt5.dlq": _ep(
            "consumer",
            "MQTT/5.0",
            MQTT,
            {
                "topicfilter": "jobs/{run}/dlq",
                "qos": 1,
                "cleanstart": False,
                "sessionexpiryinterval": 300,
            },
        ),
        "srv.mqtt3.out": _ep(
            "producer",
            "MQTT/3.1.1",
            MQTT,
            {"topic": "jobs3/{run}/in", "qos": 1},
            mode="structured",
        ),
        "srv.mqtt3.in": _ep(
            "consumer",
            "MQTT/3.1.1",
            MQTT,
            {
                "topicfilter": "jobs3/{run}/in",
                "qos": 1,
                "cleansession": False,
                "deadletter": "jobs3/{run}/dlq",
            },
        ),
        "srv.mqtt3.dlq": _ep(
            "consumer",
            "MQTT/3.1.1",
            MQTT,
            {"topicfilter": "jobs3/{run}/dlq", "qos": 1, "cleansession": False},
        ),
        "srv.amqp.out": _ep(
            "producer", "AMQP/1.0", AMQP, {"node": "/queue/jobs-{run}"}
        ),
        "srv.amqp.in": _ep(
            "consumer",
            "AMQP/1.0",
            AMQP,
            {"node": "/queue/jobs-{run}", "deadletter": "/queue/jobs-{run}-dlq"},
        ),
        "srv.amqp.dlq": _ep(
            "consumer", "AMQP/1.0", AMQP, {"node": "/queue/jobs-{run}-dlq"}
        ),
        "srv.nats.out": _ep("producer", "NATS", NATS, {"subject": "jobs.{run}.in"}),
        "srv.nats.in": _ep(
            "consumer",
            "NATS",
            NATS,
            {"subjectfilter": "jobs.{run}.in", "deadletter": "jobs.{run}.dlq"},
        ),
        "srv.nats.dlq": _ep(
            "consumer", "NATS", NATS, {"subjectfilter": "jobs.{run}.dlq"}
        ),
        "srv.http.hook": _ep(
            "producer",
            "HTTP",
            "http://{host}:{httpport}/jobs/{run}",
            {"method": "POST"},
        ),
        "srv.http.pull": _ep(
            "consumer",
            "HTTP",
            "http://{host}:{httpport}/jobs/{run}",
            {"method": "GET", "deadletter": "http://{host}:{httpport}/dead/{run}"},
        ),
    },
}


@pytest.fixture(scope="session", name="srv")
def srv_fixture(tmp_path_factory: pytest.TempPathFactory, generated: Any) -> ModuleType:
    folder = tmp_path_factory.getbasetemp() / "serving-catalog"
    folder.mkdir(exist_ok=True)
    path = folder / "srv.json"
    path.write_text(json.dumps(CATALOG, indent=2))
    return generated(path, package="srv_serving")  # type: ignore[no-any-return]


@dataclass
class Binding:
    """One binding's endpoints in the tests, and the arguments of its clients."""

    name: str
    where: dict[str, str]
    #: receiver arguments of the consumer endpoints (client id, JetStream durable, ...)
    receiving: dict[str, Any] = field(default_factory=dict)
    #: receiver arguments of the dead-letter consumer endpoint
    reading: dict[str, Any] = field(default_factory=dict)
    #: the server keeps an unacknowledged message for the next receiver
    keeps: bool = True
    #: the dead letter carries the reason (MQTT 3.1.1 has no properties)
    reasons: bool = True

    @property
    def prefix(self) -> str:
        return "nats" if self.name == "jetstream" else self.name


def binding(name: str, request: pytest.FixtureRequest) -> Binding:
    """The ``Binding`` of ``name``, its servers from the session fixtures."""
    run = unique("srv").replace("-", "_")
    if name == "kafka":
        host, port = _split(request.getfixturevalue("kafka_bootstrap"))
        from .conftest import KAFKA_CONSUMER

        config = {"config": KAFKA_CONSUMER}
        return Binding(
            name, {"host": host, "kafkaport": port, "run": run}, config, config
        )
    if name in ("mqtt5", "mqtt3"):
        port = str(request.getfixturevalue("mqtt_port"))
        return Binding(
            name,
            {"host": HOST, "mqttport": port, "run": run},
            {"client_id": "rx-" + run},
            {"client_id": "dlq-" + run},
            reasons=name == "mqtt5",
        )
    if name == "amqp":
        url = request.getfixturevalue("amqp_url")
        request.getfixturevalue("amqp_login")
        host, port = _split(url.rsplit("@", 1)[-1])
        return Binding(name, {"host": host, "amqpport": port, "run": run})
    nats_url = request.getfixturevalue("nats_url")
    host, port = _split(nats_url.split("//", 1)[1])
    where = {"host": host, "natsport": port, "run": run}
    if name == "jetstream":
        return Binding(name, where, {"durable": "rx" + run}, {"durable": "dlq" + run})
    return Binding(name, where, keeps=False)
