"""generator/protocols: the one protocol normalizer, option spellings, IR mapping, defaults."""

from __future__ import annotations

from typing import Any

import pytest

from xrgen import protocols
from xrgen.diagnostics import Diagnostics
from xrgen.protocols import PROTOCOLS, lookup, to_ir


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("KAFKA", "KAFKA"),
        ("Kafka", "KAFKA"),
        ("Kafka/3.6", "KAFKA"),
        ("KAFKA/0.11", "KAFKA"),
        ("AMQP/1.0", "AMQP/1.0"),
        ("amqp", "AMQP/1.0"),
        ("AMQP/1", "AMQP/1.0"),
        ("AMQP/0.9.1", None),
        ("MQTT", "MQTT/5.0"),
        ("MQTT/5.0", "MQTT/5.0"),
        ("mqtt/5", "MQTT/5.0"),
        ("MQTT/3.1.1", "MQTT/3.1.1"),
        ("MQTT/3.1", "MQTT/3.1.1"),
        ("mqtt/3", "MQTT/3.1.1"),
        ("MQTT/4", None),
        ("NATS", "NATS"),
        ("nats/2.10", "NATS"),
        ("HTTP", "HTTP"),
        ("HTTP/1.1", "HTTP"),
        ("http/2", "HTTP"),
        ("HTTPS", "HTTP"),
        (" Http / 1.1 ", "HTTP"),
        ("PULSAR", "PULSAR"),
        ("Pulsar/3.0", "PULSAR"),
        ("ROCKETMQ", "ROCKETMQ"),
        ("RocketMQ/5.0", "ROCKETMQ"),
        ("BunnyMQ/0.9", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_lookup_spellings(spelling: Any, canonical: str | None) -> None:
    found = lookup(spelling)
    assert (found.id if found else None) == canonical


def test_table_holds_every_binding_once() -> None:
    assert sorted(PROTOCOLS) == sorted(
        ["KAFKA", "AMQP/1.0", "MQTT/5.0", "MQTT/3.1.1", "NATS", "HTTP", "PULSAR", "ROCKETMQ"]
    )
    assert [s.binding for s in protocols.SPARK_LANDINGS] == [
        "kafka", "json", "amqp", "mqtt", "nats", "http", "pulsar", "rocketmq",
    ]  # fmt: skip


def _ir(protocol: str, options: dict[str, Any]) -> tuple[dict[tuple[str, ...], Any], list[str]]:
    diags = Diagnostics()
    proto = lookup(protocol)
    assert proto is not None
    out = to_ir(proto, options, "c.json", "/m/protocoloptions", diags)
    return {o.path: o.value for o in out}, [f"{d.pointer} {d.code}" for d in diags]


SPELLINGS = [
    "plain",
    {"value": "plain"},
    {"type": "string", "value": "plain"},
    {"type": "string", "value": "plain", "description": "d", "required": True},
]


@pytest.mark.parametrize("spelled", SPELLINGS)
@pytest.mark.parametrize(
    ("protocol", "option", "path"),
    [
        ("KAFKA", "topic", ("topic",)),
        ("Kafka/3.6", "key", ("key",)),
        ("MQTT/3.1", "topic_name", ("topic",)),
        ("MQTT/5.0", "response_topic", ("response_topic",)),
        ("NATS", "subject", ("subject",)),
        ("NATS", "reply-to", ("reply",)),
        ("HTTP/1.1", "path", ("path",)),
        ("AMQP/1.0", "node", ("address",)),
        ("PULSAR", "topic", ("topic",)),
        ("ROCKETMQ", "tag", ("tag",)),
    ],
)
def test_scalar_spellings(spelled: Any, protocol: str, option: str, path: tuple[str, ...]) -> None:
    assert _ir(protocol, {option: spelled}) == ({path: "plain"}, [])


@pytest.mark.parametrize(
    ("protocol", "option", "field"),
    [
        ("KAFKA", "headers", "headers"),
        ("NATS", "headers", "headers"),
        ("HTTP", "headers", "headers"),
        ("HTTP", "query", "query"),
        ("AMQP/1.0", "application-properties", "application_properties"),
        ("AMQP/1.0", "message-annotations", "message_annotations"),
        ("AMQP/1.0", "footer", "footer"),
        ("MQTT/5.0", "user_properties", "user_properties"),
        ("PULSAR", "properties", "properties"),
        ("ROCKETMQ", "properties", "properties"),
    ],
)
def test_map_spellings(protocol: str, option: str, field: str) -> None:
    as_map = {
        "a": "1",
        "b": {"value": "2"},
        "c": {"type": "string", "value": "3"},
        "d": {"type": "integer", "value": 4},
        "e": True,
    }
    as_list = [
        {"name": "a", "value": "1"},
        {"name": "b", "value": "2"},
        {"name": "c", "type": "string", "value": "3"},
        {"name": "d", "type": "integer", "value": 4},
        {"e": True},
    ]
    want = {
        (field, "a"): "1",
        (field, "b"): "2",
        (field, "c"): "3",
        (field, "d"): 4,
        (field, "e"): True,
    }
    assert _ir(protocol, {option: as_map}) == (want, [])
    assert _ir(protocol, {option: as_list}) == (want, [])


def test_templates_carry_placeholders() -> None:
    proto = lookup("KAFKA")
    assert proto is not None
    (opt,) = to_ir(
        proto, {"topic": {"type": "uritemplate", "value": "t.{a}.{b}.{a}"}}, "f", "", None
    )
    assert opt.template and opt.placeholders == ("a", "b")


def test_unapplied_options_are_named() -> None:
    got, codes = _ir(
        "AMQP/1.0",
        {
            "application-properties": {"free": {"type": "string"}, "nested": {"value": {"x": 1}}},
            "delivery-annotations": {"x": 1},
            "linkproperties": {"a": "b"},
            "bogus": 1,
        },
    )
    assert got == {}
    assert codes == [
        "/m/protocoloptions/application-properties/free XRG174",
        "/m/protocoloptions/application-properties/nested XRG174",
        "/m/protocoloptions/delivery-annotations XRG174",
        "/m/protocoloptions/linkproperties XRG174",
        "/m/protocoloptions/bogus XRG175",
    ]


def test_mqtt311_has_no_mqtt5_fields() -> None:
    got, codes = _ir("MQTT/3.1", {"topic_name": "t", "qos": 1, "user_properties": {"a": "b"}})
    assert got == {("topic",): "t", ("qos",): 1}
    assert codes == []  # validate warns (XRG171: exists only in MQTT 5.0; not applied)


def test_kafka_key_base64_of_text_is_the_key() -> None:
    got, codes = _ir("KAFKA", {"key_base64": "a2V5LTE="})
    assert (got, codes) == ({("key",): "key-1"}, [])
    got, codes = _ir("KAFKA", {"key_base64": "/w=="})
    assert got == {} and codes == ["/m/protocoloptions/key_base64 XRG174"]


def test_group_defaults() -> None:
    mqtt = lookup("MQTT/5.0")
    assert mqtt is not None
    group = {"topic_name": "a/b", "qos": 1, "user_properties": [{"name": "k", "value": "v"}]}
    d = protocols.defaults(mqtt, group)
    assert d == {"topic_name": "a/b", "qos": 1, "user_properties": {"k": {"value": "v"}}}
    merged = protocols.with_defaults(mqtt, {"qos": 0, "user_properties": {"m": "w"}}, d)
    assert merged == {
        "topic_name": "a/b",
        "qos": 0,
        "user_properties": {"k": {"value": "v"}, "m": "w"},
    }
    assert protocols.defaults(mqtt, {"topic_name": "a/#"}) == {}


def test_endpoint_filters_and_wildcards() -> None:
    mqtt = protocols.ENDPOINT_OPTIONS["MQTT/5.0"]
    assert mqtt.wildcard("a/+/c") and mqtt.wildcard("a/#") and not mqtt.wildcard("a/{b}/c")
    assert mqtt.is_filter("a/b,c/d") and not mqtt.is_filter("a/b")
    nats = protocols.ENDPOINT_OPTIONS["NATS"]
    assert nats.wildcard("a.*.c") and nats.wildcard("a.b.>") and nats.wildcard("a.{b}.>")
    assert not nats.wildcard("a.{b}.c") and not nats.wildcard("a.b*.c")


def test_amqp_fixed_sections_take_their_field_names() -> None:
    got, codes = _ir(
        "AMQP/1.0",
        {
            "properties": {
                "reply_to": "r",
                "messageId": {"value": "m"},
                "Subject": "s",
                "foo": "bar",
            },
            "header": [
                {"name": "ttl", "type": "integer", "value": 1000},
                {"name": "first_acquirer", "value": True},
            ],
        },
    )
    assert got == {
        ("properties", "reply-to"): "r",
        ("properties", "message-id"): "m",
        ("properties", "subject"): "s",
        ("header", "ttl"): 1000,
        ("header", "first-acquirer"): True,
    }
    assert codes == ["/m/protocoloptions/properties/foo XRG174"]
