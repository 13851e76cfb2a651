"""The catalog of the endpoint broker tests: one message group, and endpoints for every
binding and role pointing at the test servers through placeholders only.

Placeholders: ``{host}`` and the servers' ports (``{kafkaport}``, ``{mqttport}``, ``{amqpport}``,
``{natsport}``, ``{httpport}``) where the servers listen; ``{run}`` makes every topic, subject,
node and group unique to a test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import pytest

from .conftest import HOST, RABBITMQ_URL, unique

ORDER_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "total": {"type": "number"}},
    "required": ["order_id", "total"],
}


def _message(message_id: str, title: str) -> dict[str, Any]:
    return {
        "messageid": message_id,
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {
            "type": {"value": message_id},
            "source": {"type": "uritemplate", "value": "/shops/{shop}"},
        },
        "dataschemaformat": "JsonSchema/draft-07",
        "dataschema": {**ORDER_SCHEMA, "title": title},
    }


GROUPS = ["/messagegroups/svc.orders"]


def _endpoint(
    usage: list[str],
    protocol: str,
    uri: str | None,
    options: dict[str, Any],
    *,
    bootstrap: str | None = None,
    authorization: list[dict[str, str]] | None = None,
    mode: str | None = None,
    groups: list[str] = GROUPS,
) -> dict[str, Any]:
    entry: dict[str, Any] = (
        {"bootstrap.servers": [bootstrap]} if bootstrap is not None else {"uri": uri}
    )
    protocoloptions: dict[str, Any] = {"endpoints": [entry], **options}
    if authorization:
        protocoloptions["authorization"] = authorization
    out: dict[str, Any] = {
        "usage": usage,
        "protocol": protocol,
        "protocoloptions": protocoloptions,
        "messagegroups": groups,
        "envelope": "CloudEvents/1.0",
    }
    if mode is not None:
        out["envelopeoptions"] = {"mode": mode}
    return out


KAFKA = "{host}:{kafkaport}"
MQTT = "mqtt://{host}:{mqttport}"
AMQP = "amqp://{host}:{amqpport}"
NATS = "nats://{host}:{natsport}"
HTTP = "http://{host}:{httpport}"
PLAIN = [{"type": "Plain"}]

CATALOG: dict[str, Any] = {
    "messagegroups": {
        "svc.orders": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                "svc.OrderPlaced": _message("svc.OrderPlaced", "OrderPlaced"),
                "svc.OrderCancelled": _message("svc.OrderCancelled", "OrderCancelled"),
            },
        },
        "svc.audit": {
            "envelope": "CloudEvents/1.0",
            "messages": {"svc.AuditNote": _message("svc.AuditNote", "AuditNote")},
        },
        "svc.jobs": {
            "envelope": "CloudEvents/1.0",
            "messages": {"svc.JobQueued": _message("svc.JobQueued", "JobQueued")},
        },
    },
    "endpoints": {
        # Kafka: a topic with its producer and a consumer group
        "svc.kafka.out": _endpoint(
            ["producer"], "KAFKA", None, {"topic": "orders-{run}", "acks": -1}, bootstrap=KAFKA
        ),
        "svc.kafka.in": _endpoint(
            ["consumer"],
            "KAFKA",
            None,
            {
                "topic": "orders-{run}",
                "consumergroup": "billing-{run}",
                "autooffsetreset": "earliest",
                "enableautocommit": False,
            },
            bootstrap=KAFKA,
        ),
        "svc.kafka.subscribe": _endpoint(
            ["subscriber"],
            "KAFKA",
            None,
            {"topic": "orders-{run}"},
            bootstrap=KAFKA,
        ),
        "svc.kafka.structured": _endpoint(
            ["producer"], "KAFKA", None, {"topic": "orders-{run}"}, bootstrap=KAFKA,
            mode="structured",
        ),
        # MQTT 5.0 and 3.1.1: publish topic, subscription filter, shared group, session
        "svc.mqtt5.out": _endpoint(
            ["producer"], "MQTT/5.0", MQTT, {"topic": "shops/{run}/orders", "qos": 1}
        ),
        "svc.mqtt5.in": _endpoint(
            ["subscriber", "consumer"],
            "MQTT/5.0",
            MQTT,
            {
                "topicfilter": "shops/{run}/+",
                "qos": 1,
                "sharedsubscriptiongroup": "billing{run}",
                "cleanstart": False,
                "sessionexpiryinterval": 300,
            },
        ),
        "svc.mqtt5.will": _endpoint(
            ["producer"],
            "MQTT/5.0",
            MQTT,
            {
                "topic": "shops/{run}/orders",
                "qos": 1,
                "willtopic": "shops/{run}/gone",
                "willmessage": "/messagegroups/svc.orders/messages/svc.OrderCancelled",
            },
        ),
        "svc.mqtt3.out": _endpoint(
            ["producer"], "MQTT/3.1.1", MQTT, {"topic": "shops3/{run}/orders", "qos": 1},
            mode="structured",
        ),
        "svc.mqtt3.in": _endpoint(
            ["subscriber", "consumer"],
            "MQTT/3.1.1",
            MQTT,
            {"topicfilter": "shops3/{run}/#", "qos": 1, "cleansession": False},
        ),
        "svc.mqtt.secure": _endpoint(
            ["subscriber", "consumer"],
            "MQTT/5.0",
            MQTT,
            {"topicfilter": "secure/{run}/#", "qos": 1},
            authorization=PLAIN,
        ),
        "svc.mqtt.secure.out": _endpoint(
            ["producer"], "MQTT/5.0", MQTT, {"topic": "secure/{run}/o", "qos": 1},
            authorization=PLAIN,
        ),
        # AMQP 1.0: a queue node, its producer and consumer
        "svc.amqp.out": _endpoint(
            ["producer"], "AMQP/1.0", AMQP, {"node": "/queue/orders-{run}"}
        ),
        "svc.amqp.in": _endpoint(
            ["subscriber", "consumer"],
            "AMQP/1.0",
            AMQP,
            {"node": "/queue/orders-{run}", "link-properties": {"service": "billing"}},
        ),
        # NATS: a subject and a queue-group subscription
        "svc.nats.out": _endpoint(
            ["producer"], "NATS", NATS, {"subject": "orders.{run}.placed"}
        ),
        "svc.nats.in": _endpoint(
            ["subscriber", "consumer"],
            "NATS",
            NATS,
            {"subjectfilter": "orders.{run}.>", "queuegroup": "billing"},
        ),
        "svc.nats.secure.out": _endpoint(
            ["producer"], "NATS", NATS, {"subject": "secure.{run}"}, authorization=PLAIN
        ),
        "svc.nats.secure.in": _endpoint(
            ["subscriber", "consumer"], "NATS", NATS, {"subjectfilter": "secure.{run}"},
            authorization=PLAIN,
        ),
        # NATS JetStream: a stream the producer creates when absent, a durable consumer
        "svc.nats.js.out": _endpoint(
            ["producer"], "NATS", NATS,
            {"subject": "jobs.{run}.queued",
             "jetstream": {"stream": "JOBS_{run}", "create": True, "subjects": ["jobs.{run}.>"],
                           "storage": "file"}},
            groups=["/messagegroups/svc.jobs"],
        ),
        "svc.nats.js.in": _endpoint(
            ["consumer"], "NATS", NATS,
            {"subjectfilter": "jobs.{run}.>",
             "jetstream": {"stream": "JOBS_{run}", "durable": "workers_{run}", "ackwait": 2,
                           "maxdeliver": 20, "maxackpending": 50}},
            groups=["/messagegroups/svc.jobs"],
        ),
        # HTTP: a webhook target (producer) and a pull consumer
        "svc.http.hook": _endpoint(
            ["producer"],
            "HTTP",
            HTTP + "/hooks/{run}",
            {"method": "POST", "headers": [{"name": "X-Service", "value": "billing"}],
             "apikeyname": "X-Hook-Key"},
            authorization=[{"type": "APIKey"}],
        ),
        "svc.http.pull": _endpoint(
            ["consumer"], "HTTP", HTTP + "/hooks/{run}", {"method": "GET"}
        ),
    },
}


# ------------------------------------------------------------------ fixtures and helpers


@pytest.fixture(scope="session", name="svc")
def svc_fixture(tmp_path_factory: pytest.TempPathFactory, generated: Any) -> ModuleType:
    """The catalog generated as a package (its ``ENDPOINTS`` are under test)."""
    folder = tmp_path_factory.getbasetemp() / "svc-endpoints"
    folder.mkdir(exist_ok=True)
    path = folder / "svc.json"
    path.write_text(json.dumps(CATALOG, indent=2))
    return generated(path, package="svc_endpoints")  # type: ignore[no-any-return]


@pytest.fixture(scope="session", name="EP")
def endpoints_fixture(svc: ModuleType) -> Mapping[str, Any]:
    return svc.ENDPOINTS  # type: ignore[no-any-return]


def order(svc: ModuleType, n: int, message: str = "svc.OrderPlaced") -> Any:
    return svc.MESSAGES[message].create({"order_id": f"o-{n}", "total": float(n)}, shop="s1")


class Inbox:
    """An endpoint dispatcher recording what its handlers got and what it dead-lettered."""

    def __init__(self, ep: Any, **kwargs: Any) -> None:
        self.events: list[Any] = []
        self.dead: list[tuple[Any, str, str]] = []
        self.dispatcher = ep.dispatcher(
            dead_letter=lambda wire, reason, detail: self.dead.append((wire, reason, detail)),
            **kwargs,
        )
        for message_id in ep.message_ids:
            self.dispatcher.on(message_id)(self.handle)

    def handle(self, event: Any, params: dict[str, str]) -> None:
        self.events.append(event)

    def ids(self) -> list[str]:
        return [e.data.order_id for e in self.events]


def _split(hostport: str) -> tuple[str, str]:
    host, _, port = hostport.rpartition(":")
    return host, port


@pytest.fixture(name="kafka_where")
def kafka_where_fixture(kafka_bootstrap: str) -> dict[str, str]:
    host, port = _split(kafka_bootstrap)
    return {"host": host, "kafkaport": port, "run": unique("ep")}


@pytest.fixture(name="mqtt_where")
def mqtt_where_fixture(mqtt_port: int) -> dict[str, str]:
    return {"host": HOST, "mqttport": str(mqtt_port), "run": unique("ep")}


@pytest.fixture(name="amqp_where")
def amqp_where_fixture(amqp_url: str) -> dict[str, str]:
    host, port = _split(amqp_url.rsplit("@", 1)[-1])
    return {"host": host, "amqpport": port, "run": unique("ep")}


@pytest.fixture(name="amqp_login")
def amqp_login_fixture(amqp_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """RabbitMQ's test login, from the environment as a deployment would set it."""
    userinfo = RABBITMQ_URL.split("//", 1)[1].rsplit("@", 1)[0]
    user, _, password = userinfo.partition(":")
    monkeypatch.setenv("XRGEN_USERNAME", user)
    monkeypatch.setenv("XRGEN_PASSWORD", password)


@pytest.fixture(name="nats_where")
def nats_where_fixture(nats_url: str) -> dict[str, str]:
    host, port = _split(nats_url.split("//", 1)[1])
    return {"host": host, "natsport": port, "run": unique("ep").replace("-", "_")}
