"""NATS binding: ce- headers incl. ce-datacontenttype, percent-encoding, structured sniffing."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def nats(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.nats")


def test_binary_headers(nats: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(
        {**BASE, "datacontenttype": "text/plain; charset=utf-8", "subject": "a b"},
        b"x",
        runtime_package.NatsBinding(subject="s.1", headers=(("Nats-Msg-Id", "9"),)),
    )
    msg = nats.encode(event)
    headers = dict(msg.headers)
    assert headers["ce-datacontenttype"] == "text/plain;%20charset=utf-8"
    assert headers["ce-subject"] == "a%20b"
    assert "Content-Type" not in headers
    decoded = nats.decode(msg)
    assert decoded.attributes == event.attributes
    assert decoded.binding.headers == (("Nats-Msg-Id", "9"),)


def test_structured_and_headerless_sniffing(nats: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(dict(BASE), {"a": 1}, runtime_package.NatsBinding(subject="s"))
    msg = nats.encode(event, "structured")
    assert dict(msg.headers)["Content-Type"] == "application/cloudevents+json"
    old_server = runtime_package.NatsMessage("s", msg.payload)  # NATS < 2.2: no headers
    decoded = nats.decode(old_server)
    assert decoded.attributes == BASE and decoded.data == {"a": 1}
    plain = nats.decode(runtime_package.NatsMessage("s", b"[1,2]"))
    assert plain.attributes == {} and plain.data == b"[1,2]"


def test_binary_keeps_content_type_header(nats: ModuleType, runtime_package: ModuleType) -> None:
    headers = tuple(("ce-" + k, v) for k, v in BASE.items()) + (("content-type", "text/plain"),)
    event = nats.decode(runtime_package.NatsMessage("s", b"x", headers))
    assert "datacontenttype" not in event.attributes
    assert event.binding.headers == (("content-type", "text/plain"),)


def test_decode_errors(nats: ModuleType, runtime_package: ModuleType) -> None:
    bad = (("ce-specversion", "1.0"), ("ce-id", "%C0%A0"), ("ce-source", "/s"), ("ce-type", "t"))
    with pytest.raises(runtime_package.DecodeError) as exc:
        nats.decode(runtime_package.NatsMessage("s", b"x", bad))
    assert exc.value.reason == "invalid-encoding"
    broken = runtime_package.NatsMessage("s", b'{"specversion": "1.0"}')
    with pytest.raises(runtime_package.DecodeError) as exc:
        nats.decode(broken)
    assert exc.value.reason == "missing-attribute"
