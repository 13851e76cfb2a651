"""The generated package of catalogs/acme, imported and run: every message is built with its
producer, round-tripped through its binding's codec in both modes (and envelope-only ones
through every codec) and dispatched to its typed handler."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from acme_samples import CODEC_OF, NOW, ROUTES, SAMPLES


def test_every_message_has_a_sample(acme: ModuleType) -> None:
    assert set(acme.MESSAGES) == set(SAMPLES)


@pytest.mark.parametrize("message_id", sorted(SAMPLES))
def test_produce_encode_decode_dispatch(acme: ModuleType, message_id: str) -> None:
    import importlib

    canonical = importlib.import_module("xrgen_runtime._attributes").to_canonical
    info = acme.MESSAGES[message_id]
    data, kwargs = SAMPLES[message_id]
    event = info.create(data, **kwargs)
    if info.model is not None:
        assert isinstance(event.data, info.model)
    protocol = info.definition.protocol
    codecs = [CODEC_OF[protocol]] if protocol else sorted(ROUTES)
    modes = ["binary", "structured"] if event.attributes else ["binary"]
    calls: list[tuple[Any, dict[str, str]]] = []
    dead: list[tuple[str, str]] = []
    d = acme.consumer.Dispatcher(dead_letter=lambda wire, reason, detail: dead.append((reason, detail)))
    d.on(message_id)(lambda ev, params: calls.append((ev, params)))
    for name in codecs:
        codec = importlib.import_module(f"{acme.__name__}.bindings.{name}")
        for mode in modes:
            wire = codec.encode(event, mode=mode, **({} if protocol else ROUTES[name]))
            back = codec.decode(wire)
            for attr, value in event.attributes.items():
                # extensions arrive as canonical strings in binary mode; typed ones equal
                got = back.attributes[attr]
                assert got == value or got == canonical(value), (name, mode, attr)
            result = d.dispatch(wire)
            assert result, (name, mode, dead)
    assert not dead
    assert len(calls) == len(codecs) * len(modes)
    for ev, params in calls:
        assert ev.data == event.data
        # declared extensions are typed again; MQTT 5 binary mode maps attributes to unprefixed
        # user properties, so the catalog's user property "origin" arrives as an attribute too
        extra = {k: v for k, v in ev.attributes.items() if k not in event.attributes}
        assert extra in ({}, {"origin": "acme"})
        assert {k: ev.attributes[k] for k in event.attributes} == event.attributes
        placeholders = {k: v for k, v in kwargs.items() if isinstance(v, str) and k in params}
        assert params == placeholders


def test_template_values_are_percent_encoded_and_extracted(acme: ModuleType) -> None:
    ev = acme.producer.ComAcmeBaseProducer(plant="p 1").reading({"value": 1}, sensor="s/1")
    assert ev.attributes["source"] == "/plants/p%201/sensors/s%2F1"
    assert ev.binding.key == b"p%201/s%2F1" and ev.binding.topic == "acme.readings"


def test_defaults_and_overrides(acme: ModuleType) -> None:
    p = acme.producer.ComAcmeBaseProducer(plant="p1")
    a = p.reading({"value": 1}, sensor="s")
    b = p.reading({"value": 1}, sensor="s")
    assert a.attributes["id"] != b.attributes["id"]
    assert a.attributes["time"].tzinfo is not None
    c = p.reading({"value": 1}, sensor="s", id="fixed", time=NOW, plant="other")
    assert c.attributes["id"] == "fixed" and c.attributes["time"] == NOW
    assert c.attributes["source"] == "/plants/other/sensors/s"
    with pytest.raises(TypeError):
        acme.producer.ComAcmeBaseProducer().reading({"value": 1}, sensor="s")  # plant missing


def test_invalid_payload_is_rejected_by_the_producer(acme: ModuleType) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        acme.producer.ComAcmeBaseProducer(plant="p").reading({"unit": "C"}, sensor="s")


def test_strict_validation_on_dispatch(acme: ModuleType) -> None:
    from acme.bindings import nats  # type: ignore[import-not-found]

    ev = acme.producer.ComAcmeOpsProducer(plant="p1").shift_changed({"shift": 1})
    wire = nats.encode(ev, mode="binary")
    bad = type(wire)(wire.subject, b'{"shift": 3.7}', wire.headers, wire.reply)
    dead: list[str] = []
    d = acme.consumer.Dispatcher(dead_letter=lambda w, reason, detail: dead.append(reason))
    d.on_shift_changed(lambda e, p: None)
    assert not d.dispatch(bad)
    assert dead == ["validation-error"]
