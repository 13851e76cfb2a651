"""``Endpoint.config``: the client configuration of every binding and role, every
authorization type per client library, credentials from arguments and environment variables,
and secrets kept out of ``repr`` and error messages. No server: the brokers are in
tests/brokers/test_endpoints*.py."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from acme_samples import SAMPLES
from xrgen_runtime.endpoints import (
    Authorization,
    Endpoint,
    EndpointError,
    MissingCredential,
    Secret,
)

SECRET = "s3cr3t-value"


class _Dispatcher:
    def __init__(self, dead_letter: Any = None) -> None:
        self.dead_letter = dead_letter


def make(
    protocol: str,
    usage: tuple[str, ...],
    uris: tuple[str, ...],
    options: dict[str, Any] | None = None,
    *auth: Authorization,
    **fields: Any,
) -> Endpoint[_Dispatcher]:
    from xrgen_runtime.endpoints._model import placeholders_of

    options = options or {}
    found = placeholders_of(options, placeholders_of(uris, set()))
    values: dict[str, Any] = {
        "id": "com.acme.Test",
        "usage": usage,
        "protocol": protocol,
        "channel": None,
        "envelope": "CloudEvents/1.0",
        "envelope_options": {},
        "uris": uris,
        "options": options,
        "authorization": auth,
        "deployed": True,
        "message_ids": (),
        "placeholders": tuple(sorted(found)),
        "package": "acme",
        "dispatcher_class": _Dispatcher,
    }
    values.update(fields)
    return Endpoint(**values)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import os

    for name in list(os.environ):
        if name.startswith("XRGEN_") and name not in (
            "XRGEN_KAFKA_BOOTSTRAP",
            "XRGEN_PULSAR_URL",
            "XRGEN_AMQP_URL",
            "XRGEN_MQTT_PORT",
            "XRGEN_NATS_URL",
            "XRGEN_SPARK_JARS",
            "XRGEN_WHEEL_TEST",
        ):
            monkeypatch.delenv(name)
    yield


def no_secret(value: object) -> None:
    assert SECRET not in repr(value)


# ---------------------------------------------------------------------------------- Kafka


def test_kafka_producer_and_consumer_config() -> None:
    producer = make("KAFKA", ("producer",), ("PLAINTEXT://b1:9092", "b2:9092"), {"acks": -1})
    assert producer.config() == {"bootstrap.servers": "b1:9092,b2:9092", "acks": -1}
    consumer = make(
        "KAFKA",
        ("consumer",),
        ("b1:9092",),
        {"topic": "t", "consumergroup": "g", "autooffsetreset": "earliest", "enableautocommit": False},
    )
    assert consumer.config() == {
        "bootstrap.servers": "b1:9092",
        "group.id": "g",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    extra = consumer.config(config={"session.timeout.ms": 6000, "group.id": "mine"})
    assert extra["session.timeout.ms"] == 6000 and extra["group.id"] == "mine"


def test_kafka_subscriber_needs_the_callers_group() -> None:
    ep = make("KAFKA", ("subscriber",), ("b:9092",), {"topic": "t"})
    with pytest.raises(EndpointError, match="consumergroup=..."):
        ep.config()
    assert ep.config(consumergroup="new-group")["group.id"] == "new-group"


def test_kafka_scheme_and_bad_uris() -> None:
    assert make("KAFKA", ("producer",), ("SSL://b:9093",)).config()["security.protocol"] == "SSL"
    with pytest.raises(EndpointError, match="scheme 'http'"):
        make("KAFKA", ("producer",), ("http://b:9092",)).config()
    with pytest.raises(EndpointError, match="mixes TLS"):
        make("KAFKA", ("producer",), ("SSL://a:1", "b:2")).config()
    with pytest.raises(EndpointError, match="uris="):
        make("KAFKA", ("producer",), ()).config()


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_kafka_sasl_password_mechanisms(mechanism: str) -> None:
    ep = make("KAFKA", ("producer",), ("SASL_SSL://b:9093",), {}, Authorization("SASL", mechanism))
    config = ep.config(username="svc", password=SECRET)
    assert config["security.protocol"] == "SASL_SSL"
    assert config["sasl.mechanism"] == mechanism
    assert config["sasl.username"] == "svc" and config["sasl.password"] == SECRET
    assert isinstance(config["sasl.password"], Secret)
    no_secret(config)


def test_kafka_plain_type_is_sasl_plain_over_plaintext() -> None:
    ep = make("KAFKA", ("producer",), ("b:9092",), {}, Authorization("Plain"))
    config = ep.config(username="u", password=SECRET)
    assert config["security.protocol"] == "SASL_PLAINTEXT"
    assert config["sasl.mechanism"] == "PLAIN"


def test_kafka_oauthbearer_token_and_client_credentials() -> None:
    ep = make(
        "KAFKA",
        ("producer",),
        ("SASL_SSL://b:9093",),
        {},
        Authorization("SASL", "OAUTHBEARER", authorityuri="https://idp/token"),
    )
    config = ep.config(token=SECRET)
    assert config["sasl.mechanism"] == "OAUTHBEARER"
    token, expiry = config["oauth_cb"]("")
    assert token == SECRET and expiry > 0
    no_secret(config)
    config = ep.config(oauth_client_id="app", oauth_client_secret=SECRET)
    assert config["sasl.oauthbearer.method"] == "oidc"
    assert config["sasl.oauthbearer.client.id"] == "app"
    assert config["sasl.oauthbearer.token.endpoint.url"] == "https://idp/token"
    no_secret(config)
    with pytest.raises(MissingCredential, match="token"):
        ep.config()
    bare = make("KAFKA", ("producer",), ("b:9092",), {}, Authorization("OAuth2"))
    with pytest.raises(EndpointError, match="token endpoint"):
        bare.config(oauth_client_id="app", oauth_client_secret=SECRET)


def test_kafka_x509_and_unsupported_types() -> None:
    ep = make("KAFKA", ("producer",), ("SSL://b:9093",), {}, Authorization("X509Cert"))
    config = ep.config(cert_file="/c.pem", key_file="/k.pem", ca_file="/ca.pem")
    assert config["security.protocol"] == "SSL"
    assert config["ssl.certificate.location"] == "/c.pem"
    assert config["ssl.key.location"] == "/k.pem"
    assert config["ssl.ca.location"] == "/ca.pem"
    unsupported = make("KAFKA", ("producer",), ("b:9092",), {}, Authorization("APIKey"))
    with pytest.raises(EndpointError, match="cannot apply any of its authorization"):
        unsupported.config(api_key=SECRET)


def test_credentials_come_from_arguments_then_endpoint_then_generic_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ep = make("KAFKA", ("producer",), ("b:9092",), {}, Authorization("SASL", "PLAIN"))
    monkeypatch.setenv("XRGEN_USERNAME", "generic")
    monkeypatch.setenv("XRGEN_PASSWORD", "generic-pw")
    assert ep.config()["sasl.username"] == "generic"
    monkeypatch.setenv("XRGEN_COM_ACME_TEST_USERNAME", "specific")
    assert ep.config()["sasl.username"] == "specific"
    assert ep.config(username="argument")["sasl.username"] == "argument"
    assert ep.config()["sasl.password"] == "generic-pw"


def test_the_first_satisfiable_authorization_entry_is_used() -> None:
    ep = make(
        "KAFKA",
        ("producer",),
        ("b:9092",),
        {},
        Authorization("SASL", "SCRAM-SHA-512"),
        Authorization("SASL", "OAUTHBEARER", authorityuri="https://idp/t"),
    )
    assert ep.config(token=SECRET)["sasl.mechanism"] == "OAUTHBEARER"
    assert ep.config(username="u", password=SECRET)["sasl.mechanism"] == "SCRAM-SHA-512"
    chosen = ep.config(authorization="SASL OAUTHBEARER", token=SECRET, username="u", password="p")
    assert chosen["sasl.mechanism"] == "OAUTHBEARER"
    with pytest.raises(EndpointError, match="no authorization 'APIKey'"):
        ep.config(authorization="APIKey")
    with pytest.raises(MissingCredential) as info:
        ep.config()
    text = str(info.value)  # the preferred entry's fields, each with its variables
    assert "SCRAM-SHA-512" in text and "username=..." in text and "XRGEN_COM_ACME_TEST_PASSWORD" in text


# ---------------------------------------------------------------------------------- MQTT


def test_mqtt_producer_config() -> None:
    ep = make(
        "MQTT/5.0",
        ("producer",),
        ("mqtt://broker:1884", "wss://broker/mqtt"),
        {"topic": "plants/{plant}/readings", "qos": 1, "retain": True, "cleanstart": True,
         "sessionexpiryinterval": 60},
    )
    config = ep.config(plant="p1")
    assert config == {
        "host": "broker",
        "port": 1884,
        "version": "5.0",
        "transport": "tcp",
        "clean_start": True,
        "session_expiry": 60,
    }


def test_mqtt_subscriber_filter_shared_group_and_subscribe_options() -> None:
    ep = make(
        "MQTT/5.0",
        ("subscriber", "consumer"),
        ("mqtts://broker",),
        {"topicfilter": "plants/+/readings", "sharedsubscriptiongroup": "billing", "qos": 2,
         "nolocal": True, "retainaspublished": False, "retainhandling": 2, "cleanstart": False},
        Authorization("Plain"),
    )
    with pytest.raises(EndpointError, match="client_id="):
        ep.config(username="u", password=SECRET)
    config = ep.config(username="u", password=SECRET, client_id="svc-1", ca_file="/ca.pem")
    assert config["topics"] == ["$share/billing/plants/+/readings"]
    assert config["qos"] == 2 and config["port"] == 8883
    assert config["no_local"] is True and config["retain_as_published"] is False
    assert config["retain_handling"] == 2
    assert config["clean_start"] is False and config["client_id"] == "svc-1"
    assert config["tls"] == {"ca_certs": "/ca.pem"}
    assert config["username"] == "u" and config["password"] == SECRET
    no_secret(config)


def test_mqtt_311_clean_session_and_token_as_password() -> None:
    ep = make(
        "MQTT/3.1.1",
        ("consumer",),
        ("tcp://broker:1883",),
        {"topicfilter": "a/#", "cleansession": True, "nolocal": True},
        Authorization("OAuth2"),
    )
    config = ep.config(token=SECRET)
    assert config["version"] == "3.1.1" and config["clean_start"] is True
    assert "no_local" not in config  # an MQTT 5 subscribe option
    assert config["password"] == SECRET and config["username"] == ""
    no_secret(config)


def test_mqtt_will_message_is_built_by_the_typed_producer(acme: ModuleType) -> None:
    ep = make(
        "MQTT/5.0",
        ("producer",),
        ("mqtt://broker",),
        {"topic": "t", "willtopic": "acme/{plant}/gone",
         "willmessage": "/messagegroups/com.acme.ops/messages/com.acme.ops.Heartbeat"},
        package=acme.__name__,
    )
    will = ep.config(plant="p9", will=b"bye")["will"]
    assert will.topic == "acme/p9/gone" and will.payload == b"bye"
    alarm = make(
        "MQTT/5.0",
        ("producer",),
        ("mqtt://broker",),
        {"willtopic": "gone", "willmessage": "com.acme.Alarm"},
        package=acme.__name__,
    )
    with pytest.raises(EndpointError, match="will message 'com.acme.Alarm' cannot be built"):
        alarm.config()
    data, kwargs = SAMPLES["com.acme.Alarm"]
    event = acme.MESSAGES["com.acme.Alarm"].create(data, **kwargs)
    will = alarm.config(will=event)["will"]
    assert will.topic == "gone"
    assert dict(will.user_properties)["type"] == "com.acme.Alarm"


def test_mqtt_missing_filter_and_bad_scheme() -> None:
    with pytest.raises(EndpointError, match="topicfilter=..."):
        make("MQTT/5.0", ("subscriber",), ("mqtt://b",)).config()
    with pytest.raises(EndpointError, match="schemes"):
        make("MQTT/5.0", ("producer",), ("amqp://b",)).config()
    with pytest.raises(EndpointError, match="carries no credentials"):
        make("MQTT/5.0", ("producer",), ("mqtt://u:" + SECRET + "@b",)).config()


# ---------------------------------------------------------------------------------- AMQP


def test_amqp_consumer_link_settings() -> None:
    ep = make(
        "AMQP/1.0",
        ("subscriber", "consumer"),
        ("amqp://h1:5672/ignored", "amqp://h2"),
        {"node": "/queue/{q}", "distribution-mode": "copy", "link-properties": {"k": "v"},
         "node-capabilities": ["queue"], "source-filters": {"jms-selector": "a > 1"},
         "terminus-durability": "configuration", "expiry-policy": "never", "timeout": 30,
         "sender-settle-mode": "unsettled", "receiver-settle-mode": "first",
         "connection-properties": {"product": "svc"}, "connection-capabilities": ["ANONYMOUS-RELAY"]},
        Authorization("SASL", "PLAIN"),
    )
    config = ep.config(q="orders", username="u", password=SECRET, prefetch=5)
    assert config["url"] == ["amqp://h1:5672", "amqp://h2:5672"]
    assert config["address"] == "/queue/orders"
    assert config["user"] == "u" and config["password"] == SECRET
    assert config["allowed_mechs"] == "PLAIN"
    assert config["prefetch"] == 5
    assert config["connection_properties"] == {"product": "svc"}
    assert config["connection_capabilities"] == ["ANONYMOUS-RELAY"]
    assert config["link"] == {
        "properties": {"k": "v"},
        "capabilities": ("queue",),
        "durability": "configuration",
        "expiry_policy": "never",
        "timeout": 30,
        "sender_settle_mode": "unsettled",
        "receiver_settle_mode": "first",
        "distribution_mode": "copy",
        "filters": {"jms-selector": "a > 1"},
    }
    no_secret(config)


def test_amqp_producer_node_from_uri_path_and_no_source_options() -> None:
    ep = make("AMQP/1.0", ("producer",), ("amqps://h/orders",), {"distribution-mode": "copy"})
    config = ep.config(token=SECRET)  # no authorization declared: a given token still applies
    assert config["address"] == "orders" and config["url"] == ["amqps://h:5671"]
    assert config["tls"] == {} and config["password"] == SECRET
    assert "link" not in config
    with pytest.raises(EndpointError, match="node=..."):
        make("AMQP/1.0", ("producer",), ("amqp://h",)).config()


def test_amqp_dynamic_receiver_and_token_authorization() -> None:
    ep = make("AMQP", ("consumer",), ("amqp://h",), {"dynamic": True, "durable": True},
              Authorization("OAuth2"))
    config = ep.config(token=SECRET)
    assert config["dynamic"] is True and config["address"] is None
    assert "link" not in config  # durable describes the node; the client creates none
    assert config["password"] == SECRET and config["user"] == ""


# ---------------------------------------------------------------------------------- NATS


def test_nats_sender_and_receiver_config() -> None:
    producer = make("NATS", ("producer",), ("nats://n1:4222", "nats://n2:4222"), {"subject": "s"},
                    Authorization("Plain"))
    config = producer.config(username="u", password=SECRET)
    assert config == {"servers": ["nats://n1:4222", "nats://n2:4222"], "user": "u", "password": SECRET}
    no_secret(config)
    consumer = make("NATS", ("subscriber", "consumer"), ("nats://n1:4222",),
                    {"subjectfilter": "orders.>", "queuegroup": "workers"}, Authorization("APIKey"))
    config = consumer.config(token=SECRET)
    assert config["subject"] == "orders.>" and config["queue"] == "workers"
    assert config["token"] == SECRET
    durable = consumer.config(token=SECRET, durable="billing")
    assert durable["durable"] == "billing" and "queue" not in durable


def test_nats_tls_scheme_builds_an_ssl_context() -> None:
    config = make("NATS", ("producer",), ("tls://n:4222",), {"subject": "s"}).config()
    assert isinstance(config["tls"], ssl.SSLContext)


# ---------------------------------------------------------------------------------- HTTP


def test_http_producer_client_settings() -> None:
    ep = make(
        "HTTP",
        ("producer",),
        ("https://api.example/hooks/{tenant}?v=1",),
        {"method": "put", "headers": [{"name": "X-A", "value": "1"}, {"name": "X-A", "value": "2"}],
         "query": {"src": "{tenant}"}},
    )
    assert ep.config(tenant="t1") == {
        "base_url": "https://api.example:443/hooks/t1/",
        "method": "PUT",
        "headers": [("X-A", "1"), ("X-A", "2")],
        "params": [("v", "1"), ("src", "t1")],
    }


@pytest.mark.parametrize(
    ("auth", "options", "args", "header", "param"),
    [
        (Authorization("APIKey"), {}, {"api_key": SECRET}, ("X-API-Key", SECRET), None),
        (Authorization("APIKey"), {"apikeyname": "key", "apikeyin": "query"},
         {"api_key": SECRET}, None, ("key", SECRET)),
        (Authorization("OAuth2"), {}, {"token": SECRET}, ("Authorization", "Bearer " + SECRET), None),
        (Authorization("Plain"), {}, {"username": "u", "password": SECRET},
         ("Authorization", "Basic dTpzM2NyM3QtdmFsdWU="), None),
        (Authorization("Plain"), {"plainscheme": "query", "plainpasswordfield": "pw"},
         {"username": "u", "password": SECRET}, None, ("pw", SECRET)),
    ],
)
def test_http_authorization(
    auth: Authorization, options: dict[str, Any], args: dict[str, str],
    header: tuple[str, str] | None, param: tuple[str, str] | None,
) -> None:
    ep = make("HTTP", ("producer",), ("http://h:8080/in",), options, auth)
    config = ep.config(**args)
    if header is not None:
        assert header in config["headers"]
    if param is not None:
        assert param in config["params"]
    no_secret(config)


def test_http_form_scheme_and_sasl_are_refused() -> None:
    form = make("HTTP", ("producer",), ("http://h/in",), {"plainscheme": "form"}, Authorization("Plain"))
    with pytest.raises(EndpointError, match="plainscheme 'form'"):
        form.config(username="u", password=SECRET)
    sasl = make("HTTP", ("producer",), ("http://h/in",), {}, Authorization("SASL", "PLAIN"))
    with pytest.raises(EndpointError, match="httpx cannot apply"):
        sasl.config(username="u", password=SECRET)


def test_errors_never_carry_a_secret() -> None:
    ep = make("KAFKA", ("producer",), ("b:9092",), {}, Authorization("SASL", "SCRAM-SHA-256"))
    for call in (
        lambda: ep.config(password=SECRET),
        lambda: ep.config(password=SECRET, topik=1),
        lambda: ep.config(password=SECRET, uris=["http://x"]),
    ):
        with pytest.raises(Exception) as info:
            call()
        assert SECRET not in str(info.value)


@pytest.mark.parametrize("protocol", ["PULSAR", "ROCKETMQ", "BunnyMQ/0.9.1"])
def test_bindings_without_endpoint_options_configure_no_client(protocol: str) -> None:
    ep = make(protocol, ("producer",), ("pulsar://h:6650",))
    assert ep.uris == ("pulsar://h:6650",)  # the data is there
    for call in (ep.config, ep.sender):
        with pytest.raises(EndpointError, match="no client|no runtime binding"):
            call()


# ------------------------------------------------------------------ the docs' table, cell by cell

#: authorization row of docs/endpoints.md -> the entry
ROWS = {
    "Plain": Authorization("Plain"),
    "SASL PLAIN": Authorization("SASL", "PLAIN"),
    "SASL SCRAM-SHA-256": Authorization("SASL", "SCRAM-SHA-256"),
    "SASL SCRAM-SHA-512": Authorization("SASL", "SCRAM-SHA-512"),
    "OAuth2": Authorization("OAuth2", authorityuri="https://idp/token"),
    "SASL OAUTHBEARER": Authorization("SASL", "OAUTHBEARER", authorityuri="https://idp/token"),
    "SASL ANONYMOUS": Authorization("SASL", "ANONYMOUS"),
    "SASL EXTERNAL": Authorization("SASL", "EXTERNAL"),
    "X509Cert": Authorization("X509Cert"),
    "APIKey": Authorization("APIKey"),
}
ALL_CREDENTIALS = {
    "username": "u", "password": SECRET, "token": SECRET, "api_key": SECRET,
    "cert_file": "/c.pem", "key_file": "/k.pem",
}
#: binding -> (protocol, usage, URI, options)
COLUMNS = {
    "kafka": ("KAFKA", ("producer",), "b:9092", {}),
    "mqtt": ("MQTT/5.0", ("producer",), "mqtt://h", {}),
    "amqp": ("AMQP/1.0", ("producer",), "amqp://h/q", {}),
    "nats": ("NATS", ("producer",), "nats://h:4222", {"subject": "s"}),
    "http": ("HTTP", ("producer",), "http://h/in", {}),
}


def _has(config: dict[str, Any], key: str, value: Any) -> bool:
    if key == "headers":
        return value in config.get("headers", ())
    return bool(config.get(key) == value)


#: (row, binding) -> (key, value) the configuration carries, or None: refused
EXPECTED_CELLS: dict[tuple[str, str], tuple[str, Any] | None] = {}
for _row in ROWS:
    for _b in COLUMNS:
        EXPECTED_CELLS[(_row, _b)] = None
EXPECTED_CELLS.update({
    ("Plain", "kafka"): ("sasl.mechanism", "PLAIN"),
    ("SASL PLAIN", "kafka"): ("sasl.mechanism", "PLAIN"),
    ("SASL SCRAM-SHA-256", "kafka"): ("sasl.mechanism", "SCRAM-SHA-256"),
    ("SASL SCRAM-SHA-512", "kafka"): ("sasl.mechanism", "SCRAM-SHA-512"),
    ("OAuth2", "kafka"): ("sasl.mechanism", "OAUTHBEARER"),
    ("SASL OAUTHBEARER", "kafka"): ("sasl.mechanism", "OAUTHBEARER"),
    ("SASL EXTERNAL", "kafka"): ("ssl.certificate.location", "/c.pem"),
    ("X509Cert", "kafka"): ("ssl.certificate.location", "/c.pem"),
    ("Plain", "mqtt"): ("username", "u"),
    ("SASL PLAIN", "mqtt"): ("username", "u"),
    ("OAuth2", "mqtt"): ("password", SECRET),
    ("SASL OAUTHBEARER", "mqtt"): ("password", SECRET),
    ("SASL EXTERNAL", "mqtt"): ("tls", {"certfile": "/c.pem", "keyfile": "/k.pem"}),
    ("X509Cert", "mqtt"): ("tls", {"certfile": "/c.pem", "keyfile": "/k.pem"}),
    ("APIKey", "mqtt"): ("password", SECRET),
    ("Plain", "amqp"): ("user", "u"),
    ("SASL PLAIN", "amqp"): ("allowed_mechs", "PLAIN"),
    ("SASL SCRAM-SHA-256", "amqp"): ("allowed_mechs", "SCRAM-SHA-256"),
    ("SASL SCRAM-SHA-512", "amqp"): ("allowed_mechs", "SCRAM-SHA-512"),
    ("OAuth2", "amqp"): ("password", SECRET),
    ("SASL ANONYMOUS", "amqp"): ("allowed_mechs", "ANONYMOUS"),
    ("SASL EXTERNAL", "amqp"): ("allowed_mechs", "EXTERNAL"),
    ("X509Cert", "amqp"): ("allowed_mechs", "EXTERNAL"),
    ("APIKey", "amqp"): ("password", SECRET),
    ("Plain", "nats"): ("user", "u"),
    ("SASL PLAIN", "nats"): ("user", "u"),
    ("OAuth2", "nats"): ("token", SECRET),
    ("SASL OAUTHBEARER", "nats"): ("token", SECRET),
    ("APIKey", "nats"): ("token", SECRET),
    ("SASL EXTERNAL", "nats"): ("tls", None),
    ("X509Cert", "nats"): ("tls", None),
    ("Plain", "http"): ("headers", ("Authorization", "Basic dTpzM2NyM3QtdmFsdWU=")),
    ("OAuth2", "http"): ("headers", ("Authorization", "Bearer " + SECRET)),
    ("X509Cert", "http"): ("cert", ("/c.pem", "/k.pem", None)),
    ("APIKey", "http"): ("headers", ("X-API-Key", SECRET)),
})


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate and its key (openssl), for clients that read them."""
    import subprocess

    folder = tmp_path_factory.mktemp("cert")
    cert, key = folder / "c.pem", folder / "k.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=xrgen-test"],
        check=True, capture_output=True,
    )
    return str(cert), str(key)


@pytest.mark.parametrize(("row", "binding"), sorted(EXPECTED_CELLS))
def test_every_authorization_type_per_client_library(
    row: str, binding: str, request: pytest.FixtureRequest
) -> None:
    protocol, usage, uri, options = COLUMNS[binding]
    ep = make(protocol, usage, (uri,), options, ROWS[row])
    expected = EXPECTED_CELLS[(row, binding)]
    if expected is None:
        with pytest.raises(EndpointError, match="cannot apply any of its authorization"):
            ep.config(**ALL_CREDENTIALS)
        return
    if binding == "nats" and expected[0] == "tls":
        # nats-py takes an ssl.SSLContext: the certificate files are read at once
        cert, key = request.getfixturevalue("certificate")
        config = ep.config(**{**ALL_CREDENTIALS, "cert_file": cert, "key_file": key})
        assert isinstance(config["tls"], ssl.SSLContext)
        return
    config = ep.config(**ALL_CREDENTIALS)
    key, value = expected
    assert _has(config, key, value), config
    no_secret(config)


# ------------------------------------------------------------------ more promises of the docs


@pytest.mark.parametrize("value", ["north fleet", "jobs/eu", "été ☃", "a+b#c*>", "plain-1.x_~"])
def test_placeholder_values_are_percent_encoded_as_the_producers_encode_them(value: str) -> None:
    """One rule for every role: an endpoint's URIs and options expand a placeholder as a
    message template does (RFC 6570 level 1), so a subscription names what a producer
    publishes to; HTTP headers and query parameters take the value as given."""
    from xrgen_runtime._uritemplate import UriTemplate
    from xrgen_runtime.endpoints._resolve import resolve

    topic = UriTemplate("fleet/{who}/orders").expand({"who": value})  # the producer's
    out = make("MQTT/5.0", ("producer",), ("mqtt://{host}",), {"topic": "fleet/{who}/orders"})
    sub = make("MQTT/5.0", ("subscriber",), ("mqtt://{host}",), {"topicfilter": "fleet/{who}/orders"})
    assert resolve(out, "producer", {"host": "b", "who": value}).options["topic"] == topic
    assert sub.config(host="b", who=value)["topics"] == [topic]
    path = make("MQTT/5.0", ("subscriber",), ("mqtt://b/fleet/{who}/orders",), {})
    assert path.config(who=value)["topics"] == [topic]  # a URI path: as written, not decoded
    # the server part of a URI (and a bootstrap server) names no address: as given
    kafka = make("KAFKA", ("producer",), ("{broker}",), {"topic": "t"})
    assert kafka.config(broker="h:9092")["bootstrap.servers"] == "h:9092"
    assert make("MQTT/5.0", ("producer",), ("mqtt://{host}:{port}",), {}).config(
        host="h", port="1884")["port"] == 1884
    amqp = make("AMQP/1.0", ("consumer",), ("amqp://b",), {"node": "/amq/queue/{who}"})
    assert amqp.config(who=value)["address"] == UriTemplate("/amq/queue/{who}").expand({"who": value})
    http = make(
        "HTTP", ("consumer",), ("http://b/hooks/{who}",),
        {"headers": [{"name": "X-Who", "value": "{who}"}], "query": {"who": "{who}"}},
    )
    config = http.config(who=value)
    assert config["base_url"] == UriTemplate("http://b:80/hooks/{who}/").expand({"who": value})
    assert config["headers"] == [("X-Who", value)] and config["params"] == [("who", value)]


def test_an_address_the_protocol_forbids_is_refused_naming_the_placeholder() -> None:
    kafka = make("KAFKA", ("producer",), ("b:9092",), {"topic": "orders-{region}"})
    assert kafka.config(region="eu.1_x-y") is not None
    with pytest.raises(EndpointError, match=r"topic 'orders-north%20fleet' \(from \{region\}='north fleet', "
                       r"percent-encoded\) is not a Kafka topic name"):
        from xrgen_runtime.endpoints._resolve import resolve

        settings = resolve(kafka, "producer", {"region": "north fleet"})
        settings.support.encoder(settings)
    nats = make("NATS", ("subscriber",), ("nats://b:4222",), {"subjectfilter": "orders.{region}.>"})
    assert nats.config(region="a b")["subject"] == "orders.a%20b.>"
    with pytest.raises(EndpointError, match=r"subjectfilter 'orders\.\.>' \(from \{region\}='', "
                       r"percent-encoded\) has an empty token"):
        nats.config(region="")


def test_content_mode_from_the_catalog_or_the_argument(acme: ModuleType) -> None:
    ep = make(
        "MQTT/5.0", ("producer",), ("mqtt://b",), {"willtopic": "gone", "willmessage": "com.acme.Alarm"},
        package=acme.__name__, envelope_options={"mode": "structured"},
    )
    data, kwargs = SAMPLES["com.acme.Alarm"]
    event = acme.MESSAGES["com.acme.Alarm"].create(data, **kwargs)
    assert ep.config(will=event)["will"].content_type == "application/cloudevents+json"
    assert ep.config(will=event, mode="binary")["will"].content_type == "application/json"
    with pytest.raises(EndpointError, match="'binary' or 'structured'"):
        ep.config(will=event, mode="batch")
    avro = make("KAFKA", ("producer",), ("b:9092",), {},
                envelope_options={"mode": "structured", "format": "application/cloudevents+avro"})
    with pytest.raises(EndpointError, match="structured mode in format"):
        avro.config()


def test_sender_encoder_checks_types_and_plain_messages(acme: ModuleType) -> None:
    from xrgen_runtime.endpoints import MessageNotDeclared
    from xrgen_runtime.endpoints._encode import checked_encoder
    from xrgen_runtime.endpoints._resolve import resolve

    def encoder_of(message_ids: tuple[str, ...]) -> Any:
        ep = make("MQTT/5.0", ("producer",), ("mqtt://b",), {"topic": "t"},
                  package=acme.__name__, message_ids=message_ids)
        settings = resolve(ep, "producer", {})
        return checked_encoder(settings, settings.support.encoder(settings))

    alarm_data, alarm_kwargs = SAMPLES["com.acme.Alarm"]
    alarm = acme.MESSAGES["com.acme.Alarm"].create(alarm_data, **alarm_kwargs)
    beat = acme.MESSAGES["com.acme.ops.Heartbeat"].create(b"1", plant="p")
    typed, plain = encoder_of(("com.acme.Alarm",)), encoder_of(("com.acme.ops.Heartbeat",))
    assert typed(alarm).topic  # declared: encoded
    with pytest.raises(MessageNotDeclared, match="com.acme.Alarm"):
        plain(alarm)
    assert plain(beat).payload == b"1"  # a plain message for an endpoint that carries one
    with pytest.raises(MessageNotDeclared):
        typed(beat)
    assert encoder_of(())(beat).payload == b"1"  # no messages declared: anything goes


def test_mqtt_websocket_and_tls_uris() -> None:
    config = make("MQTT/5.0", ("producer",), ("wss://broker/mqtt",), {}).config()
    assert config["transport"] == "websockets" and config["ws_path"] == "/mqtt"
    assert config["port"] == 443 and config["tls"] == {}


def test_nats_jetstream_option_configures_the_stream_and_the_durable_consumer() -> None:
    options = {
        "subjectfilter": "jobs.{tenant}.>",
        "jetstream": {"stream": "JOBS_{tenant}", "create": True, "storage": "file", "maxage": 60,
                      "durable": "w-{tenant}", "ackwait": 2.5, "maxdeliver": 5,
                      "maxackpending": 20, "backoff": [1, 2], "deliverpolicy": "new"},
    }
    ep = make("NATS", ("consumer",), ("nats://h:4222",), options)
    config = ep.config(tenant="t 1")
    assert {k: config[k] for k in ("subject", "stream", "create", "durable", "consumer",
                                   "stream_settings")} == {
        "subject": "jobs.t%201.>", "stream": "JOBS_t%201", "create": True, "durable": "w-t%201",
        "consumer": {"ack_wait": 2.5, "max_deliver": 5, "max_ack_pending": 20,
                     "backoff": (1, 2), "deliver_policy": "new"},
        "stream_settings": {"storage": "file", "max_age": 60},
    }
    assert "queue" not in config
    core = make("NATS", ("consumer",), ("nats://h:4222",), {"subjectfilter": "a", "queuegroup": "q"})
    assert core.config()["queue"] == "q" and "durable" not in core.config()
    assert core.config(durable="d")["durable"] == "d"  # an argument selects JetStream
    with pytest.raises(EndpointError, match="pulls from a durable consumer"):
        core.config(jetstream=True)
    with pytest.raises(EndpointError, match="jetstream setting 'bogus' is not one of"):
        core.config(jetstream={"durable": "d", "bogus": 1})
    out = make("NATS", ("producer",), ("nats://h:4222",), {"subject": "a.b", "jetstream": True})
    assert out.config()["jetstream"] is True and "durable" not in out.config()
