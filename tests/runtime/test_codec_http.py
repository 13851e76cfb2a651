"""HTTP binding: percent-encoding (section 3.1.3.2), modes, batch, routing, errors."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def http(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.http")


@pytest.fixture()
def common(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings._common")


def test_spec_percent_encoding_example(common: ModuleType) -> None:
    assert common.pct_encode("Euro € 😀") == "Euro%20%E2%82%AC%20%F0%9F%98%80"
    assert common.pct_decode("Euro%20%E2%82%AC%20%F0%9F%98%80") == "Euro € 😀"


def test_percent_encoding_exact_set(common: ModuleType) -> None:
    printable = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"%')
    assert common.pct_encode(printable) == printable
    assert common.pct_encode(' "%') == "%20%22%25"
    assert common.pct_encode("\x00\x7f\u0080") == "%00%7F%C2%80"


def test_percent_decoding_is_lenient_but_rejects_invalid_utf8(
    runtime_package: ModuleType, common: ModuleType
) -> None:
    assert common.pct_decode("%e2%82%ac") == "€"  # lower-case hex
    assert common.pct_decode("%41bc") == "Abc"  # needlessly encoded
    for bad in ("%C0%A0", "%FF", "%E2%82", "abc%", "%4", "%G1"):
        with pytest.raises(runtime_package.DecodeError) as exc:
            common.pct_decode(bad)
        assert exc.value.reason == "invalid-encoding"


def test_quoted_string_unquoted_before_percent_decoding(
    http: ModuleType, runtime_package: ModuleType
) -> None:
    headers = (
        ("ce-specversion", "1.0"),
        ("CE-ID", '"a\\"b%20c"'),
        ("Ce-Source", "/s"),
        ("ce-type", "t"),
    )
    event = http.decode(runtime_package.HttpMessage("POST", "/", headers, b""))
    assert event.attributes["id"] == 'a"b c'


def test_binary_headers(http: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(
        {**BASE, "datacontenttype": "text/plain", "subject": "Euro € 😀"}, b"hello"
    )
    msg = http.encode(event)
    headers = dict(msg.headers)
    assert headers["ce-subject"] == "Euro%20%E2%82%AC%20%F0%9F%98%80"
    assert headers["content-type"] == "text/plain"
    assert "ce-datacontenttype" not in headers  # MUST NOT be present
    assert (msg.method, msg.path, msg.body) == ("POST", "/", b"hello")


def test_structured_content_type_and_detection(http: ModuleType, runtime_package: ModuleType) -> None:
    msg = http.encode(runtime_package.Event(dict(BASE), {"a": 1}), "structured")
    assert dict(msg.headers)["content-type"] == "application/cloudevents+json; charset=UTF-8"
    upper = runtime_package.HttpMessage(
        "POST", "/", (("Content-Type", "APPLICATION/CloudEvents+JSON"),), msg.body
    )
    assert http.decode(upper).data == {"a": 1}


def test_batch_round_trip_and_detection(http: ModuleType, runtime_package: ModuleType) -> None:
    events = [runtime_package.Event({**BASE, "id": str(i)}, {"i": i}) for i in range(3)]
    msg = http.encode_batch(events, path="/batch")
    assert dict(msg.headers)["content-type"].startswith("application/cloudevents-batch+json")
    decoded = http.decode_batch(msg)
    assert [e.attributes["id"] for e in decoded] == ["0", "1", "2"]
    assert [e.data for e in decoded] == [{"i": 0}, {"i": 1}, {"i": 2}]
    assert decoded[0].binding.path == "/batch"
    with pytest.raises(runtime_package.DecodeError) as exc:
        http.decode(msg)
    assert exc.value.reason == "unexpected-batch"
    empty = http.encode_batch([])
    assert http.decode_batch(empty) == []
    single = http.encode(events[0])
    assert [e.attributes["id"] for e in http.decode_batch(single)] == ["0"]


def test_request_target_and_foreign_headers(http: ModuleType, runtime_package: ModuleType) -> None:
    msg = runtime_package.HttpMessage(
        "PATCH",
        "/things/1?x=a%20b&y=",
        (("ce-specversion", "1.0"), ("ce-id", "1"), ("ce-source", "/s"), ("ce-type", "t"),
         ("X-Trace", "abc")),
        b"",
        None,
    )
    event = http.decode(msg)
    assert event.data is None
    assert event.binding.method == "PATCH"
    assert event.binding.path == "/things/1"
    assert event.binding.query == (("x", "a b"), ("y", ""))
    assert event.binding.headers == (("X-Trace", "abc"),)
    again = http.encode(event)
    assert ("X-Trace", "abc") in again.headers
    assert again.path == "/things/1?x=a+b&y="


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ((("ce-id", "1"), ("ce-source", "/s"), ("ce-type", "t")), "missing-attribute"),
        ((("ce-specversion", "0.3"), ("ce-id", "1"), ("ce-source", "/s"), ("ce-type", "t")),
         "invalid-specversion"),
        ((("ce-specversion", "1.0"), ("ce-id", "%C0%A0"), ("ce-source", "/s"), ("ce-type", "t")),
         "invalid-encoding"),
        ((("ce-specversion", "1.0"), ("ce-id", "1"), ("ce-id", "2"), ("ce-source", "/s"),
          ("ce-type", "t")), "duplicate-attribute"),
        ((("ce-specversion", "1.0"), ("ce-i_d", "1")), "invalid-attribute-name"),
        ((("ce-specversion", "1.0"), ("ce-id", "1"), ("ce-source", "/s"), ("ce-type", "t"),
          ("ce-time", "yesterday")), "invalid-attribute"),
        ((("ce-specversion", "1.0"), ("ce-id", ""), ("ce-source", "/s"), ("ce-type", "t")),
         "invalid-attribute"),
        ((("content-type", "application/cloudevents+json"),), "invalid-json"),
        ((("content-type", "application/cloudevents+avro"),), "unsupported-format"),
    ],
)
def test_decode_errors(
    http: ModuleType, runtime_package: ModuleType, headers: tuple, reason: str
) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        http.decode(runtime_package.HttpMessage("POST", "/", headers, b"{"))
    assert exc.value.reason == reason


def test_plain_http_message(http: ModuleType, runtime_package: ModuleType) -> None:
    msg = runtime_package.HttpMessage("GET", "/x", (("Content-Type", "application/json"),), b"{}")
    event = http.decode(msg)
    assert event.attributes == {}
    assert event.data == b"{}"
    assert http.encode(event) == runtime_package.HttpMessage(
        "GET", "/x", (("Content-Type", "application/json"),), b"{}", None
    )
