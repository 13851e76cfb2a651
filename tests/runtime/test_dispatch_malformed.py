"""Wire messages whose fields hold values of the wrong type are dead-lettered as
``malformed-message``, on every binding, by ``dispatch`` and ``dispatch_async`` alike: never
``internal-error``, never a handler call, never an exception.

Each field of each wire message type gets values of other types (``object()``, an ``int``
of 5,000 digits, a float, ``str`` for ``bytes`` and the reverse, a list for a mapping, ...),
and headers and properties get items that are not name/value pairs or whose names or values
have the wrong type; the rest of the message is valid and reaches its handler as it is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from test_dispatch_hostile import Recorder, definitions
from xrgen_runtime import (
    AmqpMessage,
    HttpMessage,
    KafkaMessage,
    MqttMessage,
    NatsMessage,
    PulsarMessage,
    RocketMqMessage,
)
from xrgen_runtime._dispatch import DEAD_LETTER_REASONS, DispatcherBase

HUGE = 10**5000
BODY = b'{"value": 1.5, "seq": 1, "timestamp": "2024-05-01T12:00:00Z"}'
CE = (("specversion", "1.0"), ("id", "1"), ("source", "/plants/a/sensors/b"), ("type", "com.acme.Reading"))
#: a valid message of each binding that reaches a handler (plain or CloudEvents)
VALID: dict[str, Any] = {
    "kafka": KafkaMessage("audit.x.y", b"k", BODY, (("x-trace", b"1"),), 0),
    "kafka-ce": KafkaMessage(
        "t", None, BODY, tuple(("ce_" + k, v.encode()) for k, v in CE) + (("x", None),), None
    ),
    "amqp": AmqpMessage(BODY, {"subject": "order"}, {"x": 1}, {}, {}, {}, None),
    "mqtt": MqttMessage(
        "sites/a.b/c.d.e", BODY, 1, False, "5.0", "application/json", CE + (("x", "y"),)
    ),
    "nats": NatsMessage("svc.a.b", BODY, (("x", "y"),), None),
    "http": HttpMessage("POST", "/orders/a.json", (("x", "y"),), BODY, None),
    "pulsar": PulsarMessage("t", BODY, {"x": "y"}, None, 1),
    "rocketmq": RocketMqMessage("t", BODY, {"x": "y"}, "tag", ("k",)),
}
#: values of the wrong type for a field declared as ...
WRONG_SCALARS: dict[Any, list[Any]] = {
    str: [object(), HUGE, 1.5, b"bytes", ["a"]],
    bytes: [object(), HUGE, "text", 7, bytearray(b"x")],
    int: [object(), HUGE, -HUGE, "1", 1.0, b"1"],
    bool: [object(), "true", 1, None],
}
#: values of the wrong type for headers and properties (whatever their item type)
WRONG_CONTAINERS = [object(), HUGE, "ab", b"ab", 3]


def wrong_values(hint: Any) -> list[Any]:
    """Values of other types than ``hint`` admits (``None`` too when it is not optional)."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, __import__("types").UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return [v for v in wrong_values(inner) if v is not None]
    if origin is tuple:
        item = args[0]
        if typing.get_origin(item) is tuple:
            value = typing.get_args(item)[1]
            good = "v" if value is str else b"v"
            bad_value = 5 if value is str else "v"
            return [*WRONG_CONTAINERS, {"a": good}, (("a",),), (("a", good, good),), ((1, good),),
                    (("a", bad_value),), (("a", object()),), (("a", HUGE),), ("ab",), None]
        return [*WRONG_CONTAINERS, (1,), ("a", b"b"), (object(),), None]
    if origin is not None:  # a Mapping
        value = args[1]
        out = [*WRONG_CONTAINERS, [("a", "b")], {1: "a"}, None]
        if value is str:
            out += [{"a": 5}, {"a": b"b"}, {"a": object()}, {"a": HUGE}]
        return out
    return [None, *WRONG_SCALARS[hint]]


def cases() -> list[tuple[str, str, Any]]:
    out = []
    for name, valid in VALID.items():
        hints = typing.get_type_hints(type(valid))
        for field in dataclasses.fields(valid):
            for i, value in enumerate(wrong_values(hints[field.name])):
                out.append((f"{name}.{field.name}[{i}]", field.name, (name, value)))
    return out


@pytest.fixture(scope="module")
def dispatcher() -> tuple[DispatcherBase, Recorder]:
    rec = Recorder()
    defs = definitions()
    d = DispatcherBase(defs, dead_letter=rec.dead_letter)
    for defn in defs:
        d.on(defn.id)(lambda event, params, mid=defn.id: rec.calls.append(mid))
    return d, rec


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_messages_reach_a_handler(name: str, dispatcher: tuple[DispatcherBase, Recorder]) -> None:
    d, rec = dispatcher
    rec.calls.clear()
    rec.dead.clear()
    assert d.dispatch(VALID[name]), rec.dead
    assert asyncio.run(d.dispatch_async(VALID[name])), rec.dead
    assert len(rec.calls) == 2 and not rec.dead


CASES = cases()


@pytest.mark.parametrize(("field", "case"), [(f, c) for _, f, c in CASES], ids=[i for i, _, _ in CASES])
def test_a_field_of_the_wrong_type_is_a_malformed_message(
    field: str, case: tuple[str, Any], dispatcher: tuple[DispatcherBase, Recorder]
) -> None:
    d, rec = dispatcher
    name, value = case
    wire = dataclasses.replace(VALID[name], **{field: value})
    for run in (d.dispatch, lambda w: asyncio.run(d.dispatch_async(w))):
        rec.calls.clear()
        rec.dead.clear()
        result = run(wire)
        assert not result and result.reason == "malformed-message"
        ((original, reason, detail),) = rec.dead
        assert original is wire and reason == "malformed-message" and not rec.calls
        assert field in detail and "\n" not in detail and len(detail) <= 4096, detail


def test_a_value_read_in_matching_outside_64_bits_is_malformed(
    dispatcher: tuple[DispatcherBase, Recorder],
) -> None:
    """AMQP sections hold any AMQP value: an integer no AMQP type holds is malformed when
    matching reads it (here the ``subject`` the definition matches)."""
    d, rec = dispatcher
    rec.dead.clear()
    wire = dataclasses.replace(VALID["amqp"], properties={"subject": HUGE})
    assert d.dispatch(wire).reason == "malformed-message"
    assert asyncio.run(d.dispatch_async(wire)).reason == "malformed-message"
    assert [r for _, r, _ in rec.dead] == ["malformed-message"] * 2


def test_dispatch_event_of_an_event_is_not_a_wire_check(dispatcher: tuple[DispatcherBase, Recorder]) -> None:
    """``dispatch_event`` takes an event, whatever wire it came from: its checks are the
    event's, not a wire message's."""
    from xrgen_runtime.bindings import kafka

    d, rec = dispatcher
    rec.dead.clear()
    event = kafka.decode(VALID["kafka-ce"])
    assert d.dispatch_event(event)


def test_the_routing_guide_lists_exactly_the_dead_letter_reasons() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "routing.md").read_text()
    section = guide.split("## Dead-letter reasons", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.M)
    assert listed == list(DEAD_LETTER_REASONS)
