"""catalogs/endpoints (one endpoint per pattern of the xRegistry 1.0-rc4 endpoint model) through
the generated package: ``ENDPOINTS`` field by field, ``NAME.endpoints.<name>``, the endpoint
dispatchers (restricted to the endpoint's messages), the endpoint options that reach the
messages as defaults, and ``import NAME`` not loading the endpoints."""

from __future__ import annotations

import os
import subprocess
import sys
from types import MappingProxyType, ModuleType
from typing import Any

import pytest
from xrgen_runtime.bindings import kafka, mqtt
from xrgen_runtime.endpoints import Authorization, Endpoint, EndpointError, UnknownEndpoint

from conftest import CATALOGS, Generated

CATALOG = CATALOGS / "endpoints" / "catalog.json"
ORDERS = ("com.example.orders.OrderPlaced", "com.example.orders.OrderShipped")
TELEMETRY = ("com.example.telemetry.Reading", "com.example.telemetry.DeviceOffline")


@pytest.fixture(scope="module")
def pkg(generated: Generated) -> ModuleType:
    return generated(CATALOG, package="endpoints_pkg")


#: endpoint id -> (attribute, every field of the object except package and dispatcher_class)
EXPECTED: dict[str, tuple[str, dict[str, Any]]] = {
    "com.example.orders.producer": ("producer", {
        "usage": ("producer",), "protocol": "KAFKA", "channel": "orders",
        "envelope": "CloudEvents/1.0", "envelope_options": {"mode": "binary"},
        "uris": ("{host}:{port}",),
        "options": {"topic": "orders.{tenant}", "acks": -1, "headers": {"x-origin": "shop"}},
        "authorization": (), "deployed": True, "message_ids": ORDERS,
        "placeholders": ("host", "port", "tenant"),
        "description": "Where the shop publishes order events.",
    }),
    "com.example.orders.billing": ("billing", {
        "usage": ("consumer",), "protocol": "KAFKA", "channel": "orders",
        "envelope": None, "envelope_options": {}, "uris": ("{host}:{port}",),
        "options": {"topic": "orders.{tenant}", "consumergroup": "billing-{tenant}",
                    "autooffsetreset": "earliest", "enableautocommit": False},
        "authorization": (), "deployed": True, "message_ids": ORDERS,
        "placeholders": ("host", "port", "tenant"),
        "description": "Billing reads order events as one consumer group.",
    }),
    "com.example.orders.secure": ("secure", {
        "usage": ("producer",), "protocol": "KAFKA", "channel": "orders",
        "envelope": None, "envelope_options": {}, "uris": ("SASL_SSL://{host}:{port}",),
        "options": {"topic": "orders.{tenant}"},
        "authorization": (Authorization(type="SASL", mechanism="SCRAM-SHA-256",
                                        authorityuri="https://docs.example.com/auth/sasl"),),
        "deployed": True, "message_ids": ORDERS, "placeholders": ("host", "port", "tenant"),
        "description": "The same topic behind SASL/SCRAM and TLS.",
    }),
    "com.example.telemetry.publisher": ("publisher", {
        "usage": ("producer",), "protocol": "MQTT/5.0", "channel": "telemetry",
        "envelope": None, "envelope_options": {}, "uris": ("mqtt://{host}:{port}",),
        "options": {"topic": "devices/{tenant}/readings", "qos": 1, "retain": False},
        "authorization": (), "deployed": True, "message_ids": TELEMETRY,
        "placeholders": ("host", "port", "tenant"), "description": "Devices publish readings here.",
    }),
    "com.example.telemetry.dashboard": ("dashboard", {
        "usage": ("subscriber", "consumer"), "protocol": "MQTT/5.0", "channel": "telemetry",
        "envelope": None, "envelope_options": {}, "uris": ("mqtt://{host}:{port}",),
        "options": {"topicfilter": "devices/{tenant}/#", "sharedsubscriptiongroup": "dashboard",
                    "qos": 1, "cleanstart": False, "sessionexpiryinterval": 300,
                    "willtopic": "devices/{tenant}/status",
                    # the catalog's xid, resolved to the message's id
                    "willmessage": "com.example.telemetry.DeviceOffline"},
        "authorization": (), "deployed": True, "message_ids": TELEMETRY,
        "placeholders": ("host", "port", "tenant"),
        "description": "Dashboard instances share the readings of all devices.",
    }),
    "com.example.legacy.device": ("device", {
        "usage": ("producer",), "protocol": "MQTT/3.1.1", "channel": None,
        "envelope": None, "envelope_options": {}, "uris": ("mqtt://{host}:{port}",),
        "options": {"topic": "legacy/{tenant}/{device}/status", "qos": 1, "cleansession": True},
        "authorization": (), "deployed": True,
        "message_ids": ("com.example.legacy.StatusChanged",),
        "placeholders": ("device", "host", "port", "tenant"),
        "description": "Older devices report their status with MQTT 3.1.1.",
    }),
    "com.example.legacy.monitor": ("monitor", {
        "usage": ("subscriber", "consumer"), "protocol": "MQTT/3.1.1", "channel": None,
        "envelope": None, "envelope_options": {}, "uris": ("mqtt://{host}:{port}",),
        "options": {"topicfilter": "legacy/{tenant}/+/status", "qos": 1, "cleansession": False},
        "authorization": (), "deployed": True,
        "message_ids": ("com.example.legacy.StatusChanged",),
        "placeholders": ("host", "port", "tenant"),
        "description": "A monitor of older devices keeps its session.",
    }),
    "com.example.jobs.submit": ("submit", {
        "usage": ("producer",), "protocol": "AMQP/1.0", "channel": "jobs",
        "envelope": None, "envelope_options": {}, "uris": ("amqp://{host}:{port}",),
        "options": {"node": "/queue/jobs-{tenant}", "link-properties": {"x-origin": "scheduler"},
                    "sender-settle-mode": "unsettled"},
        "authorization": (), "deployed": True, "message_ids": ("com.example.jobs.JobQueued",),
        "placeholders": ("host", "port", "tenant"), "description": "Jobs are queued here.",
    }),
    "com.example.jobs.workers": ("workers", {
        "usage": ("consumer",), "protocol": "AMQP/1.0", "channel": "jobs",
        "envelope": None, "envelope_options": {}, "uris": ("amqp://{host}:{port}",),
        "options": {"node": "/queue/jobs-{tenant}",
                    "link-properties": {"x-worker-pool": "default"},
                    "distribution-mode": "move", "receiver-settle-mode": "first"},
        "authorization": (), "deployed": True, "message_ids": ("com.example.jobs.JobQueued",),
        "placeholders": ("host", "port", "tenant"),
        "description": "Workers take jobs from the queue, one worker per job.",
    }),
    "com.example.alerts.raise": ("raise_", {
        "usage": ("producer",), "protocol": "NATS", "channel": "alerts",
        "envelope": None, "envelope_options": {}, "uris": ("nats://{host}:{port}",),
        "options": {"subject": "alerts.{tenant}.raised"},
        "authorization": (), "deployed": True, "message_ids": ("com.example.alerts.AlertRaised",),
        "placeholders": ("host", "port", "tenant"),
        "description": "Alerts are raised on a concrete subject.",
    }),
    "com.example.alerts.handlers": ("handlers", {
        "usage": ("subscriber", "consumer"), "protocol": "NATS", "channel": "alerts",
        "envelope": None, "envelope_options": {}, "uris": ("nats://{host}:{port}",),
        "options": {"subjectfilter": "alerts.{tenant}.*", "queuegroup": "handlers"},
        "authorization": (), "deployed": True, "message_ids": ("com.example.alerts.AlertRaised",),
        "placeholders": ("host", "port", "tenant"),
        "description": "Alert handlers share the work in one queue group.",
    }),
    "com.example.invoices.webhook": ("webhook", {
        "usage": ("producer",), "protocol": "HTTP", "channel": None,
        "envelope": "CloudEvents/1.0",
        "envelope_options": {"mode": "structured", "format": "application/cloudevents+json"},
        "uris": ("http://{host}:{port}/invoices",),
        "options": {"method": "POST", "headers": ({"name": "x-tenant", "value": "{tenant}"},),
                    "query": {"source": "catalog"}, "apikeyname": "x-api-key", "apikeyin": "header"},
        "authorization": (Authorization(type="APIKey",
                                        authorityuri="https://docs.example.com/auth/apikey"),),
        "deployed": True, "message_ids": ("com.example.invoices.InvoiceIssued",),
        "placeholders": ("host", "port", "tenant"),
        "description": "A billing service accepts invoices pushed to it (its own message).",
    }),
    "com.example.metrics.template": ("template", {
        "usage": ("producer",), "protocol": "KAFKA", "channel": None,
        "envelope": None, "envelope_options": {}, "uris": ("{host}:{port}",),
        "options": {"topic": "metrics.{region}.{tenant}"},
        "authorization": (), "deployed": False,
        "message_ids": ("com.example.metrics.MetricSampled",),
        "placeholders": ("host", "port", "region", "tenant"),
        "description": "A pattern, not a deployed endpoint: every deployment supplies its broker and region.",
    }),
}  # fmt: skip


def _plain(value: Any) -> Any:
    """The runtime freezes JSON values (read-only mappings, tuples): compare them as dicts."""
    if isinstance(value, MappingProxyType | dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


@pytest.mark.parametrize("endpoint_id", sorted(EXPECTED))
def test_every_field_of_every_endpoint(pkg: ModuleType, endpoint_id: str) -> None:
    attribute, fields = EXPECTED[endpoint_id]
    ep = pkg.ENDPOINTS[endpoint_id]
    assert isinstance(ep, Endpoint)
    assert getattr(pkg.endpoints, attribute) is ep
    assert ep.id == endpoint_id and ep.package == "endpoints_pkg"
    for name, value in fields.items():
        assert _plain(getattr(ep, name)) == value, name
    if set(ep.usage) == {"producer"} and ep.protocol != "HTTP":  # it receives nothing
        assert ep.dispatcher_class is None
        with pytest.raises(EndpointError, match="it only sends, so it has no dispatcher"):
            ep.dispatcher()
    else:
        assert ep.dispatcher_class.__module__ == "endpoints_pkg.consumer"


def test_endpoints_mapping_is_complete_and_read_only(pkg: ModuleType) -> None:
    assert sorted(pkg.ENDPOINTS) == sorted(EXPECTED)
    with pytest.raises(TypeError):
        pkg.ENDPOINTS["x"] = None
    assert pkg.ENDPOINTS is pkg.endpoints.ENDPOINTS


def test_a_mistyped_endpoint_id_names_the_closest(pkg: ModuleType) -> None:
    with pytest.raises(KeyError) as raised:
        pkg.ENDPOINTS["com.example.orders.biling"]
    assert isinstance(raised.value, UnknownEndpoint)
    assert str(raised.value).startswith(
        "no endpoint 'com.example.orders.biling'; did you mean 'com.example.orders.billing'"
    )
    with pytest.raises(UnknownEndpoint, match="the catalog declares 'com.example.alerts.handlers', "):
        pkg.ENDPOINTS["zzz"]
    assert pkg.ENDPOINTS.get("zzz") is None and "zzz" not in pkg.ENDPOINTS


def test_only_receiving_endpoints_have_dispatcher_classes(pkg: ModuleType) -> None:
    classes = {n for n in vars(pkg.consumer) if n.endswith("Dispatcher")}
    for ep in pkg.ENDPOINTS.values():
        if ep.dispatcher_class is None:
            assert set(ep.usage) == {"producer"} and ep.protocol != "HTTP", ep.id
        else:
            assert ep.dispatcher_class.__name__ in classes
    assert "PublisherDispatcher" not in classes and "SubmitDispatcher" not in classes


def test_an_endpoint_dispatcher_takes_the_endpoint_messages_only(pkg: ModuleType) -> None:
    ep = pkg.ENDPOINTS["com.example.orders.billing"]
    dead: list[str] = []
    d = ep.dispatcher(dead_letter=lambda _wire, reason, _detail: dead.append(reason))
    assert isinstance(d, pkg.consumer.BillingDispatcher)
    assert d.message_ids == ORDERS
    got: list[str] = []
    d.on_order_placed(lambda event, params: got.append(event.data.orderid))
    assert not hasattr(d, "on_reading")  # a typed registration of this endpoint's messages only
    with pytest.raises(KeyError):
        d.on("com.example.telemetry.Reading")(lambda event, params: None)
    placed = pkg.MESSAGES["com.example.orders.OrderPlaced"].create({"orderid": "o-1"}, tenant="t1", orderid="o-1")
    d.dispatch(kafka.encode(placed, mode="binary"))
    reading = pkg.MESSAGES["com.example.telemetry.Reading"].create({"value": 1.0}, tenant="t1")
    d.dispatch(kafka.encode(reading, mode="binary", topic="orders.t1"))
    assert got == ["o-1"] and len(dead) == 1


def test_endpoint_options_reach_the_messages_as_defaults(pkg: ModuleType) -> None:
    """The caller gives no destination: the endpoints' topic, subject, node, method ... are the
    messages' defaults (only the placeholders they hold are arguments)."""
    create = {m: pkg.MESSAGES[m].create for m in pkg.MESSAGES}
    placed = create["com.example.orders.OrderPlaced"]({"orderid": "o-7"}, tenant="t1", orderid="o-7")
    assert (placed.binding.topic, placed.binding.key) == ("orders.t1", b"o-7")
    assert dict(placed.binding.headers) == {"x-origin": b"shop"}
    reading = create["com.example.telemetry.Reading"]({"value": 2.5}, tenant="t1")
    assert (reading.binding.topic, reading.binding.qos) == ("devices/t1/readings", 1)
    assert mqtt.encode(reading, mode="binary").topic == "devices/t1/readings"
    offline = create["com.example.telemetry.DeviceOffline"]({"reason": "gone"}, tenant="t1")
    assert offline.binding.topic == "devices/t1/status"  # the message's own topic wins
    status = create["com.example.legacy.StatusChanged"]({"status": "up"}, tenant="t1", device="d 1")
    assert (status.binding.topic, status.binding.version) == ("legacy/t1/d%201/status", "3.1.1")
    job = create["com.example.jobs.JobQueued"]({"jobid": "j"}, tenant="t1")
    assert job.binding.address == "/queue/jobs-t1"
    alert = create["com.example.alerts.AlertRaised"]({"severity": 2}, tenant="t1")
    assert alert.binding.subject == "alerts.t1.raised"  # the producer's subject, not the filter
    invoice = create["com.example.invoices.InvoiceIssued"]({"invoiceid": "i"}, tenant="t1")
    assert invoice.binding.method == "POST"
    assert dict(invoice.binding.query) == {"source": "catalog"}
    sample = create["com.example.metrics.MetricSampled"]({"name": "n", "value": 1}, tenant="t", region="eu")
    assert sample.binding.topic == "metrics.eu.t"


def test_import_does_not_load_the_endpoints(pkg: ModuleType) -> None:
    root = os.path.dirname(os.path.dirname(pkg.__file__ or ""))
    code = (
        "import sys, endpoints_pkg\n"
        "assert 'endpoints_pkg.endpoints' not in sys.modules\n"
        "assert 'xrgen_runtime.endpoints' not in sys.modules\n"
        "assert endpoints_pkg.ENDPOINTS['com.example.orders.billing'].protocol == 'KAFKA'\n"
        "assert 'endpoints_pkg.endpoints' in sys.modules\n"
        "from endpoints_pkg import ENDPOINTS, endpoints\n"
        "assert endpoints.ENDPOINTS is ENDPOINTS\n"
    )
    env = {**os.environ, "PYTHONPATH": root}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
