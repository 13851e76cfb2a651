"""A catalog of what the samples do not show and the export must still turn into valid
AsyncAPI: odd placeholder names, one message id in two groups, a message in several wire forms
(binary on Kafka, structured over HTTP), JSON Schema draft-04 bounds, 2020-12 ``$defs`` with an
``$id`` self reference, a recursive schema, JSON Structure, a .proto with several messages,
MQTT 3.1.1 (structured only), AMQP and Pulsar binary mode, every authorization type, an HTTP
subscription manager, an abstract endpoint, a template endpoint and one that carries nothing.
"""

from __future__ import annotations

from typing import Any

_CE = "CloudEvents/1.0"


def _ce(mid: str, source: str = "/edge/{tenant}", **extra: Any) -> dict[str, Any]:
    return {
        "messageid": mid,
        "envelope": _CE,
        "envelopemetadata": {
            "type": {"value": mid},
            "source": {"type": "uritemplate", "value": source},
            "time": {"type": "timestamp", "value": "0000-01-01T00:00:00Z"},
            "sequence": {
                "type": "integer",
                "required": True,
                "description": "position in the stream",
            },
            "flag": {"type": "boolean", "value": True},
        },
        **extra,
    }


_DRAFT04 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "type": "object",
    "properties": {
        "ratio": {
            "type": "number",
            "minimum": 0,
            "exclusiveMinimum": True,
            "maximum": 1,
        },
        "count": {"type": "integer", "maximum": 10, "exclusiveMaximum": False},
        # data, not a schema: left alone
        "kind": {"default": {"exclusiveMinimum": True, "minimum": 3}},
    },
}
_DEFS = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.com/edge/order.json",
    "type": "object",
    "properties": {
        "line": {"$ref": "#/$defs/line"},
        "again": {"$ref": "https://example.com/edge/order.json#/$defs/line"},
    },
    "$defs": {"line": {"type": "object", "properties": {"sku": {"type": "string"}}}},
}
_TREE = {
    "type": "object",
    "properties": {
        "children": {"type": "array", "items": {"$ref": "#"}},
        "name": {"type": "string"},
    },
}
_STRUCTURE = {
    "$schema": "https://json-structure.org/meta/core/v0/#",
    "$id": "https://example.com/schemas/gauge",
    "name": "Gauge",
    "type": "object",
    "properties": {"value": {"type": "double"}},
}
_PROTO = """syntax = "proto3";
// the payload message comes first
message Reading {
  string id = 1;
  Unit unit = 2;
  message Note { string text = 1; }
}
message Unit { string name = 1; /* { not a block } */ }
"""

CATALOG: dict[str, Any] = {
    "specversion": "1.0-rc2",
    "messagegroups": {
        "edge.kafka": {
            "messagegroupid": "edge.kafka",
            "description": "Kafka messages, one of them also in edge.http.",
            "messages": {
                "edge.Order": _ce(
                    "edge.Order",
                    protocol="KAFKA",
                    protocoloptions={
                        "topic": "orders.{tenant.id}",
                        "key": "{order id}",
                    },
                    dataschemaformat="JsonSchema/2020-12",
                    dataschema=_DEFS,
                ),
                "edge.Same": _ce(
                    "edge.Same",
                    protocol="KAFKA",
                    protocoloptions={"topic": "same"},
                    dataschemaformat="JsonSchema/draft-04",
                    dataschema=_DRAFT04,
                ),
            },
        },
        "edge.any": {
            "messagegroupid": "edge.any",
            "description": "Protocol-free messages: every endpoint's protocol carries them.",
            "messages": {
                "edge.Same": _ce(
                    "edge.Same",
                    dataschemaformat="JsonSchema/draft-07",
                    dataschema=_TREE,
                ),
                "edge.Gauge": _ce(
                    "edge.Gauge",
                    dataschemaformat="JSONStructure/draft-02",
                    dataschema=_STRUCTURE,
                ),
                "edge.Proto": _ce(
                    "edge.Proto",
                    dataschemaformat="Protobuf/3",
                    dataschema=_PROTO,
                    datacontenttype="application/protobuf",
                ),
                "edge.Plain": {
                    "messageid": "edge.Plain",
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": {"type": "string"},
                },
            },
        },
        "edge.mqtt": {
            "messagegroupid": "edge.mqtt",
            "messages": {
                "edge.Legacy": _ce(
                    "edge.Legacy",
                    protocol="MQTT/3.1.1",
                    protocoloptions={
                        "topic_name": "legacy/{x y}/state",
                        "qos": 2,
                        "retain": True,
                    },
                ),
            },
        },
        "edge.amqp": {
            "messagegroupid": "edge.amqp",
            "messages": {
                "edge.Job": _ce(
                    "edge.Job",
                    protocol="AMQP/1.0",
                    protocoloptions={
                        "node": "jobs",
                        "application_properties": {"origin": "edge"},
                    },
                ),
            },
        },
        "edge.pulsar": {
            "messagegroupid": "edge.pulsar",
            "messages": {
                "edge.Tick": _ce(
                    "edge.Tick",
                    protocol="PULSAR",
                    protocoloptions={"topic": "persistent://public/default/ticks"},
                ),
            },
        },
    },
    "endpoints": {
        "edge.kafka.out": {
            "usage": ["producer"],
            "protocol": "KAFKA",
            "protocoloptions": {
                "endpoints": [
                    {"bootstrap.servers": ["SASL_SSL://{host}:9093", "backup:9093"]}
                ],
                "topic": "orders.{tenant.id}",
                "authorization": [
                    {"type": "SASL", "mechanism": "SCRAM-SHA-512"},
                    {
                        "type": "SASL",
                        "mechanism": "OAUTHBEARER",
                        "authorityuri": "https://idp.example.com/token",
                    },
                    {"type": "X509Cert"},
                    {"type": "SASL", "mechanism": "ANONYMOUS"},
                ],
            },
            "messagegroups": ["#/messagegroups/edge.kafka", "#/messagegroups/edge.any"],
        },
        "edge.kafka.empty": {
            "usage": ["consumer"],
            "protocol": "KAFKA",
            "protocoloptions": {
                "endpoints": [{"bootstrap.servers": ["{host}:9092"]}],
                "topic": "nothing",
                "consumergroup": "idle",
            },
        },
        "edge.http.in": {
            "usage": ["producer"],
            "protocol": "HTTP",
            "envelope": _CE,
            "envelopeoptions": {
                "mode": "structured",
                "format": "application/cloudevents+json",
            },
            "protocoloptions": {
                "endpoints": [{"uri": "https://{host}/hooks/{tenant}?v=1"}],
                "method": "PUT",
                "authorization": [
                    {"type": "Plain"},
                    {"type": "OAuth2"},
                    {"type": "APIKey"},
                ],
                "apikeyname": "X-Key",
                "apikeyin": "query",
            },
            "messagegroups": ["#/messagegroups/edge.any"],
        },
        "edge.http.subscriptions": {
            "usage": ["subscriber"],
            "protocol": "HTTP",
            "protocoloptions": {"endpoints": [{"uri": "https://{host}/subscriptions"}]},
            "messagegroups": ["#/messagegroups/edge.any"],
        },
        "edge.mqtt.watch": {
            "usage": ["subscriber", "consumer"],
            "protocol": "MQTT/3.1.1",
            "protocoloptions": {
                "endpoints": [{"uri": "mqtts://broker:8883"}],
                "topicfilter": "legacy/+/state",
                "qos": 1,
                "authorization": [{"type": "APIKey"}, {"type": "Plain"}],
            },
            "messagegroups": ["#/messagegroups/edge.mqtt"],
        },
        "edge.amqp.out": {
            "usage": ["producer"],
            "protocol": "AMQP/1.0",
            "protocoloptions": {"endpoints": [{"uri": "amqps://broker/jobs"}]},
            "messagegroups": ["#/messagegroups/edge.amqp"],
        },
        "edge.abstract": {
            "usage": ["consumer"],
            "messagegroups": ["#/messagegroups/edge.pulsar"],
        },
        "edge.template": {
            "usage": ["producer"],
            "protocol": "PULSAR",
            "protocoloptions": {
                "deployed": False,
                "endpoints": [{"uri": "pulsar+ssl://{cluster}:6651"}],
            },
            "messagegroups": ["#/messagegroups/edge.pulsar"],
        },
    },
}
