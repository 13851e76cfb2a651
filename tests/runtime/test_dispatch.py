"""Event-level tests of the consumer dispatch engine (runtime/xrgen_runtime/_dispatch.py).

The engine runs inside the ``runtime_package`` fixture (the static runtime copied into a
temporary package); message definitions and payload models are written by hand here.
"""

from __future__ import annotations

import asyncio
import enum
import importlib
import json
import logging
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel


class Label(str, enum.Enum):
    low = "low"
    high = "high"


class Reading(BaseModel):
    value: float
    seq: int
    timestamp: datetime
    label: Label | None = None


class Alpha(BaseModel):
    a: int


class Beta(BaseModel):
    b: str


READING = "com.acme.Reading"
SOURCE = "/plants/{plant}/sensors/{sensor}"
BODY = {"value": 1.5, "seq": 7, "timestamp": "2024-05-01T12:00:00Z", "label": "high"}


@pytest.fixture(scope="module")
def rt(runtime_package: ModuleType) -> ModuleType:
    importlib.import_module(runtime_package.__name__ + "._dispatch")
    return runtime_package


class Recorder:
    """Collects handler calls and dead letters; checks the exactly-once rule."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, dict[str, str]]] = []
        self.dead: list[tuple[object, str, str]] = []

    def handler(self, name: str) -> Any:
        def handle(event: Any, params: dict[str, str]) -> None:
            self.calls.append((name, event, params))

        return handle

    def dead_letter(self, original: object, reason: str, detail: str) -> None:
        self.dead.append((original, reason, detail))

    def one_dead(self) -> tuple[object, str, str]:
        assert self.calls == [] and len(self.dead) == 1, (self.calls, self.dead)
        return self.dead[0]

    def one_call(self) -> tuple[str, Any, dict[str, str]]:
        assert self.dead == [] and len(self.calls) == 1, (self.calls, self.dead)
        return self.calls[0]


def reading_def(rt: ModuleType, **kw: Any) -> Any:
    fields: dict[str, Any] = {
        "id": READING,
        "group": "com.acme",
        "envelope": "CloudEvents/1.0",
        "type": READING,
        "attributes": (
            rt.AttrDef("type", "string", True, READING),
            rt.AttrDef("source", "uritemplate", True, SOURCE),
            rt.AttrDef("time", "timestamp", False, "0000-01-01T00:00:00Z"),
        ),
        "datacontenttype": "application/json",
        "schemaformat": "json",
        "model": Reading,
    }
    fields.update(kw)
    return rt.MessageDef(**fields)


def ce(
    rt: ModuleType,
    type_: str = READING,
    source: str = "/plants/p1/sensors/s%201",
    data: Any = None,
    binding: Any = None,
    **extra: Any,
) -> Any:
    attributes: dict[str, Any] = {
        "specversion": "1.0",
        "id": "e-1",
        "source": source,
        "type": type_,
        "time": datetime(2024, 5, 1, 12, tzinfo=timezone.utc),
        "datacontenttype": "application/json",
    }
    attributes.update(extra)
    if data is None:
        data = json.dumps(BODY).encode()
    return rt.Event(attributes, data, binding)


def make(rt: ModuleType, defs: tuple[Any, ...]) -> tuple[Any, Recorder]:
    rec = Recorder()
    return rt._dispatch.DispatcherBase(defs, dead_letter=rec.dead_letter), rec


# ------------------------------------------------------------------------------ handlers


def test_typed_handler_gets_model_params_and_same_attributes(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))

    @d.on(READING)
    def handle(event: Any, params: dict[str, str]) -> None:
        rec.calls.append(("reading", event, params))

    binding = rt.KafkaBinding(topic="t", key=b"k")
    event = ce(rt, binding=binding)
    result = d.dispatch_event(event)
    _name, got, params = rec.one_call()
    assert (
        result
        and result.handled
        and result.message_id == READING
        and result.reason is None
    )
    assert isinstance(got.data, Reading)
    assert got.data == Reading(
        value=1.5,
        seq=7,
        timestamp=datetime(2024, 5, 1, 12, tzinfo=timezone.utc),
        label=Label.high,
    )
    assert (
        got is not event
        and got.attributes == event.attributes
        and got.binding is binding
    )
    assert params == {"plant": "p1", "sensor": "s 1"}
    assert event.data == json.dumps(BODY).encode()  # the input event is not modified


def test_register_returns_handler_and_rejects_unknown_ids(rt: ModuleType) -> None:
    d, _rec = make(rt, (reading_def(rt),))

    def handle(event: Any, params: dict[str, str]) -> None: ...

    assert d._register(READING, handle) is handle
    assert d.on(READING)(handle) is handle
    assert d.message_ids == (READING,)
    with pytest.raises(KeyError):
        d._register("com.acme.Nope", handle)


def test_structured_json_value_is_validated_with_json_semantics(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(ce(rt, data=dict(BODY)))
    assert rec.one_call()[1].data.timestamp == datetime(
        2024, 5, 1, 12, tzinfo=timezone.utc
    )
    for bad in ({**BODY, "seq": 3.7}, {**BODY, "seq": "3"}, {**BODY, "seq": 3.0}):
        rec.calls.clear()
        result = d.dispatch_event(ce(rt, data=bad))
        assert not result and result.reason == "validation-error"
    assert [r for _o, r, _d in rec.dead] == ["validation-error"] * 3
    assert "seq" in rec.dead[0][2]


def test_binary_bytes_reject_float_for_int(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))
    d.on(READING)(rec.handler("r"))
    d.dispatch_event(ce(rt, data=json.dumps({**BODY, "seq": 3.7}).encode()))
    assert rec.one_dead()[1] == "validation-error"


def test_non_json_content_type_for_json_model_is_a_validation_error(
    rt: ModuleType,
) -> None:
    d, rec = make(rt, (reading_def(rt, datacontenttype=None),))
    d.on(READING)(rec.handler("r"))
    d.dispatch_event(ce(rt, datacontenttype="text/plain"))
    _o, reason, detail = rec.one_dead()
    assert reason == "validation-error" and "text/plain" in detail


def test_json_content_type_variants_accepted(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt, datacontenttype=None),))
    d.on(READING)(rec.handler("r"))
    for ct in (
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/vnd.x+json",
    ):
        assert d.dispatch_event(ce(rt, datacontenttype=ct))
    event = ce(rt)
    del event.attributes["datacontenttype"]  # absent means JSON
    assert d.dispatch_event(event)
    assert len(rec.calls) == 4 and rec.dead == []


def test_opaque_payload_passes_bytes_through(rt: ModuleType) -> None:
    opaque = reading_def(rt, model=None, schemaformat=None, datacontenttype=None)
    d, rec = make(rt, (opaque,))
    d.on(READING)(rec.handler("r"))
    d.dispatch_event(
        ce(rt, data=b"\x00\xffraw", datacontenttype="application/octet-stream")
    )
    d.dispatch_event(ce(rt, data="text body", datacontenttype="text/plain"))
    assert [c[1].data for c in rec.calls] == [b"\x00\xffraw", b"text body"]


# ------------------------------------------------------------------------------ async


def test_dispatch_async_awaits_coroutine_handlers(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))
    seen: list[Any] = []

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        await asyncio.sleep(0)
        seen.append((event.data.seq, params["sensor"]))

    result = asyncio.run(d.dispatch_event_async(ce(rt)))
    assert result.handled and seen == [(7, "s 1")] and rec.dead == []


def test_dispatch_async_also_runs_sync_handlers_and_async_dead_letters(
    rt: ModuleType,
) -> None:
    dead: list[str] = []

    async def dead_letter(original: object, reason: str, detail: str) -> None:
        await asyncio.sleep(0)
        dead.append(reason)

    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=dead_letter)
    calls: list[int] = []
    d.on(READING)(lambda event, params: calls.append(event.data.seq))
    assert asyncio.run(d.dispatch_event_async(ce(rt))).handled
    assert not asyncio.run(d.dispatch_event_async(ce(rt, type_="x.Unknown"))).handled
    assert calls == [7] and dead == ["unknown-type"]


def test_sync_dispatch_runs_async_handler_when_no_loop_is_running(
    rt: ModuleType,
) -> None:
    d, rec = make(rt, (reading_def(rt),))
    seen: list[int] = []

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        seen.append(event.data.seq)

    assert d.dispatch_event(ce(rt)).handled
    assert seen == [7] and rec.dead == []


def test_sync_dispatch_inside_running_loop_dead_letters_async_handler(
    rt: ModuleType,
) -> None:
    d, rec = make(rt, (reading_def(rt),))
    seen: list[int] = []

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        seen.append(1)

    async def main() -> Any:
        return d.dispatch_event(ce(rt))

    result = asyncio.run(main())
    assert result.reason == "async-handler-in-sync-dispatch" and seen == []
    assert rec.one_dead()[1] == "async-handler-in-sync-dispatch"


def test_async_handler_error_is_dead_lettered(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))

    @d.on(READING)
    async def handle(event: Any, params: dict[str, str]) -> None:
        raise RuntimeError("boom")

    assert asyncio.run(d.dispatch_event_async(ce(rt))).reason == "handler-error"
    assert d.dispatch_event(ce(rt)).reason == "handler-error"
    assert [(r, det) for _o, r, det in rec.dead] == [
        ("handler-error", "RuntimeError('boom')")
    ] * 2


# ------------------------------------------------------------------------------ dead letters


def test_every_dead_letter_reason_at_event_level(rt: ModuleType) -> None:
    strict = reading_def(
        rt,
        attributes=(
            rt.AttrDef("source", "uritemplate", True, SOURCE),
            rt.AttrDef("subject", "string", False, "fixed"),
        ),
    )
    other = reading_def(rt, id="com.acme.Other", type="com.acme.Other", attributes=())
    d, rec = make(rt, (strict, other))
    d.on(READING)(rec.handler("r"))

    def failing(event: Any, params: dict[str, str]) -> None:
        raise ValueError("handler bug")

    cases = {
        "unknown-type": ce(rt, type_="com.acme.Unknown"),
        "no-match": ce(rt, subject="other"),
        "validation-error": ce(rt, subject="fixed", data=b'{"value": "x"}'),
        "no-handler": ce(rt, type_="com.acme.Other"),
    }
    for reason, event in cases.items():
        rec.dead.clear()
        result = d.dispatch_event(event)
        original, got_reason, detail = rec.one_dead()
        assert (got_reason, result.reason, result.handled) == (reason, reason, False)
        assert original is event and detail
    d.on("com.acme.Other")(failing)
    rec.dead.clear()
    wire = object()
    result = d.dispatch_event(ce(rt, type_="com.acme.Other"), wire=wire)
    assert result.reason == "handler-error" and result.message_id == "com.acme.Other"
    assert rec.one_dead() == (wire, "handler-error", "ValueError('handler bug')")


def test_unsupported_wire_object_is_a_decode_error(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))
    thing = {"not": "a wire message"}
    result = d.dispatch(thing)
    original, reason, detail = rec.one_dead()
    assert (
        original is thing
        and reason == "decode-error"
        and result.reason == "decode-error"
    )
    assert "dict" in detail


def test_failing_dead_letter_callback_is_logged_not_raised(
    rt: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    def dead_letter(original: object, reason: str, detail: str) -> None:
        raise RuntimeError("dead letter store down")

    d = rt._dispatch.DispatcherBase((reading_def(rt),), dead_letter=dead_letter)
    with caplog.at_level(logging.ERROR):
        result = d.dispatch_event(ce(rt, type_="x"))
    assert result.reason == "unknown-type"
    assert "dead-letter callback failed" in caplog.text and "store down" in caplog.text


def test_default_dead_letter_logs_a_warning(
    rt: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    d = rt._dispatch.DispatcherBase((reading_def(rt),))
    with caplog.at_level(logging.WARNING):
        assert d.dispatch_event(ce(rt)).reason == "no-handler"
    assert "no-handler" in caplog.text and READING in caplog.text


def test_results_are_cheap_shared_values(rt: ModuleType) -> None:
    d, rec = make(rt, (reading_def(rt),))
    d.on(READING)(rec.handler("r"))
    first, second = d.dispatch_event(ce(rt)), d.dispatch_event(ce(rt))
    assert first is second
    assert d.dispatch_event(ce(rt, type_="x")) == rt._dispatch.DispatchResult(
        False, None, "unknown-type"
    )


# ------------------------------------------------------------------------------ templates


@pytest.mark.parametrize(
    ("template", "value", "expected"),
    [
        (
            "/plants/{plant}/sensors/{sensor}",
            "/plants/a%2Fb/sensors/%C3%A9t%C3%A9",
            {"plant": "a/b", "sensor": "été"},
        ),
        ("{first}/middle/{last}", "x/middle/y", {"first": "x", "last": "y"}),
        ("{only}", "whole-value", {"only": "whole-value"}),
        ("{a}-{a}", "same-same", {"a": "same"}),
        ("/a.b+(c)/{x}?[y]*", "/a.b+(c)/v1?[y]*", {"x": "v1"}),
        ("urn:{ns}:{id}", "urn:acme:42", {"ns": "acme", "id": "42"}),
    ],
)
def test_template_matches(
    rt: ModuleType, template: str, value: str, expected: dict[str, str]
) -> None:
    d, rec = make(
        rt,
        (
            reading_def(
                rt, attributes=(rt.AttrDef("source", "uritemplate", True, template),)
            ),
        ),
    )
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(ce(rt, source=value)).handled
    assert rec.one_call()[2] == expected


@pytest.mark.parametrize(
    ("template", "value"),
    [
        ("{a}-{a}", "one-two"),
        ("/a.b+(c)/{x}", "/aXb+(c)/v"),  # "." is literal, not "any character"
        ("/a.b+(c)/{x}", "/a.bb(c)/v"),  # "+" is literal
        ("/plants/{plant}", "/plants/a/b"),  # "/" is not unreserved
        ("/plants/{plant}", "/plants/x/extra"),
        ("/plants/{plant}", "prefix/plants/x"),
        ("/plants/{plant}", "/plants/%FF"),  # not UTF-8 after percent-decoding
    ],
)
def test_template_mismatches(rt: ModuleType, template: str, value: str) -> None:
    d, rec = make(
        rt,
        (
            reading_def(
                rt, attributes=(rt.AttrDef("source", "uritemplate", True, template),)
            ),
        ),
    )
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(ce(rt, source=value)).reason == "no-match"
    assert rec.one_dead()[1] == "no-match"


def test_same_placeholder_across_attributes_and_options_must_agree(
    rt: ModuleType,
) -> None:
    defn = reading_def(
        rt,
        attributes=(
            rt.AttrDef("source", "uritemplate", True, "/devices/{device}"),
            rt.AttrDef("subject", "uritemplate", False, "{device}/{part}"),
        ),
        protocol="MQTT/5.0",
        options=(rt.OptionDef(("topic",), "plant/{plant}/{device}", True),),
    )
    d, rec = make(rt, (defn,))
    d.on(READING)(rec.handler("r"))
    mqtt = rt.MqttBinding(topic="plant/p%201/d1", qos=1)
    assert d.dispatch_event(
        ce(rt, source="/devices/d1", subject="d1/arm", binding=mqtt)
    )
    assert rec.one_call()[2] == {"device": "d1", "part": "arm", "plant": "p 1"}
    rec.calls.clear()
    assert (
        d.dispatch_event(
            ce(rt, source="/devices/d1", subject="d2/arm", binding=mqtt)
        ).reason
        == "no-match"
    )
    other_topic = rt.MqttBinding(topic="plant/p1/d9")
    assert (
        d.dispatch_event(
            ce(rt, source="/devices/d1", subject="d1/arm", binding=other_topic)
        ).reason
        == "no-match"
    )
    assert [r for _o, r, _d in rec.dead] == ["no-match", "no-match"]


def test_string_attribute_with_placeholders_is_a_template(rt: ModuleType) -> None:
    defn = reading_def(
        rt, attributes=(rt.AttrDef("subject", "string", False, "desk-{desk}"),)
    )
    d, rec = make(rt, (defn,))
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(ce(rt, subject="desk-7"))
    assert rec.one_call()[2] == {"desk": "7"}


def test_constants_compare_canonical_values(rt: ModuleType) -> None:
    defn = reading_def(
        rt,
        attributes=(
            rt.AttrDef("priority", "integer", False, 5),
            rt.AttrDef("urgent", "boolean", False, True),
            rt.AttrDef("since", "timestamp", False, "2024-01-01T00:00:00Z"),
            rt.AttrDef("datacontenttype", "string", False, "application/json"),
        ),
    )
    d, rec = make(rt, (defn,))
    d.on(READING)(rec.handler("r"))
    since = datetime(2024, 1, 1, tzinfo=timezone.utc)
    ok = [
        {"priority": 5, "urgent": True, "since": since},
        {"priority": "5", "urgent": "true", "since": "2024-01-01T00:00:00.000Z"},
        {
            "priority": 5,
            "urgent": True,
            "since": since,
            "datacontenttype": "application/JSON; charset=utf-8",
        },
    ]
    bad = [
        {"priority": 6, "urgent": True, "since": since},
        {
            "priority": True,
            "urgent": True,
            "since": since,
        },  # a boolean is not the integer 1
        {"priority": 5, "urgent": 1, "since": since},
        {"priority": 5, "urgent": True},  # a declared constant must be present
        {"priority": 5, "urgent": True, "since": since, "datacontenttype": "text/csv"},
    ]
    for extra in ok:
        assert d.dispatch_event(ce(rt, **extra)).handled, extra
    for extra in bad:
        assert d.dispatch_event(ce(rt, **extra)).reason == "no-match", extra
    assert len(rec.calls) == len(ok) and len(rec.dead) == len(bad)


def test_required_attribute_without_value(rt: ModuleType) -> None:
    defn = reading_def(rt, attributes=(rt.AttrDef("subject", "string", True),))
    d, rec = make(rt, (defn,))
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(ce(rt, subject="anything")).handled
    assert d.dispatch_event(ce(rt)).reason == "no-match"


# ------------------------------------------------------------------------------ choosing among candidates


def test_candidates_disambiguated_by_payload_in_catalog_order(rt: ModuleType) -> None:
    a = reading_def(rt, id="com.acme.A", model=Alpha)
    b = reading_def(rt, id="com.acme.B", model=Beta)
    d, rec = make(rt, (a, b))
    d.on("com.acme.A")(rec.handler("A"))
    d.on("com.acme.B")(rec.handler("B"))
    d.dispatch_event(ce(rt, data=b'{"b": "x"}'))
    d.dispatch_event(ce(rt, data=b'{"a": 1}'))
    d.dispatch_event(
        ce(rt, data=b'{"a": 1, "b": "x"}')
    )  # fits both: the first in catalog order
    assert [(n, type(e.data).__name__) for n, e, _p in rec.calls] == [
        ("B", "Beta"),
        ("A", "Alpha"),
        ("A", "Alpha"),
    ]
    d.dispatch_event(ce(rt, data=b'{"c": 1}'))
    assert rec.dead[-1][1] == "validation-error" and "com.acme.A" in rec.dead[-1][2]


def test_first_matching_definition_with_a_handler_wins(rt: ModuleType) -> None:
    a = reading_def(rt, id="com.acme.A", model=Alpha)
    b = reading_def(rt, id="com.acme.B", model=Beta)
    d, rec = make(rt, (a, b))
    d.on("com.acme.B")(rec.handler("B"))
    # valid for A only, A has no handler: nobody handles it
    assert d.dispatch_event(ce(rt, data=b'{"a": 1}')).reason == "no-handler"
    assert (
        d.dispatch_event(ce(rt, data=b'{"a": 1, "b": "x"}')).message_id == "com.acme.B"
    )
    assert rec.dead[0][1] == "no-handler" and "com.acme.A" in rec.dead[0][2]
    assert [n for n, _e, _p in rec.calls] == ["B"]


def test_xref_alias_is_the_same_definition_under_two_ids(rt: ModuleType) -> None:
    target = reading_def(rt)
    alias = reading_def(rt, id="com.acme.alias.Reading", group="com.acme.alias")
    d, rec = make(rt, (target, alias))
    assert d.dispatch_event(ce(rt)).reason == "no-handler"
    d.on("com.acme.alias.Reading")(rec.handler("alias"))
    assert d.dispatch_event(ce(rt)).message_id == "com.acme.alias.Reading"
    d.on(READING)(rec.handler("target"))
    assert d.dispatch_event(ce(rt)).message_id == READING  # catalog order
    assert [n for n, _e, _p in rec.calls] == ["alias", "target"]
    assert all(isinstance(e.data, Reading) for _n, e, _p in rec.calls)


def test_untyped_ce_definition_is_a_candidate_for_every_type(rt: ModuleType) -> None:
    generic = reading_def(
        rt,
        id="com.acme.Any",
        type=None,
        attributes=(rt.AttrDef("type", "uritemplate", True, "com.acme.{kind}"),),
    )
    specific = reading_def(rt)
    d, rec = make(rt, (specific, generic))
    d.on("com.acme.Any")(rec.handler("any"))
    d.on(READING)(rec.handler("reading"))
    d.dispatch_event(ce(rt))
    d.dispatch_event(ce(rt, type_="com.acme.Other"))
    d.dispatch_event(ce(rt, type_="org.other.Thing"))
    assert [(n, p) for n, _e, p in rec.calls] == [
        ("reading", {"plant": "p1", "sensor": "s 1"}),
        ("any", {"kind": "Other"}),
    ]
    assert rec.dead[0][1] == "no-match"


def test_protocol_bound_definition_needs_its_protocol(rt: ModuleType) -> None:
    bound = reading_def(
        rt, protocol="KAFKA", options=(rt.OptionDef(("topic",), "readings"),)
    )
    d, rec = make(rt, (bound,))
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(
        ce(rt, binding=rt.KafkaBinding(topic="readings", partition=3))
    )
    assert (
        d.dispatch_event(ce(rt, binding=rt.KafkaBinding(topic="other"))).reason
        == "no-match"
    )
    assert (
        d.dispatch_event(ce(rt, binding=rt.MqttBinding(topic="readings"))).reason
        == "no-match"
    )
    assert d.dispatch_event(ce(rt)).reason == "no-match"


def test_transit_fields_are_not_matched(rt: ModuleType) -> None:
    defn = reading_def(
        rt,
        protocol="MQTT/5.0",
        options=(
            rt.OptionDef(("topic",), "t/{x}", True),
            rt.OptionDef(("qos",), 1),
            rt.OptionDef(("retain",), True),
        ),
    )
    d, rec = make(rt, (defn,))
    d.on(READING)(rec.handler("r"))
    assert d.dispatch_event(
        ce(rt, binding=rt.MqttBinding(topic="t/1", qos=0, version="3.1.1"))
    )
    assert rec.one_call()[2] == {"plant": "p1", "sensor": "s 1", "x": "1"}


# ------------------------------------------------------------------------------ plain messages


def plain(
    rt: ModuleType, id_: str, protocol: str | None, *options: Any, model: Any = None
) -> Any:
    return rt.MessageDef(
        id=id_,
        group="plain",
        envelope=None,
        type=None,
        protocol=protocol,
        options=tuple(options),
        schemaformat="json" if model else None,
        model=model,
    )


def test_plain_messages_matched_by_protocol_discriminators(rt: ModuleType) -> None:
    o = rt.OptionDef
    defs = (
        plain(
            rt,
            "amqp.Order",
            "AMQP/1.0",
            o(("properties", "subject"), "order"),
            model=Alpha,
        ),
        plain(
            rt,
            "mqtt.Telemetry",
            "MQTT/5.0",
            o(("topic",), "sites/{site}/telemetry", True),
            model=Alpha,
        ),
        plain(
            rt,
            "kafka.Audit",
            "KAFKA",
            o(("topic",), "audit"),
            o(("headers", "kind"), "{kind}", True),
        ),
        plain(
            rt,
            "http.Create",
            "HTTP",
            o(("method",), "post"),
            o(("path",), "/orders/{order}", True),
            o(("headers", "X-Tenant"), "{tenant}", True),
            model=Beta,
        ),
        plain(rt, "nats.Ping", "NATS", o(("subject",), "svc.{name}.ping", True)),
        plain(rt, "amqp.Other", "AMQP/1.0", o(("application_properties", "kind"), 3)),
    )
    d, rec = make(rt, defs)
    for defn in defs:
        d.on(defn.id)(rec.handler(defn.id))

    def pev(binding: Any, data: bytes) -> Any:
        return rt.Event({}, data, binding)

    inputs = [
        pev(rt.AmqpBinding(properties={"subject": "order"}), b'{"a": 1}'),
        pev(rt.MqttBinding(topic="sites/berlin/telemetry"), b'{"a": 2}'),
        pev(rt.KafkaBinding(topic="audit", headers=(("kind", b"login"),)), b"\x01"),
        pev(
            rt.HttpBinding(
                method="POST", path="/orders/o%2D1", headers=(("x-tenant", "t1"),)
            ),
            b'{"b": "x"}',
        ),
        pev(rt.NatsBinding(subject="svc.billing.ping"), b""),
        pev(rt.AmqpBinding(application_properties={"kind": "3"}), b"z"),
    ]
    for event in inputs:
        assert d.dispatch_event(event).handled, event
    assert [(n, p) for n, _e, p in rec.calls] == [
        ("amqp.Order", {}),
        ("mqtt.Telemetry", {"site": "berlin"}),
        ("kafka.Audit", {"kind": "login"}),
        ("http.Create", {"order": "o-1", "tenant": "t1"}),
        ("nats.Ping", {"name": "billing"}),
        ("amqp.Other", {}),
    ]
    assert rec.calls[0][1].data == Alpha(a=1) and rec.calls[2][1].data == b"\x01"
    misses = [
        pev(rt.AmqpBinding(properties={"subject": "invoice"}), b'{"a": 1}'),
        pev(rt.MqttBinding(topic="sites/berlin/status"), b"{}"),
        pev(
            rt.HttpBinding(
                method="GET", path="/orders/1", headers=(("x-tenant", "t"),)
            ),
            b"",
        ),
        pev(rt.NatsBinding(subject="svc.billing.pong"), b""),
        pev(rt.KafkaBinding(topic="audit"), b""),  # header missing
    ]
    rec.calls.clear()
    for event in misses:
        assert d.dispatch_event(event).reason == "no-match", event
    assert (
        d.dispatch_event(pev(rt.PulsarBinding(topic="audit"), b"")).reason
        == "unknown-type"
    )
    assert (
        d.dispatch_event(
            pev(rt.MqttBinding(topic="sites/x/telemetry"), b'{"a": 1.5}')
        ).reason
        == "validation-error"
    )
    assert rec.calls == []


def test_ce_event_is_not_matched_against_plain_definitions(rt: ModuleType) -> None:
    d, rec = make(rt, (plain(rt, "kafka.Any", "KAFKA"),))
    d.on("kafka.Any")(rec.handler("p"))
    assert (
        d.dispatch_event(ce(rt, binding=rt.KafkaBinding(topic="t"))).reason
        == "unknown-type"
    )
    assert d.dispatch_event(rt.Event({}, b"x", rt.KafkaBinding(topic="t"))).handled
