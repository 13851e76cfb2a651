"""Hostile wire messages cannot hurt a consumer (issue: bounded time and memory).

A hypothesis fuzz test of ``dispatch`` for every binding: random and hostile wire messages
(attribute headers and properties, content types with CR/LF and megabytes of text, huge
values, invalid UTF-8, percent-escapes, long dotted template values). For every input:
exactly one of its handler or the dead-letter callback is called (a handler that raises is
one call plus its ``handler-error``), the callback gets the original wire message object,
the reason is one of ``DEAD_LETTER_REASONS`` and the detail is one line of at most 4,096
characters, and dispatch finishes within a generous time bound (catastrophic backtracking
or quadratic work on a megabyte input takes seconds to hours). Plus: runtime caches stay
bounded in bytes, and the default dead-letter log line carries no raw CR/LF.
"""

from __future__ import annotations

import importlib
import logging
import time
import tracemalloc
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from xrgen_runtime import (
    AmqpMessage,
    AttrDef,
    HttpMessage,
    KafkaMessage,
    MessageDef,
    MqttMessage,
    NatsMessage,
    OptionDef,
    PulsarMessage,
    RocketMqMessage,
)
from xrgen_runtime._dispatch import DEAD_LETTER_REASONS, DispatcherBase
from xrgen_runtime._limits import CACHE_KEY_MAX, DETAIL_MAX

#: seconds one input may take (a loaded 2-core CI runner; the slowest honest input is a few
#: megabytes of text copied a few times: well under 0.1 s)
TIME_BOUND = 2.0
BIG = 1_000_000
TYPE = "com.acme.Reading"
DOTTED = ".".join(f"{{p{i}}}" for i in range(30))


class Reading(BaseModel):
    value: float
    seq: int
    timestamp: datetime


def ce_def(mid: str, *attributes: AttrDef, **kw: Any) -> MessageDef:
    """A CloudEvents definition of type ``TYPE`` with a ``Reading`` payload."""
    return MessageDef(
        id=mid,
        group="g",
        envelope="CloudEvents/1.0",
        type=TYPE,
        attributes=(AttrDef("type", "string", True, TYPE), *attributes),
        schemaformat="json",
        model=Reading,
        **kw,
    )


def definitions() -> tuple[MessageDef, ...]:
    template = "uritemplate"
    return (
        ce_def("reading", AttrDef("source", template, True, "/plants/{p}/sensors/{s}")),
        ce_def(
            "dotted",
            AttrDef("source", template, True, DOTTED),
            AttrDef("subject", template, False, "{p0}-{p1}_{p2}/{p3}"),
        ),
        ce_def(
            "mqtt-variant",
            protocol="MQTT/5.0",
            options=(OptionDef(("topic",), "sites/{site}/{area}.{line}", True),),
        ),
        *(
            MessageDef(
                id=f"plain-{protocol}",
                group="p",
                envelope=None,
                type=None,
                protocol=protocol,
                options=(OptionDef(path, value, "{" in value),),
            )
            for protocol, path, value in (
                ("KAFKA", ("topic",), "audit.{a}.{b}"),
                ("AMQP/1.0", ("properties", "subject"), "order"),
                ("NATS", ("subject",), "svc.{name}.{verb}"),
                ("HTTP", ("path",), "/orders/{order}.{format}"),
                ("PULSAR", ("topic",), "t"),
                ("ROCKETMQ", ("topic",), "t"),
            )
        ),
    )


# ------------------------------------------------------------------------------ strategies

_hostile_text = st.sampled_from(
    [
        "x" * BIG,
        "a." * (BIG // 2),
        "%" * 10_000,
        "%FF%FE" * 1000,
        "%2e" * 10_000,
        "line\r\nInjected: yes",
        "\x00\x1b[31m\u2028\x85",
        "é😀" * 50_000,
        " " * 100_000 + ";",
        "application/json" + "; a=b" * 20_000,
        "application/cloudevents+json" + "\r\n" * 1000,
        '"' * 1001,
        '"' + "\\" * 10_001,
    ]
)
_text = st.one_of(st.text(max_size=16), _hostile_text)
_bytes = st.one_of(
    st.binary(max_size=32),
    st.sampled_from([b"\xff\xfe\xfd", b"\xc0\xa0", b"{" * 100_000, b"x" * BIG]),
    _text.map(lambda t: t.encode("utf-8", "surrogatepass")),
)
_valid_body = st.sampled_from(
    [
        b'{"value": 1.5, "seq": 1, "timestamp": "2024-05-01T12:00:00Z"}',
        b'{"specversion": "1.0", "id": "1", "source": "/plants/a/sensors/b", "type": "com.acme.Reading", "data": {"value": 1, "seq": 2, "timestamp": "2024-05-01T12:00:00Z"}}',
    ]
)
_body = st.one_of(_valid_body, st.none(), _bytes)
_ce_value = st.one_of(
    _text,
    st.sampled_from(
        [
            "1.0",
            TYPE,
            "/plants/a/sensors/b",
            ".".join("a.b" for _ in range(30)),
            "2024-05-01T12:00:00Z",
            "application/json",
        ]
    ),
)
_ce_name = st.sampled_from(
    [
        "specversion",
        "id",
        "source",
        "type",
        "time",
        "subject",
        "datacontenttype",
        "x" * 300,
    ]
)
_content_type = st.one_of(
    st.none(),
    st.sampled_from(["application/cloudevents+json", "application/json"]),
    _text,
)


def _pairs(prefix: str, value: Any) -> Any:
    name = st.one_of(_ce_name.map(lambda n: prefix + n), _text)
    return st.lists(st.tuples(name, value), max_size=7).map(tuple)


def _ce_pairs(prefix: str, value: Any) -> Any:
    """All required attributes (often valid) plus hostile extras."""
    required = st.fixed_dictionaries(
        {
            prefix + "specversion": st.just("1.0"),
            prefix + "id": st.one_of(st.just("1"), _ce_value),
            prefix + "source": st.one_of(st.just("/plants/a/sensors/b"), _ce_value),
            prefix + "type": st.one_of(st.just(TYPE), _ce_value),
        }
    ).map(lambda d: tuple(d.items()))
    extras = st.one_of(st.just(()), _pairs(prefix, _ce_value))
    ce = st.tuples(required, extras).map(lambda p: p[0] + p[1])
    # or no CloudEvents attributes at all: a plain protocol message
    plain = st.lists(st.tuples(_text, _ce_value), max_size=3).map(tuple)
    return st.one_of(ce, plain).map(lambda p: tuple((k, value(v)) for k, v in p))


def _identity(v: Any) -> Any:
    return v


def _encode(v: Any) -> Any:
    return v.encode("utf-8", "surrogatepass") if isinstance(v, str) else v


WIRES: dict[str, Any] = {
    "kafka": st.builds(
        KafkaMessage,
        topic=st.one_of(st.just("audit.x.y"), _text),
        key=st.one_of(st.none(), _bytes),
        value=_body,
        headers=st.tuples(
            _ce_pairs("ce_", _encode),
            _content_type.map(lambda c: (("content-type", _encode(c)),)),
        ).map(lambda p: p[0] + p[1]),
        partition=st.one_of(st.none(), st.integers(-5, 2**40)),
    ),
    "amqp": st.builds(
        AmqpMessage,
        body=_body,
        properties=st.one_of(
            _content_type.map(lambda c: {"content-type": c, "subject": "order"}),
            _pairs("", _ce_value).map(dict),
        ),
        application_properties=st.one_of(
            _ce_pairs("cloudEvents_", _identity).map(dict),
            _ce_pairs("cloudEvents:", _identity).map(dict),
        ),
    ),
    "mqtt": st.builds(
        MqttMessage,
        topic=st.one_of(st.just("sites/a.b/c.d.e"), _text),
        payload=st.one_of(_valid_body, _bytes),
        version=st.sampled_from(["5.0", "3.1.1"]),
        content_type=_content_type,
        user_properties=_ce_pairs("", _identity),
    ),
    "nats": st.builds(
        NatsMessage,
        subject=st.one_of(st.just("svc.a.b.c"), _text),
        payload=st.one_of(_valid_body, _bytes),
        headers=st.tuples(
            _ce_pairs("ce-", _identity),
            _content_type.map(lambda c: (("Content-Type", str(c)),)),
        ).map(lambda p: p[0] + p[1]),
    ),
    "http": st.builds(
        HttpMessage,
        method=st.one_of(st.sampled_from(["POST", "get"]), _text),
        path=st.one_of(st.just("/orders/a.b.json"), _text),
        headers=st.tuples(
            _ce_pairs("ce-", _identity),
            _content_type.map(lambda c: (("content-type", str(c)),)),
        ).map(lambda p: p[0] + p[1]),
        body=st.one_of(_valid_body, _bytes),
        status=st.one_of(st.none(), st.integers(-1, 1000)),
    ),
    "pulsar": st.builds(
        PulsarMessage,
        topic=st.one_of(st.just("t"), _text),
        payload=st.one_of(_valid_body, _bytes),
        properties=_ce_pairs("CE-", _identity).map(dict),
        partition_key=st.one_of(st.none(), _text),
        event_time=st.one_of(st.none(), st.integers(-(2**63), 2**63)),
    ),
    "rocketmq": st.builds(
        RocketMqMessage,
        topic=st.one_of(st.just("t"), _text),
        body=st.one_of(_valid_body, _bytes),
        properties=_ce_pairs("CE_", _identity).map(dict),
        tag=st.one_of(st.none(), _text),
        keys=st.lists(_text, max_size=2).map(tuple),
    ),
}


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.dead: list[tuple[object, str, str]] = []

    def dead_letter(self, original: object, reason: str, detail: str) -> None:
        self.dead.append((original, reason, detail))


@pytest.fixture(scope="module")
def dispatcher() -> tuple[DispatcherBase, Recorder]:
    rec = Recorder()
    defs = definitions()
    d = DispatcherBase(defs, dead_letter=rec.dead_letter)
    for defn in defs:
        if defn.id == "plain-PULSAR":
            continue  # leaves "no-handler" reachable

        def handle(event: Any, params: dict[str, str], mid: str = defn.id) -> None:
            rec.calls.append(mid)
            if params.get("p1") == "boom":
                raise RuntimeError("boom\r\nInjected: yes")

        d.on(defn.id)(handle)
    return d, rec


@pytest.mark.parametrize("binding", sorted(WIRES))
def test_fuzz_hostile_wire_messages(
    binding: str, dispatcher: tuple[DispatcherBase, Recorder]
) -> None:
    d, rec = dispatcher
    slowest = 0.0
    reasons: set[str] = set()

    @settings(
        max_examples=200,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(message=WIRES[binding])
    def run(message: Any) -> None:
        nonlocal slowest
        rec.calls.clear()
        rec.dead.clear()
        start = time.perf_counter()
        result = d.dispatch(message)
        elapsed = time.perf_counter() - start
        slowest = max(slowest, elapsed)
        reasons.add(result.reason or "handled")
        assert elapsed < TIME_BOUND, (binding, elapsed)
        calls, dead = len(rec.calls), len(rec.dead)
        if result.reason == "handler-error":
            assert (calls, dead) == (1, 1)
        else:
            assert calls + dead == 1, (rec.calls, [r[1:] for r in rec.dead])
            assert bool(result) == (calls == 1)
        if dead:
            original, reason, detail = rec.dead[0]
            assert original is message  # whole, as received
            assert reason == result.reason and reason in DEAD_LETTER_REASONS
            assert reason != "internal-error", detail
            assert len(detail) <= DETAIL_MAX
            assert not any(c in detail for c in "\r\n\x00\x85\u2028\u2029"), detail[
                :200
            ]

    run()
    print(binding, sorted(reasons), f"slowest {slowest:.3f} s")
    # the inputs reach the decoder, the matcher and a handler (which further reasons they
    # reach varies between runs; the exactly-once and bound checks above hold for each input)
    assert {"decode-error", "handled"} <= reasons and len(reasons) >= 3, reasons


def test_valid_events_with_ambiguous_dotted_values_reach_their_handler(
    dispatcher: tuple[DispatcherBase, Recorder],
) -> None:
    """30 dotted placeholders whose values contain dots: matched in linear time."""
    d, rec = dispatcher
    kafka = importlib.import_module("xrgen_runtime.bindings.kafka")
    source = ".".join(f"v{i}.x" for i in range(30))
    headers = (
        ("ce_specversion", b"1.0"),
        ("ce_id", b"1"),
        ("ce_source", source.encode()),
        ("ce_type", TYPE.encode()),
        ("ce_subject", b"v0.x-v1.x_v2.x/v3.x"),
        ("content-type", b"application/json"),
    )
    body = b'{"value": 1.5, "seq": 1, "timestamp": "2024-05-01T12:00:00Z"}'
    rec.calls.clear()
    rec.dead.clear()
    assert d.dispatch(KafkaMessage("t", None, body, headers, None)).handled
    assert rec.calls == ["dotted"]
    assert kafka is not None


def test_caches_stay_bounded_in_bytes() -> None:
    """Distinct 1 MB content types and header names do not accumulate in any cache."""
    reasons: set[str] = set()
    d = DispatcherBase(definitions(), dead_letter=lambda _m, r, _d: reasons.add(r))
    common = importlib.import_module("xrgen_runtime.bindings._common")
    media = importlib.import_module("xrgen_runtime._media")
    match = importlib.import_module("xrgen_runtime._match")
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(60):
        big = f"application/x-{i}-" + "j" * BIG
        headers = (
            ("ce_specversion", b"1.0"),
            ("ce_id", b"1"),
            ("ce_source", b"/s"),
            ("ce_type", TYPE.encode()),
            (f"ce_x{i}" + "y" * 100_000, b"v"),
            ("content-type", big.encode()),
        )
        d.dispatch(KafkaMessage("t", None, b"{}", headers, None))
        d.dispatch(
            HttpMessage(
                "POST",
                "/",
                (("content-type", big), ("ce-" + "z" * 300_000 + str(i), "v")),
                b"",
                None,
            )
        )
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 5_000_000, grown  # 120 MB of input went through
    assert reasons == {"decode-error", "no-match"}
    caches: list[Any] = [
        common._MODES,
        media._JSON_TYPES,
        media._MEDIA_TYPES_OK,
        match._MEDIA_TYPES,
    ]
    properties = importlib.import_module("xrgen_runtime.bindings._properties")
    for module in ("kafka", "http", "nats", "mqtt", "amqp", "pulsar", "rocketmq", "jsonformat"):
        # a binding's codec module (its package exposes the codec's names only)
        suffix = "" if module == "jsonformat" else ".codec"
        codec = importlib.import_module(f"xrgen_runtime.bindings.{module}{suffix}")
        for value in vars(codec).values():
            if isinstance(value, properties.PropertyMap):
                caches += [value.entries.cache, value.names.out]
            elif isinstance(value, common.HeaderNames):
                caches.append(value.cache)
            elif isinstance(value, common.WireNames):
                caches.append(value.out)
        for name in ("_NAMES", "_VALID"):
            if isinstance(getattr(codec, name, None), (dict, set)):
                caches.append(getattr(codec, name))
    assert len(caches) > 8
    for cache in caches:
        assert all(len(key) <= CACHE_KEY_MAX for key in cache)


def test_default_dead_letter_log_line_is_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    d = DispatcherBase(definitions())
    headers = (
        ("ce_specversion", b"1.0"),
        ("content-type", b"text/plain\r\nInjected: yes"),
    )
    message = KafkaMessage("t", None, b"x" * BIG, headers, None)
    with caplog.at_level(logging.WARNING, logger="xrgen_runtime._dispatch"):
        assert d.dispatch(message).reason == "decode-error"
        d.dispatch(HttpMessage("POST", "/", (("ce-type", "\r\n" * BIG),), b"", None))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    for line in lines:
        assert "\r" not in line and "\n" not in line and len(line) < DETAIL_MAX + 200
