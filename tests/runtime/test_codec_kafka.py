"""Kafka binding: headers, tombstones, key mapping, mode detection, errors."""

from __future__ import annotations

import importlib
from datetime import datetime, timezone
from types import ModuleType

import pytest

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def kafka(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.kafka")


def test_binary_headers_are_prefixed_utf8_canonical_strings(
    kafka: ModuleType, runtime_package: ModuleType
) -> None:
    t = datetime(2020, 1, 1, tzinfo=timezone.utc)
    event = runtime_package.Event(
        {**BASE, "time": t, "datacontenttype": "text/plain", "flag": False, "n": 7, "u": "€ x"},
        b"v",
        runtime_package.KafkaBinding(topic="t"),
    )
    msg = kafka.encode(event)
    assert msg.headers == (
        ("ce_specversion", b"1.0"),
        ("ce_id", b"1"),
        ("ce_source", b"/s"),
        ("ce_type", b"t"),
        ("ce_time", b"2020-01-01T00:00:00Z"),
        ("ce_flag", b"false"),
        ("ce_n", b"7"),
        ("ce_u", "€ x".encode()),
        ("content-type", b"text/plain"),
    )
    assert msg.value == b"v"


def test_tombstone(kafka: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(dict(BASE), None, runtime_package.KafkaBinding(topic="t"))
    msg = kafka.encode(event)
    assert msg.value is None
    assert kafka.decode(msg).data is None
    structured = kafka.encode(event, "structured")
    assert structured.value is not None  # structured mode is never a tombstone


def test_key_mapper_is_opt_in_and_keeps_partitionkey(
    kafka: ModuleType, runtime_package: ModuleType
) -> None:
    attrs = {**BASE, "partitionkey": "user-7"}
    event = runtime_package.Event(attrs, b"x", runtime_package.KafkaBinding(topic="t", key=b"cfg"))
    assert kafka.encode(event).key == b"cfg"  # default: user-provided key
    msg = kafka.encode(event, key_mapper=kafka.partitionkey_key_mapper)
    assert msg.key == b"user-7"
    assert ("ce_partitionkey", b"user-7") in msg.headers
    assert event.attributes == attrs  # the mapper does not modify the event
    decoded = kafka.decode(msg)
    assert decoded.binding.key == b"user-7"
    assert decoded.attributes["partitionkey"] == "user-7"
    keyless = runtime_package.KafkaMessage("t", b"k", b"x", (("ce_specversion", b"1.0"),
        ("ce_id", b"1"), ("ce_source", b"/s"), ("ce_type", b"t")))
    assert "partitionkey" not in kafka.decode(keyless).attributes  # key is not invented


def test_header_names_case_insensitive_and_foreign_headers(
    kafka: ModuleType, runtime_package: ModuleType
) -> None:
    msg = runtime_package.KafkaMessage(
        "t", None, b"x",
        (("CE_SpecVersion", b"1.0"), ("ce_id", b"1"), ("Ce_Source", b"/s"), ("ce_type", b"t"),
         ("Content-Type", b"text/plain"), ("traceparent", b"00-abc"), ("nil", None)),
        4,
    )
    event = kafka.decode(msg)
    assert event.attributes == {**BASE, "datacontenttype": "text/plain"}
    assert event.binding == runtime_package.KafkaBinding(
        "t", None, 4, (("traceparent", b"00-abc"), ("nil", None))
    )
    again = kafka.encode(event)
    assert ("traceparent", b"00-abc") in again.headers


def test_no_content_type_is_binary_and_plain_without_ce_headers(
    kafka: ModuleType, runtime_package: ModuleType
) -> None:
    body = b'{"specversion":"1.0","id":"1","source":"/s","type":"t"}'
    plain = kafka.decode(runtime_package.KafkaMessage("t", None, body, ()))
    assert plain.attributes == {}  # v1.0's "no content-type means structured" was removed
    assert plain.data == body
    ct = (("content-type", b"application/json"),)
    plain2 = kafka.decode(runtime_package.KafkaMessage("t", None, b"{}", ct))
    assert plain2.attributes == {}
    assert plain2.binding.headers == ct


@pytest.mark.parametrize(
    ("headers", "value", "reason"),
    [
        ((("ce_specversion", b"\xff"),), b"", "invalid-encoding"),
        ((("content-type", b"application/cloudevents+json"),), b"[]", "invalid-json"),
        ((("content-type", b"application/cloudevents+json"),), None, "invalid-json"),
        ((("content-type", b"application/cloudevents-batch+json"),), b"[]", "unsupported-format"),
        ((("ce_id", b"1"),), b"", "missing-attribute"),
        ((("ce_specversion", b"1.0"), ("ce_id", b"1"), ("ce_source", b"/s"), ("ce_type", b"t"),
          ("content-type", b"a"), ("content-type", b"b")), b"", "duplicate-attribute"),
        ((("ce_specversion", b"1.0"), ("ce_id", b"1"), ("ce_source", b"/s"), ("ce_type", b"t"),
          ("ce_dataschema", b"relative/path")), b"", "invalid-attribute"),
    ],
)
def test_decode_errors(
    kafka: ModuleType, runtime_package: ModuleType, headers: tuple, value: bytes | None, reason: str
) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        kafka.decode(runtime_package.KafkaMessage("t", None, value, headers))
    assert exc.value.reason == reason


def test_malformed_message_object(kafka: ModuleType, runtime_package: ModuleType) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        kafka.decode(runtime_package.KafkaMessage("t", None, b"", (("ce_id", "str"),)))
    assert exc.value.reason == "invalid-message"
