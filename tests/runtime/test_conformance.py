"""Three CloudEvents binding rules: ``datacontenttype`` is an RFC 2046 media type, HTTP header
values undo RFC 7230 quoted-strings anywhere in the value, and the Kafka partition-key mapper
keeps the event's own key when ``partitionkey`` is absent."""

from __future__ import annotations

from typing import Any

import pytest
from xrgen_runtime import DecodeError, Event, HttpMessage, KafkaBinding, KafkaMessage
from xrgen_runtime._dispatch import DispatcherBase
from xrgen_runtime.bindings import http, kafka, nats

ATTRS = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


def ce_headers(content_type: str) -> tuple[tuple[str, bytes | None], ...]:
    return (
        *((f"ce_{k}", v.encode()) for k, v in ATTRS.items()),
        ("content-type", content_type.encode()),
    )


@pytest.mark.parametrize(
    "content_type",
    ["json", "application/json\r\nX-Injected: 1", "a/b;", "text /plain", "", "a/b c"],
)
def test_a_content_type_that_is_not_a_media_type_is_dead_lettered(
    content_type: str,
) -> None:
    message = KafkaMessage("t", None, b"{}", ce_headers(content_type), None)
    with pytest.raises(DecodeError) as info:
        kafka.decode(message)
    if content_type:
        assert (
            str(info.value)
            == "invalid-attribute: datacontenttype: not an RFC 2046 media type"
        )
    dead: list[tuple[object, str, str]] = []
    result = DispatcherBase((), dead_letter=lambda *a: dead.append(a)).dispatch(message)
    assert (
        dead == [(message, "decode-error", dead[0][2])]
        and result.reason == "decode-error"
    )


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "Application/JSON; charset=UTF-8", 'text/plain; a="x;\\"y"'],
)
def test_media_types_are_accepted(content_type: str) -> None:
    message = KafkaMessage("t", None, b"{}", ce_headers(content_type), None)
    assert kafka.decode(message).attributes["datacontenttype"] == content_type


@pytest.mark.parametrize(
    ("value", "decoded"),
    [
        ('"a b"', "a b"),
        ('x "a\\"b" y', 'x a"b y'),
        ('"one" and "two"', "one and two"),
        ('pre%20"q%41"', "pre qA"),
        ("plain", "plain"),
    ],
)
def test_http_header_values_undo_quoted_strings_inside(
    value: str, decoded: str
) -> None:
    headers = tuple((f"ce-{k}", v) for k, v in ATTRS.items()) + (("ce-subject", value),)
    for codec, message in (
        (http, HttpMessage("POST", "/", headers, b"", None)),
        (nats, nats.NatsMessage("s", b"", headers, None)),
    ):
        assert codec.decode(message).attributes["subject"] == decoded


def test_an_unterminated_quoted_string_is_a_decode_error() -> None:
    headers = tuple((f"ce-{k}", v) for k, v in ATTRS.items()) + (
        ("ce-subject", 'a "b'),
    )
    with pytest.raises(DecodeError, match="^invalid-encoding"):
        http.decode(HttpMessage("POST", "/", headers, b"", None))


def test_partitionkey_mapper_keeps_the_events_own_key() -> None:
    own = Event(dict(ATTRS), b"x", KafkaBinding(topic="t", key=b"own"))
    assert kafka.encode(own, key_mapper=kafka.partitionkey_key_mapper).key == b"own"
    keyed = Event(
        {**ATTRS, "partitionkey": "pk"}, b"x", KafkaBinding(topic="t", key=b"own")
    )
    assert kafka.encode(keyed, key_mapper=kafka.partitionkey_key_mapper).key == b"pk"
    bare: Any = Event(dict(ATTRS), b"x")
    assert (
        kafka.encode(bare, topic="t", key_mapper=kafka.partitionkey_key_mapper).key
        is None
    )
