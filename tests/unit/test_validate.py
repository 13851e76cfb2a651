"""Unit tests of the validate stage: one test per rule (structure and semantics)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xrgen.diagnostics import Diagnostics
from xrgen.load import load
from xrgen.validate import (
    template_problem,
    validate,
    validate_resolved_message,
)

G = "/messagegroups/g/messages/m"


@pytest.fixture()
def check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Load a catalog dict and validate it; return ``pointer: severity code`` lines of the
    validate stage (load's own warnings are not part of these tests)."""
    monkeypatch.chdir(tmp_path)

    def run(doc: dict[str, Any]) -> list[str]:
        Path("cat.json").write_text(json.dumps(doc), encoding="utf-8")
        reg = load(["cat.json"], Diagnostics())
        diags = Diagnostics()
        validate(reg, diags)
        return [f"{d.pointer}: {d.severity} {d.code}" for d in diags.sorted()]

    return run


def msg(**fields: Any) -> dict[str, Any]:
    """A complete, valid CloudEvents message, changed by ``fields`` (None deletes)."""
    base: dict[str, Any] = {
        "messageid": "m",
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {
            "type": {"value": "m"},
            "source": {"type": "uritemplate", "value": "/s/{x}"},
        },
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def cat(message: dict[str, Any], **group: Any) -> dict[str, Any]:
    return {"messagegroups": {"g": {**group, "messages": {"m": message}}}}


def attrs(**em: Any) -> dict[str, Any]:
    return msg(envelopemetadata={"type": {"value": "m"}, **em})


def test_valid_message_has_no_diagnostics(check: Any) -> None:
    assert check(cat(msg(), envelope="CloudEvents/1.0")) == []


# ------------------------------------------------------------------------------ structure


def test_structure_errors_point_into_the_entity(check: Any) -> None:
    bad = msg(description=5, envelopemetadata={"type": {"required": "yes", "value": "t"}})
    assert check(cat(bad)) == [
        f"{G}/description: error XRG121",
        f"{G}/envelopemetadata/type/required: error XRG121",
    ]


def test_group_structure(check: Any) -> None:
    assert check({"messagegroups": {"g": {"envelope": 1, "messages": {}}}}) == [
        "/messagegroups/g/envelope: error XRG120"
    ]


def test_schema_structures(check: Any) -> None:
    doc = {
        "schemagroups": {
            "s": {
                "format": 7,
                "schemas": {"x": {"format": True, "versions": {"1": {"schemaurl": 3}}}},
            }
        }
    }
    assert check(doc) == [
        "/schemagroups/s/format: error XRG122",
        "/schemagroups/s/schemas/x/format: error XRG123",
        "/schemagroups/s/schemas/x/versions/1/schemaurl: error XRG124",
    ]


def test_endpoint_structure(check: Any) -> None:
    assert check(
        {"endpoints": {"e": {"usage": ["producer"], "messagegroups": "/messagegroups/g"}}}
    ) == ["/endpoints/e/messagegroups: error XRG125"]


def test_protocol_options_structure(check: Any) -> None:
    m = msg(protocol="KAFKA", protocoloptions={"partition": [1], "headers": 5})
    assert check(cat(m)) == [
        f"{G}/protocoloptions/headers: error XRG126",
        f"{G}/protocoloptions/partition: error XRG126",
    ]


def test_protocol_options_accept_literals_and_attribute_definitions(check: Any) -> None:
    m = msg(
        protocol="MQTT/5.0",
        protocoloptions={
            "qos": {"type": "integer", "value": 1},
            "retain": False,
            "topic_name": "t/{x}",
        },
    )
    assert check(cat(m)) == []


# ------------------------------------------------------------------------ CloudEvents rules


def test_required_ce_attribute_declared_not_required(check: Any) -> None:
    assert check(cat(attrs(id={"required": False}))) == [
        f"{G}/envelopemetadata/id/required: error XRG130"
    ]


def test_specversion_must_be_1_0(check: Any) -> None:
    assert check(cat(attrs(specversion={"value": "0.3"}))) == [
        f"{G}/envelopemetadata/specversion: error XRG131"
    ]
    assert check(cat(attrs(specversion={"value": "1.0", "type": "string"}))) == []


def test_attribute_names_lower_case_alphanumeric(check: Any) -> None:
    assert check(cat(attrs(**{"Tenant_Id": {}}))) == [
        f"{G}/envelopemetadata/Tenant_Id: error XRG132"
    ]


def test_long_attribute_name_warns(check: Any) -> None:
    assert check(cat(attrs(abcdefghijklmnopqrstu={}))) == [
        f"{G}/envelopemetadata/abcdefghijklmnopqrstu: warning XRG133"
    ]


def test_unknown_attribute_type(check: Any) -> None:
    assert check(cat(attrs(size={"type": "float"}))) == [
        f"{G}/envelopemetadata/size/type: error XRG134"
    ]


@pytest.mark.parametrize(
    ("kind", "value", "ok"),
    [
        ("integer", 5, True),
        ("integer", "5", False),
        ("integer", True, False),
        ("number", 1.5, True),
        ("boolean", False, True),
        ("boolean", "false", False),
        ("timestamp", "2024-01-01T10:00:00.5+02:00", True),
        ("timestamp", "yesterday", False),
        ("binary", "aGVsbG8=", True),
        ("binary", "not base64!", False),
        ("duration", "PT5M", True),
        ("duration", "5 minutes", False),
        ("uritemplate", "/a/{b}/{c_d}", True),
        ("uritemplate", "/a/{b", False),
        ("uritemplate", "/a/{b-c}", False),
        ("string", 5, False),
        ("any", {"x": 1}, True),
    ],
)
def test_constant_value_fits_type(check: Any, kind: str, value: Any, ok: bool) -> None:
    got = check(cat(attrs(ext={"type": kind, "value": value})))
    assert got == ([] if ok else [f"{G}/envelopemetadata/ext/value: error XRG135"])


def test_default_type_of_ce_attribute_is_used(check: Any) -> None:
    assert check(cat(attrs(time={"value": "noon"}))) == [
        f"{G}/envelopemetadata/time/value: error XRG135"
    ]


def test_constant_id_warns(check: Any) -> None:
    assert check(cat(attrs(id={"value": "fixed"}))) == [
        f"{G}/envelopemetadata/id/value: warning XRG136"
    ]


def test_fixed_time_warns_but_now_is_fine(check: Any) -> None:
    assert check(cat(attrs(time={"value": "2020-01-01T00:00:00Z"}))) == [
        f"{G}/envelopemetadata/time/value: warning XRG137"
    ]
    assert check(cat(attrs(time={"value": "0000-01-01T00:00:00Z"}))) == []


def test_relative_dataschema_warns(check: Any) -> None:
    """CloudEvents requires an absolute URI: a registry-relative reference gets XRG144."""
    for value in ("#/schemagroups/g/schemas/s", "schemas/s.json", "/s/{v}"):
        assert check(cat(attrs(dataschema={"type": "uritemplate", "value": value}))) == [
            f"{G}/envelopemetadata/dataschema/value: warning XRG144"
        ], value
    for value in ("https://x.example/s.json", "urn:s", "{base}/s.json", "https://x/{v}"):
        assert check(cat(attrs(dataschema={"type": "uritemplate", "value": value}))) == [], value


def test_empty_source_warns(check: Any) -> None:
    assert check(cat(attrs(source={"type": "uritemplate", "value": ""}))) == [
        f"{G}/envelopemetadata/source/value: warning XRG145"
    ]


def test_envelope_without_metadata_warns(check: Any) -> None:
    # and without a type value its events would be rejected by every consumer: an error
    assert check(cat(msg(envelopemetadata=None))) == [
        f"{G}/envelope: warning XRG138",
        f"{G}/envelope: error XRG146",
    ]


def test_unknown_envelope_warns(check: Any) -> None:
    assert check(cat(msg(envelope="MyEnvelope/2"))) == [f"{G}/envelope: warning XRG139"]


# ----------------------------------------------------------------------------- payload rules


def test_dataschemaformat_missing_warns(check: Any) -> None:
    assert check(cat(msg(dataschemauri="#/schemagroups/s/schemas/x"))) == [
        f"{G}/dataschemauri: warning XRG140"
    ]


def test_dataschema_and_dataschemauri_exclusive(check: Any) -> None:
    m = msg(
        dataschemaformat="JsonSchema/draft-07",
        dataschema={"type": "object"},
        dataschemauri="https://x/s.json",
    )
    assert check(cat(m)) == [f"{G}/dataschema: error XRG141"]


def test_ce_dataschema_must_match_dataschemauri(check: Any) -> None:
    m = attrs(dataschema={"value": "https://a/s.json"})
    m.update(dataschemaformat="JsonSchema/draft-07", dataschemauri="https://b/s.json")
    assert check(cat(m)) == [f"{G}/envelopemetadata/dataschema/value: error XRG142"]


def test_datacontenttype_must_agree(check: Any) -> None:
    m = attrs(datacontenttype={"value": "Application/JSON"})
    assert check(cat({**m, "datacontenttype": "application/json"})) == []
    assert check(cat({**m, "datacontenttype": "application/avro"})) == [
        f"{G}/envelopemetadata/datacontenttype/value: error XRG143"
    ]


def test_unsupported_schema_format_warns(check: Any) -> None:
    m = msg(dataschemaformat="Thrift/0.19", dataschemauri="https://x/s.json")
    assert check(cat(m)) == [f"{G}/dataschemaformat: warning XRG152"]


# ----------------------------------------------------------------- group consistency rules


def test_envelope_must_equal_group_envelope(check: Any) -> None:
    assert check(cat(msg(), envelope="cloudevents/1.0")) == []
    assert check(cat(msg(envelope="CloudEvents/1.0"), envelope="Other/1")) == [
        "/messagegroups/g/envelope: warning XRG139",
        f"{G}/envelope: error XRG160",
    ]


def test_protocol_must_equal_group_protocol(check: Any) -> None:
    m = msg(protocol="KAFKA", protocoloptions={"topic": "t"})
    assert check(cat(m, protocol="Kafka")) == []
    assert check(cat(m, protocol="NATS")) == [f"{G}/protocol: error XRG161"]


def test_unknown_protocol_warns(check: Any) -> None:
    assert check(cat(msg(protocol="BunnyMQ/0.9", protocoloptions={}))) == [
        f"{G}/protocol: warning XRG162"
    ]


def test_protocol_without_options_warns(check: Any) -> None:
    assert check(cat(msg(protocol="NATS"))) == [f"{G}/protocol: warning XRG163"]


# ---------------------------------------------------------------------------- protocol rules


def test_http_method_and_status_exclusive(check: Any) -> None:
    m = msg(protocol="HTTP", protocoloptions={"method": "POST", "status": "200"})
    assert check(cat(m)) == [f"{G}/protocoloptions: error XRG164"]


def test_http_method_validity(check: Any) -> None:
    assert check(cat(msg(protocol="HTTP", protocoloptions={"method": "PO ST"}))) == [
        f"{G}/protocoloptions/method: error XRG165"
    ]
    assert check(cat(msg(protocol="HTTP", protocoloptions={"method": "post"}))) == [
        f"{G}/protocoloptions/method: warning XRG165"
    ]


def test_http_status_validity(check: Any) -> None:
    assert check(cat(msg(protocol="HTTP", protocoloptions={"status": "20"}))) == [
        f"{G}/protocoloptions/status: error XRG166"
    ]
    assert check(cat(msg(protocol="HTTP", protocoloptions={"status": 404}))) == []


def test_http_header_names(check: Any) -> None:
    m = msg(
        protocol="HTTP",
        protocoloptions={
            "headers": [{"name": "X Bad", "value": "1"}, {"name": "X-Ok", "value": "{v}"}]
        },
    )
    assert check(cat(m)) == [f"{G}/protocoloptions/headers: error XRG167"]


def test_kafka_key_and_key_base64_exclusive(check: Any) -> None:
    m = msg(protocol="KAFKA", protocoloptions={"key": "k", "key_base64": "aw=="})
    assert check(cat(m)) == [f"{G}/protocoloptions: error XRG168"]


def test_kafka_key_base64_must_be_base64(check: Any) -> None:
    m = msg(protocol="KAFKA", protocoloptions={"key_base64": "**"})
    assert check(cat(m)) == [f"{G}/protocoloptions/key_base64: error XRG169"]


def test_mqtt_qos_range(check: Any) -> None:
    m = msg(protocol="MQTT/5.0", protocoloptions={"qos": {"value": 3}})
    assert check(cat(m)) == [f"{G}/protocoloptions/qos: error XRG170"]


def test_mqtt5_options_on_mqtt311_warn(check: Any) -> None:
    m = msg(protocol="MQTT/3.1.1", protocoloptions={"topic_name": "t", "response_topic": "r"})
    assert check(cat(m)) == [f"{G}/protocoloptions/response_topic: warning XRG171"]


# ----------------------------------------------------------------------------- inheritance


def test_inheriting_messages_skip_whole_message_rules(check: Any) -> None:
    derived = {"messageid": "m", "basemessage": "/messagegroups/g/messages/b", "protocol": "KAFKA"}
    alias = {"messageid": "m", "meta": {"xref": "/messagegroups/g/messages/b"}}
    assert check(cat(derived)) == []
    assert check(cat(alias)) == []
    # what they declare themselves is still checked
    derived["envelope"] = "CloudEvents/1.0"
    derived["envelopemetadata"] = {"id": {"required": False}}
    assert check(cat(derived)) == [f"{G}/envelopemetadata/id/required: error XRG130"]


def test_validate_resolved_message_checks_merged_data() -> None:
    merged = msg(protocol="KAFKA", protocoloptions={"key": "a", "key_base64": "YQ=="})
    diags = Diagnostics()
    validate_resolved_message(merged, "c.json", "/x", diags, group={"protocol": "NATS"})
    assert [str(d) for d in diags] == [
        "c.json#/x/protocoloptions: error XRG168: Kafka 'key' and 'key_base64' are mutually exclusive",
        "c.json#/x/protocol: error XRG161: protocol 'KAFKA' differs from its group's protocol 'NATS'",
    ]


# --------------------------------------------------------------------------------- schemas


def test_embedded_json_schema_is_meta_validated(check: Any) -> None:
    m = msg(
        dataschemaformat="JsonSchema/draft-07",
        dataschema={"type": "object", "properties": {"a": {"type": "strin"}}},
    )
    (line,) = check(cat(m))
    assert line == f"{G}/dataschema/properties/a/type: error XRG150"


def test_json_schema_cache_does_not_hide_errors(check: Any) -> None:
    good = {"type": "object", "title": "A"}
    bad = {"type": "object", "title": 5}  # same shape, but a non-string title is invalid
    assert check(cat(msg(dataschemaformat="JsonSchema/draft-07", dataschema=good))) == []
    assert check(cat(msg(dataschemaformat="JsonSchema/draft-07", dataschema=bad))) == [
        f"{G}/dataschema/title: error XRG150"
    ]


def test_json_schema_draft_from_dollar_schema(check: Any) -> None:
    # exclusiveMinimum is a boolean in draft-04 and a number later
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "number",
        "minimum": 1,
        "exclusiveMinimum": True,
    }
    assert check(cat(msg(dataschemaformat="JsonSchema/draft-07", dataschema=schema))) == []
    del schema["$schema"]
    assert check(cat(msg(dataschemaformat="JsonSchema/draft-07", dataschema=schema))) == [
        f"{G}/dataschema/exclusiveMinimum: error XRG150"
    ]


def test_avro_schema_in_schema_version(check: Any) -> None:
    record = {
        "type": "record",
        "name": "R",
        "fields": [{"name": "a"}, {"name": "1b", "type": "Unknown"}],
    }
    doc = {
        "schemagroups": {
            "s": {"schemas": {"x": {"format": "Avro/1.11", "versions": {"1": {"schema": record}}}}}
        }
    }
    assert check(doc) == [
        "/schemagroups/s/schemas/x/versions/1/schema/fields/0: error XRG151",
        "/schemagroups/s/schemas/x/versions/1/schema/fields/1/name: error XRG151",
        "/schemagroups/s/schemas/x/versions/1/schema/fields/1/type: error XRG151",
    ]


def test_avro_schemas_real_and_without_fields(check: Any) -> None:
    def doc(schema: Any) -> dict[str, Any]:
        version = {"format": "Avro/1.11", "schema": schema}
        return {"schemagroups": {"s": {"schemas": {"x": {"versions": {"1": version}}}}}}

    schema = {
        "type": "record",
        "name": "T",
        "namespace": "a.b",
        "fields": [
            {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}},
            {"name": "again", "type": "E"},
            {"name": "full", "type": ["null", "a.b.E"]},
            {"name": "m", "type": {"type": "map", "values": {"type": "array", "items": "long"}}},
            {"name": "f", "type": {"type": "fixed", "name": "F", "size": 16}},
            {"name": "d", "type": {"type": "int", "logicalType": "date"}},
        ],
    }
    assert check(doc(schema)) == []
    assert check(doc({"type": "record", "name": "R"})) == [
        "/schemagroups/s/schemas/x/versions/1/schema/fields: error XRG151"
    ]


def test_schema_version_without_document(check: Any) -> None:
    doc = {"schemagroups": {"s": {"schemas": {"x": {"versions": {"1": {"format": "Avro/1.11"}}}}}}}
    assert check(doc) == ["/schemagroups/s/schemas/x/versions/1: error XRG153"]


def test_schema_content_must_match_format(check: Any) -> None:
    doc = {
        "schemagroups": {
            "s": {
                "schemas": {"x": {"format": "Protobuf/3", "versions": {"1": {"schema": {"a": 1}}}}}
            }
        }
    }
    assert check(doc) == ["/schemagroups/s/schemas/x/versions/1/schema: error XRG154"]


def test_schema_without_versions_or_xref(check: Any) -> None:
    doc = {
        "schemagroups": {
            "s": {
                "schemas": {
                    "x": {"format": "Avro/1.11"},
                    "y": {"meta": {"xref": "/schemagroups/s/schemas/x"}},
                }
            }
        }
    }
    assert check(doc) == ["/schemagroups/s/schemas/x: error XRG155"]


def test_default_version_must_exist(check: Any) -> None:
    doc = {
        "schemagroups": {
            "s": {
                "schemas": {
                    "x": {
                        "meta": {"defaultversionid": "9"},
                        "versions": {"1": {"schemaurl": "https://x"}},
                    }
                }
            }
        }
    }
    assert check(doc) == ["/schemagroups/s/schemas/x/meta/defaultversionid: warning XRG156"]


# ------------------------------------------------------------------------------- endpoints


@pytest.mark.parametrize(
    ("usage", "protocol", "code"),
    [
        (["producer"], "KAFKA", None),
        (["subscriber", "consumer"], "MQTT/5.0", None),
        (["subscriber", "consumer"], "NATS", None),
        (["subscriber", "consumer"], "HTTP", "XRG179"),
        (["subscriber", "consumer"], "KAFKA", "XRG178"),
        (["subscriber", "consumer"], "PULSAR", "XRG178"),
        (["producer", "consumer"], "AMQP/1.0", "XRG177"),
        (["publisher"], "NATS", "XRG172"),
        ([], "NATS", "XRG172"),
    ],
)
def test_endpoint_usage(check: Any, usage: list[str], protocol: str, code: str | None) -> None:
    got = check({"endpoints": {"e": {"usage": usage, "protocol": protocol}}})
    assert got == ([] if code is None else [f"/endpoints/e/usage: error {code}"])


def test_endpoint_usage_is_required(check: Any) -> None:
    assert check({"endpoints": {"e": {"protocol": "NATS"}}}) == ["/endpoints/e: error XRG176"]


def test_endpoint_envelope_options(check: Any) -> None:
    ep = {
        "usage": ["producer"],
        "envelope": "CloudEvents/1.0",
        "envelopeoptions": {"mode": "binary", "format": "application/cloudevents+json"},
    }
    assert check({"endpoints": {"e": ep}}) == ["/endpoints/e/envelopeoptions/format: error XRG181"]
    ep["envelopeoptions"] = {"mode": "batched"}
    assert check({"endpoints": {"e": ep}}) == ["/endpoints/e/envelopeoptions/mode: error XRG173"]


def test_endpoint_inline_messages_are_validated(check: Any) -> None:
    ep = {
        "usage": ["producer"],
        "protocol": "NATS",
        "messages": {"m": msg(protocol="KAFKA", protocoloptions={})},
    }
    assert check({"endpoints": {"e": ep}}) == ["/endpoints/e/messages/m/protocol: error XRG161"]


def test_every_problem_is_collected(check: Any) -> None:
    bad = attrs(id={"required": False}, Bad={}, n={"type": "integer", "value": "x"})
    bad.update(protocol="KAFKA", protocoloptions={"key": "a", "key_base64": "YQ=="})
    assert [line.rsplit(" ", 1)[1] for line in check(cat(bad))] == [
        "XRG132",
        "XRG130",
        "XRG135",
        "XRG168",
    ]


def test_template_problem() -> None:
    assert template_problem("/a/{b}") is None
    assert template_problem("{") == "unbalanced '{' or '}'"
