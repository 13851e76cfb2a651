"""AMQP 1.0 binding: prefixes and separators, native and string value forms."""

from __future__ import annotations

import importlib
from datetime import datetime, timezone
from types import ModuleType

import pytest

UTC = timezone.utc
BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def amqp(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.amqp")


def test_native_types_out(amqp: ModuleType, runtime_package: ModuleType) -> None:
    ms = datetime(2024, 1, 1, 0, 0, 0, 5000, tzinfo=UTC)
    us = datetime(2024, 1, 1, 0, 0, 0, 5001, tzinfo=UTC)
    event = runtime_package.Event(
        {**BASE, "time": ms, "b": True, "n": 3, "bin": b"\x01", "fine": us,
         "datacontenttype": "text/plain"},
        b"data",
    )
    msg = amqp.encode(event)
    app = msg.application_properties
    assert app["cloudEvents_specversion"] == "1.0"
    assert app["cloudEvents_time"] == ms
    assert app["cloudEvents_b"] is True
    assert app["cloudEvents_n"] == 3
    assert app["cloudEvents_bin"] == b"\x01"
    assert app["cloudEvents_fine"] == "2024-01-01T00:00:00.005001Z"  # lossless string form
    assert "cloudEvents_datacontenttype" not in app
    assert msg.properties["content-type"] == "text/plain"
    assert msg.body == b"data"


def test_colon_separator_and_both_value_forms_in(amqp: ModuleType, runtime_package: ModuleType) -> None:
    for sep in ("_", ":"):
        msg = runtime_package.AmqpMessage(
            body=b"x",
            properties={"content-type": "text/plain", "subject": "sub"},
            application_properties={
                f"cloudEvents{sep}specversion": "1.0",
                f"cloudEvents{sep}id": "1",
                f"cloudEvents{sep}source": "/s",
                f"cloudEvents{sep}type": "t",
                f"cloudEvents{sep}time": "2024-01-01T00:00:00Z",
                f"cloudEvents{sep}flag": True,
                f"cloudEvents{sep}sflag": "true",
                f"cloudEvents{sep}when": datetime(2024, 1, 1),
                "x-other": 1,
            },
        )
        event = amqp.decode(msg)
        assert event.attributes["time"] == datetime(2024, 1, 1, tzinfo=UTC)
        assert event.attributes["flag"] is True
        assert event.attributes["sflag"] == "true"
        assert event.attributes["when"] == datetime(2024, 1, 1, tzinfo=UTC)
        assert event.attributes["datacontenttype"] == "text/plain"
        assert event.binding.application_properties == {"x-other": 1}
        assert event.binding.properties == {"subject": "sub"}
    native_time = runtime_package.AmqpMessage(
        b"x", {}, {"cloudEvents_specversion": "1.0", "cloudEvents_id": "1",
                   "cloudEvents_source": "/s", "cloudEvents_type": "t",
                   "cloudEvents_time": datetime(2024, 1, 1, 1, tzinfo=UTC)})
    assert amqp.decode(native_time).attributes["time"] == datetime(2024, 1, 1, 1, tzinfo=UTC)


def test_encode_with_colon_separator(amqp: ModuleType, runtime_package: ModuleType) -> None:
    msg = amqp.encode(runtime_package.Event(dict(BASE), b"x"), separator=":")
    assert set(msg.application_properties) == {
        "cloudEvents:specversion", "cloudEvents:id", "cloudEvents:source", "cloudEvents:type"
    }
    assert amqp.decode(msg).attributes == BASE


@pytest.mark.parametrize(
    ("app", "reason"),
    [
        ({"cloudEvents_specversion": "1.0", "cloudEvents:id": "1"}, "mixed-separators"),
        ({"cloudEvents_specversion": "1.0", "cloudEvents_id": "1", "cloudEvents_source": "/s",
          "cloudEvents_type": "t", "cloudEvents_x": 1.5}, "invalid-attribute"),
        ({"cloudEvents_specversion": "1.0", "cloudEvents_id": 5, "cloudEvents_source": "/s",
          "cloudEvents_type": "t"}, "invalid-attribute"),
        ({"cloudEvents_specversion": "1.0", "cloudEvents_id": "1", "cloudEvents_source": "/s",
          "cloudEvents_type": "t", "cloudEvents_big": 2**40}, "invalid-attribute"),
        ({"cloudEvents_Bad": "1"}, "invalid-attribute-name"),
        ({"cloudEvents_specversion": "2.0"}, "invalid-specversion"),
    ],
)
def test_decode_errors(amqp: ModuleType, runtime_package: ModuleType, app: dict, reason: str) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        amqp.decode(runtime_package.AmqpMessage(b"x", {}, app))
    assert exc.value.reason == reason


def test_structured_and_plain(amqp: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(dict(BASE), {"k": "v"}, runtime_package.AmqpBinding(address="q"))
    msg = amqp.encode(event, "structured")
    assert msg.properties["content-type"] == "application/cloudevents+json; charset=utf-8"
    assert msg.address == "q"
    assert amqp.decode(msg).data == {"k": "v"}
    plain = runtime_package.AmqpMessage(None, {"content-type": "text/plain"}, {"a": 1})
    decoded = amqp.decode(plain)
    assert decoded.attributes == {} and decoded.data is None
    assert decoded.binding.properties == {"content-type": "text/plain"}
    assert amqp.encode(decoded) == plain
