"""One rule for placeholder values, through the real servers: what a producer endpoint's
messages are published to is what the matching consumer endpoint subscribes to, for values
with spaces, slashes, wildcard characters and non-ASCII text, on MQTT 5.0 and 3.1.1, AMQP 1.0,
NATS, Kafka and HTTP; the handler gets the value back in ``params``. An address the protocol
forbids (a Kafka topic with ``%``) is refused before anything connects, by every role.
"""

from __future__ import annotations

import asyncio
import json
from types import ModuleType
from typing import Any

import pytest
from netutil import free_port
from xrgen_runtime.bindings.http._receipts import HttpSendError

from .conftest import HOST, KAFKA_CONSUMER, RABBITMQ_URL, unique
from .endpoints_catalog import ORDER_SCHEMA, amqp_login_fixture  # noqa: F401  (fixture)
from .test_endpoints import serving

#: spaces, slashes, wildcards of every protocol, non-ASCII text
VALUES = ["north fleet", "jobs/eu", "a+b#c*>", "été ☃"]
#: values Kafka can carry in a topic name (they percent-encode to themselves)
KAFKA_VALUES = ["eu.north_1", "west-2"]


def _group(name: str) -> dict[str, Any]:
    message = {
        "messageid": f"ph.{name}.Moved",
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {
            "type": {"value": f"ph.{name}.Moved"},
            "source": {"type": "uritemplate", "value": "/fleets/{fleet}"},
        },
        "dataschemaformat": "JsonSchema/draft-07",
        "dataschema": {**ORDER_SCHEMA, "title": "Moved"},
    }
    return {"envelope": "CloudEvents/1.0", "messages": {message["messageid"]: message}}


def _pair(
    name: str,
    protocol: str,
    uri: str,
    out: dict[str, Any],
    into: dict[str, Any],
    usage: str,
) -> dict[str, Any]:
    def endpoint(roles: list[str], options: dict[str, Any]) -> dict[str, Any]:
        entry = {"bootstrap.servers": [uri]} if protocol == "KAFKA" else {"uri": uri}
        out = {
            "usage": roles,
            "protocol": protocol,
            "protocoloptions": {"endpoints": [entry], **options},
            "messagegroups": [f"/messagegroups/ph.{name}"],
            "envelope": "CloudEvents/1.0",
        }
        if (
            protocol == "MQTT/3.1.1"
        ):  # no properties: CloudEvents in structured mode only
            out["envelopeoptions"] = {"mode": "structured"}
        return out

    return {
        f"ph.{name}.out": endpoint(["producer"], out),
        f"ph.{name}.in": endpoint([usage], into),
    }


CATALOG: dict[str, Any] = {
    "messagegroups": {
        f"ph.{n}": _group(n) for n in ("mqtt5", "mqtt3", "amqp", "nats", "kafka")
    },
    "endpoints": {
        **_pair(
            "mqtt5",
            "MQTT/5.0",
            "mqtt://{host}:{port}",
            {"topic": "ph/{run}/{fleet}/moved", "qos": 1},
            {"topicfilter": "ph/{run}/{fleet}/+", "qos": 1},
            "subscriber",
        ),
        **_pair(
            "mqtt3",
            "MQTT/3.1.1",
            "mqtt://{host}:{port}",
            {"topic": "ph3/{run}/{fleet}/moved", "qos": 1},
            {"topicfilter": "ph3/{run}/{fleet}/moved", "qos": 1},
            "subscriber",
        ),
        **_pair(
            "amqp",
            "AMQP/1.0",
            "amqp://{host}:{port}",
            {"node": "/queue/ph-{run}-{fleet}"},
            {"node": "/queue/ph-{run}-{fleet}"},
            "consumer",
        ),
        **_pair(
            "nats",
            "NATS",
            "nats://{host}:{port}",
            {"subject": "ph.{run}.{fleet}.moved"},
            {"subjectfilter": "ph.{run}.{fleet}.>"},
            "subscriber",
        ),
        **_pair(
            "kafka",
            "KAFKA",
            "{host}:{port}",
            {"topic": "ph-{run}-{fleet}"},
            {
                "topic": "ph-{run}-{fleet}",
                "consumergroup": "g-{run}",
                "autooffsetreset": "earliest",
            },
            "consumer",
        ),
        "ph.http.hook": {
            "usage": ["producer"],
            "protocol": "HTTP",
            "protocoloptions": {
                "endpoints": [{"uri": "http://{host}:{port}/ph/{run}/{fleet}"}]
            },
            "messagegroups": ["/messagegroups/ph.http"],
            "envelope": "CloudEvents/1.0",
        },
    },
}
CATALOG["messagegroups"]["ph.http"] = _group("http")


@pytest.fixture(scope="module")
def ph(tmp_path_factory: pytest.TempPathFactory, generated: Any) -> ModuleType:
    path = tmp_path_factory.mktemp("placeholders") / "ph.json"
    path.write_text(json.dumps(CATALOG, indent=2))
    return generated(path, package="ph_endpoints")  # type: ignore[no-any-return]


class Got:
    def __init__(self, ep: Any) -> None:
        self.params: list[dict[str, str]] = []
        self.dead: list[str] = []
        self.dispatcher = ep.dispatcher(
            dead_letter=lambda w, r, d: self.dead.append(f"{r}: {d}")
        )
        for message_id in ep.message_ids:
            self.dispatcher.on(message_id)(
                lambda event, params: self.params.append(params)
            )


def _moved(ph: ModuleType, name: str, **values: str) -> Any:
    return ph.MESSAGES[f"ph.{name}.Moved"].create(
        {"order_id": "o", "total": 1.0}, **values
    )


@pytest.mark.parametrize("version", ["mqtt5", "mqtt3"])
def test_mqtt(ph: ModuleType, mqtt_port: int, version: str) -> None:
    run = unique("ph")
    where = {"host": HOST, "port": str(mqtt_port), "run": run}
    for fleet in VALUES:
        got = Got(ph.ENDPOINTS[f"ph.{version}.in"])
        with ph.ENDPOINTS[f"ph.{version}.in"].receiver(**where, fleet=fleet) as r:
            with ph.ENDPOINTS[f"ph.{version}.out"].sender(**where, fleet=fleet) as s:
                s.send(_moved(ph, version, fleet=fleet, run=run)).result(10)
            assert r.run(got.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
        assert got.params == [{"fleet": fleet, "run": run}] and not got.dead


def test_amqp(ph: ModuleType, amqp_url: str, amqp_login: None) -> None:
    host, port = RABBITMQ_URL.rsplit("@", 1)[1].split(":")
    run = unique("ph")
    where = {"host": host, "port": port, "run": run}
    for fleet in VALUES:
        got = Got(ph.ENDPOINTS["ph.amqp.in"])
        with ph.ENDPOINTS["ph.amqp.out"].sender(**where, fleet=fleet) as s:
            s.send(_moved(ph, "amqp", fleet=fleet, run=run)).result(10)
        with ph.ENDPOINTS["ph.amqp.in"].receiver(**where, fleet=fleet) as r:
            assert r.run(got.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
        assert got.params == [{"fleet": fleet, "run": run}] and not got.dead


def test_nats(ph: ModuleType, nats_url: str) -> None:
    host, port = nats_url.split("//", 1)[1].split(":")
    run = unique("ph").replace("-", "_")
    where = {"host": host, "port": port, "run": run}

    async def main() -> None:
        for fleet in VALUES:
            got = Got(ph.ENDPOINTS["ph.nats.in"])
            async with ph.ENDPOINTS["ph.nats.in"].async_receiver(
                **where, fleet=fleet
            ) as r:
                async with ph.ENDPOINTS["ph.nats.out"].async_sender(
                    **where, fleet=fleet
                ) as s:
                    await s.send(_moved(ph, "nats", fleet=fleet, run=run))
                handled = await r.run(
                    got.dispatcher.dispatch, max_messages=1, idle_timeout=10
                )
            assert handled == 1
            assert got.params == [{"fleet": fleet, "run": run}] and not got.dead

    asyncio.run(main())


def test_kafka(ph: ModuleType, kafka_bootstrap: str) -> None:
    from xrgen_runtime.endpoints import EndpointError

    host, port = kafka_bootstrap.rsplit(":", 1)
    run = unique("ph")
    where = {"host": host, "port": port, "run": run}
    for fleet in KAFKA_VALUES:
        got = Got(ph.ENDPOINTS["ph.kafka.in"])
        with ph.ENDPOINTS["ph.kafka.out"].sender(**where, fleet=fleet) as s:
            s.send(_moved(ph, "kafka", fleet=fleet, run=run)).result(30)
        with ph.ENDPOINTS["ph.kafka.in"].receiver(
            **where, fleet=fleet, config=KAFKA_CONSUMER
        ) as r:
            assert r.run(got.dispatcher.dispatch, max_messages=1, idle_timeout=30) == 1
        assert got.params == [{"fleet": fleet, "run": run}] and not got.dead
    for fleet in VALUES:  # every one percent-encodes to a '%': no Kafka topic name
        for role in ("out", "in"):
            with pytest.raises(EndpointError, match="is not a Kafka topic name"):
                build = ph.ENDPOINTS[f"ph.kafka.{role}"]
                (build.sender if role == "out" else build.receiver)(
                    **where, fleet=fleet
                )


def test_http(ph: ModuleType) -> None:
    port = free_port()
    run = unique("ph")
    where = {"host": HOST, "port": str(port), "run": run}
    hook = ph.ENDPOINTS["ph.http.hook"]
    for fleet in VALUES:
        got = Got(hook)
        # the served endpoint answers its own path only (404 elsewhere)
        app = hook.receiver(
            **where, fleet=fleet, on_message=got.dispatcher.dispatch_async
        )
        with serving(app, port), hook.sender(**where, fleet=fleet) as s:
            assert s.send(_moved(ph, "http", fleet=fleet)).result().status == 202
            other = "other" if fleet != "other" else "x"
            with hook.sender(**where, fleet=other) as elsewhere:
                with pytest.raises(HttpSendError) as refused:
                    elsewhere.send(_moved(ph, "http", fleet=fleet)).result()
                assert refused.value.response.status == 404
        assert got.params == [{"fleet": fleet}] and not got.dead
