"""MQTT 5.0 and 3.1.1 bindings."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


@pytest.fixture()
def mqtt(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{runtime_package.__name__}.bindings.mqtt")


def test_v5_binary_user_properties_unprefixed(mqtt: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(
        {**BASE, "datacontenttype": "text/plain", "n": 1},
        b"x",
        runtime_package.MqttBinding(topic="a", user_properties=(("X-App", "1"),)),
    )
    msg = mqtt.encode(event)
    assert msg.user_properties == (
        ("specversion", "1.0"), ("id", "1"), ("source", "/s"), ("type", "t"), ("n", "1"),
        ("X-App", "1"),
    )
    assert msg.content_type == "text/plain"
    decoded = mqtt.decode(msg)
    assert decoded.attributes == {**BASE, "datacontenttype": "text/plain", "n": "1"}
    assert decoded.binding.user_properties == (("X-App", "1"),)


def test_v311_is_structured_only(mqtt: ModuleType, runtime_package: ModuleType) -> None:
    event = runtime_package.Event(dict(BASE), {"a": 1}, runtime_package.MqttBinding(topic="a", version="3.1.1"))
    with pytest.raises(ValueError, match="3.1.1"):
        mqtt.encode(event)
    msg = mqtt.encode(event, "structured")
    assert msg.content_type is None and msg.user_properties == ()
    assert mqtt.decode(msg).data == {"a": 1}
    plain = runtime_package.MqttMessage("a", b"not json", version="3.1.1")
    assert mqtt.decode(plain).attributes == {}
    other_json = runtime_package.MqttMessage("a", b'{"x": 1}', version="3.1.1")
    assert mqtt.decode(other_json).attributes == {}


def test_datacontenttype_user_property_accepted(mqtt: ModuleType, runtime_package: ModuleType) -> None:
    props = tuple(BASE.items()) + (("datacontenttype", "text/plain"),)
    event = mqtt.decode(runtime_package.MqttMessage("a", b"x", user_properties=props))
    assert event.attributes["datacontenttype"] == "text/plain"
    both = runtime_package.MqttMessage("a", b"x", content_type="text/csv", user_properties=props)
    assert mqtt.decode(both).attributes["datacontenttype"] == "text/csv"


def test_plain_v5_without_specversion(mqtt: ModuleType, runtime_package: ModuleType) -> None:
    msg = runtime_package.MqttMessage(
        "a", b"x", qos=1, content_type="text/plain", user_properties=(("id", "1"),),
        response_topic="r", correlation_data=b"c", message_expiry_interval=9,
    )
    event = mqtt.decode(msg)
    assert event.attributes == {}
    assert event.binding.content_type == "text/plain"
    assert mqtt.encode(event) == msg


@pytest.mark.parametrize(
    ("props", "ct", "reason"),
    [
        ((("specversion", "1.0"),), None, "missing-attribute"),
        ((("specversion", "1.0"), ("specversion", "1.0")), None, "duplicate-attribute"),
        ((), "application/cloudevents+json", "invalid-json"),
        ((("specversion", "1.0"), ("id", "1"), ("source", "/s"), ("type", "t"),
          ("time", "2024-13-01T00:00:00Z")), None, "invalid-attribute"),
    ],
)
def test_decode_errors(mqtt: ModuleType, runtime_package: ModuleType, props: tuple, ct: str | None, reason: str) -> None:
    with pytest.raises(runtime_package.DecodeError) as exc:
        mqtt.decode(runtime_package.MqttMessage("a", b"{", content_type=ct, user_properties=props))
    assert exc.value.reason == reason


def _fields(binding: object) -> tuple[object, ...]:
    """A binding's field values with their types (``1`` and ``True`` compare equal)."""
    return tuple((type(v), v) for v in (getattr(binding, n) for n in binding.__slots__))


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"response_topic": "r"},
        {"correlation_data": b"c"},
        {"message_expiry_interval": 5},
        {"payload_format_indicator": 1},
        {"user_properties": tuple(BASE.items()) + (("X-App", "1"),)},
        {"qos": True},  # a bool where an int belongs: never shares the qos=1 binding
        {"retain": 1},
    ],
)
def test_decoded_bindings_are_the_fields_of_the_message(
    mqtt: ModuleType, runtime_package: ModuleType, extra: dict[str, object]
) -> None:
    """Messages with no PUBLISH property but topic, qos, retain and version share one binding
    per topic (they are immutable); whichever way it is made, the binding holds exactly the
    message's fields."""
    rt = runtime_package
    props = extra.pop("user_properties", tuple(BASE.items()))
    for _ in range(2):  # the second decode may take the shared binding
        for qos in (0, 1):
            fields = {"qos": qos, "retain": False, **extra}
            msg = rt.MqttMessage("t/a", b"{}", user_properties=props, **fields)
            binding = mqtt.decode(msg).binding
            other = tuple(p for p in props if p[0] not in BASE)
            expected = rt.MqttBinding(
                topic="t/a",
                version="5.0",
                user_properties=other,
                **{k: v for k, v in fields.items()},
            )
            assert _fields(binding) == _fields(expected)
    first = mqtt.decode(rt.MqttMessage("t/b", b"{}", user_properties=tuple(BASE.items())))
    again = mqtt.decode(rt.MqttMessage("t/b", b"{}", user_properties=tuple(BASE.items())))
    assert first.binding is again.binding


def test_shared_bindings_are_bounded(mqtt: ModuleType, runtime_package: ModuleType) -> None:
    """However many topics arrive, the shared bindings stay at most ``_CACHE_LIMIT``, and
    topics longer than a cache key are never kept."""
    codec = importlib.import_module(f"{runtime_package.__name__}.bindings.mqtt.codec")
    props = tuple(BASE.items())
    long_topic = "t/" + "x" * 300
    codec.decode(runtime_package.MqttMessage(long_topic, b"{}", user_properties=props))
    assert all(key[0] != long_topic for key in codec._SHARED)
    for i in range(codec._CACHE_LIMIT + 10):
        topic = f"many/{i}"
        event = codec.decode(runtime_package.MqttMessage(topic, b"{}", user_properties=props))
        assert event.binding.topic == topic
    assert len(codec._SHARED) == codec._CACHE_LIMIT
