"""``xrgen_runtime.endpoints``: the Endpoint object (data, immutability, placeholders,
overrides, credentials), without a generated package or a server."""

from __future__ import annotations

import pickle
import subprocess
import sys
from typing import Any

import pytest
from xrgen_runtime.endpoints import (
    Authorization,
    Endpoint,
    EndpointError,
    MissingCredential,
    MissingPlaceholder,
    Secret,
    env_names,
)


class _Dispatcher:
    def __init__(self, dead_letter: Any = None) -> None:
        self.dead_letter = dead_letter


def endpoint(**changes: Any) -> Endpoint[_Dispatcher]:
    fields: dict[str, Any] = {
        "id": "com.acme.OrdersIn",
        "usage": ("consumer",),
        "protocol": "KAFKA",
        "channel": "orders",
        "envelope": "CloudEvents/1.0",
        "envelope_options": {"mode": "binary"},
        "uris": ("{kafkahost}:9092",),
        "options": {
            "topic": "orders.{tenant}",
            "consumergroup": "billing-{tenant}",
            "autooffsetreset": "earliest",
            "enableautocommit": False,
        },
        "authorization": (),
        "deployed": True,
        "message_ids": ("com.acme.OrderPlaced",),
        "placeholders": ("kafkahost", "tenant"),
        "package": "acme_orders",
        "dispatcher_class": _Dispatcher,
        "description": "orders for billing",
    }
    fields.update(changes)
    return Endpoint(**fields)


def test_attributes_are_the_catalog_data_and_immutable() -> None:
    ep = endpoint()
    assert ep.id == "com.acme.OrdersIn"
    assert ep.usage == ("consumer",)
    assert ep.uris == ("{kafkahost}:9092",)
    assert ep.options["topic"] == "orders.{tenant}"
    assert ep.placeholders == ("kafkahost", "tenant")
    with pytest.raises(AttributeError, match="immutable"):
        ep.id = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ep.options["topic"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        del ep.channel
    assert "orders.{tenant}" not in repr(ep)  # repr names the endpoint, not its options
    assert repr(ep) == (
        "Endpoint('com.acme.OrdersIn', protocol='KAFKA', usage=('consumer',), "
        "package='acme_orders')"
    )


def test_nested_options_are_frozen() -> None:
    ep = endpoint(
        protocol="AMQP/1.0",
        uris=("amqp://h:5672",),
        options={"link-properties": {"k": "v"}, "node-capabilities": ["queue"]},
        placeholders=(),
    )
    assert ep.options["node-capabilities"] == ("queue",)
    with pytest.raises(TypeError):
        ep.options["link-properties"]["k"] = "w"  # type: ignore[index]


def test_equal_and_hashed_by_package_and_id() -> None:
    a, b = endpoint(), endpoint(description="another text")
    assert a == b and hash(a) == hash(b)
    assert a != endpoint(id="com.acme.Other")
    assert a != endpoint(package="other_pkg")
    assert len({a, b}) == 1


def test_usage_and_placeholders_are_checked() -> None:
    with pytest.raises(ValueError, match="usage"):
        endpoint(usage=("reader",))
    with pytest.raises(ValueError, match="usage"):
        endpoint(usage=())
    with pytest.raises(ValueError, match="placeholders"):
        endpoint(placeholders=("tenant",))


def test_dispatcher_is_a_new_instance_of_the_endpoint_class() -> None:
    ep = endpoint()

    def dl(wire: object, reason: str, detail: str) -> None:
        pass

    d1, d2 = ep.dispatcher(dead_letter=dl), ep.dispatcher()
    assert isinstance(d1, _Dispatcher) and d1 is not d2
    assert d1.dead_letter is dl and d2.dead_letter is None


def test_pickled_by_reference_to_the_package() -> None:
    ep = endpoint()
    with pytest.raises(ModuleNotFoundError, match="acme_orders"):
        pickle.loads(pickle.dumps(ep))


def test_import_loads_no_pydantic_and_no_client_library() -> None:
    code = (
        "import sys, xrgen_runtime.endpoints\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in "
        "('pydantic', 'confluent_kafka', 'paho', 'proton', 'nats', 'httpx')]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------ placeholders and overrides


def test_missing_placeholders_are_named_with_where_they_occur() -> None:
    ep = endpoint()
    with pytest.raises(MissingPlaceholder) as info:
        ep.config(kafkahost="broker")
    text = str(info.value)
    assert "tenant" in text and "'topic'" in text and "'consumergroup'" in text
    assert "tenant=..." in text
    assert isinstance(info.value, TypeError)
    with pytest.raises(MissingPlaceholder, match=r"kafkahost \(in URI\)"):
        ep.config(tenant="t1")


def test_placeholders_fill_uris_and_options_with_one_value() -> None:
    config = endpoint().config(kafkahost="broker", tenant="t1")
    assert config["bootstrap.servers"] == "broker:9092"
    assert config["group.id"] == "billing-t1"


def test_overrides_replace_the_catalog_and_drop_its_placeholders() -> None:
    ep = endpoint()
    config = ep.config(kafkahost="b", consumergroup="mine", topic="fixed")
    assert config["group.id"] == "mine"  # tenant no longer needed: both uses overridden
    config = ep.config(uris=["other:1"], tenant="t", autooffsetreset="latest")
    assert config["bootstrap.servers"] == "other:1"
    assert config["auto.offset.reset"] == "latest"
    assert "enable.auto.commit" not in ep.config(
        kafkahost="b", tenant="t", enableautocommit=None
    )


def test_unknown_keyword_is_a_type_error_listing_what_is_accepted() -> None:
    with pytest.raises(TypeError, match="'topik'.*placeholders kafkahost, tenant.*topic"):
        endpoint().config(topik="x")


def test_roles_are_checked() -> None:
    ep = endpoint()
    with pytest.raises(EndpointError, match="sender\\(\\) needs one of \\['producer'\\]"):
        ep.sender(kafkahost="b", tenant="t")
    with pytest.raises(EndpointError, match="not 'producer'"):
        ep.config("producer", kafkahost="b", tenant="t")


def test_abstract_endpoint_configures_nothing() -> None:
    ep = endpoint(protocol=None, uris=(), options={}, placeholders=())
    with pytest.raises(EndpointError, match="abstract"):
        ep.config()


# ------------------------------------------------------------------ credentials


def test_env_names_derive_from_the_endpoint_id() -> None:
    assert env_names("com.acme.OrdersIn", "password") == (
        "XRGEN_COM_ACME_ORDERSIN_PASSWORD",
        "XRGEN_PASSWORD",
    )
    assert env_names("--", "token") == ("XRGEN_TOKEN", "XRGEN_TOKEN")


def test_secret_is_a_str_that_hides_in_repr() -> None:
    s = Secret("hunter2")
    assert s == "hunter2" and isinstance(s, str)
    assert repr(s) == "'***'" and "hunter2" not in repr({"p": s})


def test_missing_credential_names_argument_and_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("XRGEN_USERNAME", "XRGEN_PASSWORD", "XRGEN_COM_ACME_ORDERSIN_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    ep = endpoint(authorization=(Authorization("SASL", "SCRAM-SHA-256"),))
    with pytest.raises(MissingCredential) as info:
        ep.config(kafkahost="b", tenant="t", username="svc")
    text = str(info.value)
    assert "password=..." in text
    assert "XRGEN_COM_ACME_ORDERSIN_PASSWORD" in text and "XRGEN_PASSWORD" in text
    assert "svc" not in text
