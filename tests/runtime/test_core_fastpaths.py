"""The runtime's fast paths give exactly what the straightforward code gives."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import random
import uuid
from datetime import datetime, timedelta, timezone
from enum import Enum
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

UTC = timezone.utc


def test_new_id_is_a_canonical_uuid4(runtime_package: ModuleType) -> None:
    new_id = importlib.import_module(runtime_package.__name__ + "._ids").new_id
    ids = [new_id() for _ in range(5000)]  # several refills of the pool
    assert len(set(ids)) == len(ids)
    for text in ids:
        u = uuid.UUID(text)
        assert str(u) == text  # lower-case 8-4-4-4-12
        assert u.version == 4 and u.variant == uuid.RFC_4122
    # the 122 random bits vary: every random hex position takes many values
    for pos in (0, 9, 15, 20, 35):
        assert len({t[pos] for t in ids}) >= 12
    assert {t[14] for t in ids} == {"4"} and {t[19] for t in ids} == set("89ab")


def test_new_id_batch_equals_uuid_of_the_same_bytes(
    runtime_package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_fill_ids`` (one big-int mask and C-level formatting per batch) gives, for every
    16 random bytes, what ``uuid.UUID(bytes=..., version=4)`` makes of them."""
    ids = importlib.import_module(runtime_package.__name__ + "._ids")
    r = random.Random(6)
    for fill in (0x00, 0xFF, None, None, None):
        size = 16 * ids._ID_BATCH
        raw = bytes([fill] * size) if fill is not None else r.randbytes(size)
        monkeypatch.setattr(ids, "os", SimpleNamespace(urandom=lambda n, raw=raw: raw))
        monkeypatch.setattr(ids, "_ID_POOL", [])
        ids._fill_ids()
        assert ids._ID_POOL == [
            str(uuid.UUID(bytes=raw[i : i + 16], version=4)) for i in range(0, size, 16)
        ]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_new_id_pool_not_shared_with_forked_child(runtime_package: ModuleType) -> None:
    new_id = importlib.import_module(runtime_package.__name__ + "._ids").new_id
    new_id()  # the pool now holds ids the parent will hand out next
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.write(write, new_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read)
    os.close(write)
    parent = {new_id() for _ in range(200)}
    assert child not in parent


def _random_datetime(r: random.Random) -> datetime:
    value = datetime(r.randrange(1, 9999), 1, 1) + timedelta(
        days=r.randrange(364),
        seconds=r.randrange(86400),
        microseconds=r.choice([0, r.randrange(1_000_000)]),
    )
    tz = r.choice(
        [None, UTC, timezone(timedelta(minutes=r.randrange(-1439, 1440)))]
    )
    return value.replace(tzinfo=tz)


def test_format_time_matches_isoformat(runtime_package: ModuleType) -> None:
    core = importlib.import_module(runtime_package.__name__ + "._time")
    r = random.Random(4)
    for _ in range(20000):
        value = _random_datetime(r)
        utc = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
        expected = utc.replace(tzinfo=None).isoformat() + "Z"
        assert core.format_time(value) == expected, value
        assert core.parse_time(expected) == utc
        # same second as the previous call (the cached prefix), other fraction
        later = value.replace(microsecond=(value.microsecond + 1) % 1_000_000)
        utc = utc.replace(microsecond=later.microsecond)
        assert core.format_time(later) == utc.replace(tzinfo=None).isoformat() + "Z"


def test_parse_time_with_offsets_and_fractions(runtime_package: ModuleType) -> None:
    parse = importlib.import_module(runtime_package.__name__ + "._time").parse_time
    r = random.Random(5)
    for _ in range(5000):
        value = _random_datetime(r).replace(tzinfo=None)
        minutes = r.randrange(-1439, 1440)
        sign = "-" if minutes < 0 else "+"
        offset = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
        digits = r.randrange(10)
        frac = f"{value.microsecond:06d}000"[:digits]
        text = value.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0")
        text = text + ("." + frac if digits else "") + offset
        expected = datetime.fromisoformat(
            text[:19] + (("." + frac).ljust(7, "0") if digits else "") + offset
        )
        assert parse(text) == expected, text
    for bad in ("2024-02-30T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:60Z"):
        with pytest.raises(ValueError):
            parse(bad)


def test_builders_equal_the_dataclass_constructors(
    runtime_package: ModuleType,
) -> None:
    core = runtime_package
    kafka = importlib.import_module(runtime_package.__name__ + ".bindings.kafka")
    http = importlib.import_module(runtime_package.__name__ + ".bindings.http")
    pulsar = importlib.import_module(runtime_package.__name__ + ".bindings.pulsar")
    rocketmq = importlib.import_module(runtime_package.__name__ + ".bindings.rocketmq")
    cases = [
        (kafka.new_kafka_binding, core.KafkaBinding, ("t", b"k", 3, (("h", b"v"),))),
        (kafka.new_kafka_message, core.KafkaMessage, ("t", None, b"v", (), None)),
        (http.new_http_binding, core.HttpBinding, ("GET", "/p", (), (("a", "b"),), 200)),
        (http.new_http_message, core.HttpMessage, ("POST", "/", (("a", "b"),), b"", None)),
        (pulsar._new_binding, core.PulsarBinding, ("t", "k", {"a": "b"}, 5)),
        (pulsar._new_message, core.PulsarMessage, ("t", b"x", {"a": "b"}, None, 5)),
        (rocketmq._new_binding, core.RocketMqBinding, ("t", "tag", ("k",), {"a": "b"})),
        (rocketmq._new_message, core.RocketMqMessage, ("t", b"x", {}, "tag", ("k",))),
    ]
    for build, cls, args in cases:
        fast, slow = build(*args), cls(*args)
        assert type(fast) is cls
        assert fast == slow and repr(fast) == repr(slow)
        if not any(isinstance(a, dict) for a in args):  # a mapping field: unhashable
            assert hash(fast) == hash(slow)
        with pytest.raises(AttributeError):  # still frozen
            setattr(fast, dataclasses.fields(cls)[0].name, "other")


def test_jsonformat_fast_paths_agree_with_the_member_loop(
    runtime_package: ModuleType,
) -> None:
    jf = importlib.import_module(runtime_package.__name__ + ".bindings.jsonformat")
    core = runtime_package
    base = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t",
            "time": "2024-01-02T03:04:05.5Z", "subject": "x"}
    for extra in ({}, {"data": {"a": 1}}, {"data": None}, {"data_base64": "AP8="},
                  {"ext": "v"}, {"ext": 5}, {"ext": True}, {"ext": None}):
        obj = {**base, **extra}
        before = dict(obj)
        event = jf.from_object(obj)
        assert obj == before  # the parsed object is not modified
        assert event.attributes["time"] == datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=UTC)
        assert {k: v for k, v in event.attributes.items() if k != "time"} == {
            k: v for k, v in obj.items()
            if k not in ("time", "data", "data_base64") and v is not None
        }
        expected = b"\x00\xff" if "data_base64" in extra else extra.get("data")
        assert event.data == expected
        again = jf.decode(jf.encode(event))
        assert again.attributes == event.attributes and again.data == event.data
    for bad in ({"ext": 1.5}, {"Bad": "x"}, {"id": ""}, {"time": "2024-01-02"}):
        with pytest.raises(core.DecodeError):
            jf.from_object({**base, **bad})


def test_emitter_prefix_keeps_the_attribute_order(runtime_package: ModuleType) -> None:
    """``Emitter.prefix`` (constants plus the leading templates without placeholders, copied
    at once) gives the attributes, in the same order, that copying the constants and then
    expanding every template in declaration order gives; ``emit``'s inline copy of
    ``attributes`` (definitions without templates left) gives what ``attributes`` gives."""
    core = runtime_package
    produce = importlib.import_module(runtime_package.__name__ + "._produce")
    r = random.Random(7)
    for _ in range(300):
        attrs = [core.AttrDef("specversion", "string", True, "1.0")]
        for i in range(r.randrange(6)):
            kind = r.choice(["const", "static", "template"])
            value = {"const": f"c{i}", "static": f"/s{i}", "template": f"/t/{{x{i % 2}}}"}[kind]
            attrs.append(core.AttrDef(f"a{i}", "string" if kind == "const" else "uritemplate",
                                      False, value))
        r.shuffle(attrs)
        definition = core.MessageDef(id="M", group="g", envelope="CloudEvents/1.0", type=None,
                                     attributes=tuple(attrs))
        values = {"x0": "v 0", "x1": "v1"}
        emitter = produce.Emitter(definition)
        event = emitter.emit_raw(None, values, "i", None, {})
        fast = emitter.emit(bytes, b"", values, "i", event.attributes["time"], {})
        assert list(fast.attributes.items()) == list(event.attributes.items())
        expected = {a.name: a.value for a in attrs if a.kind != "uritemplate"}
        for a in attrs:
            if a.kind == "uritemplate":
                expected[a.name] = importlib.import_module(runtime_package.__name__ + "._uritemplate").UriTemplate(str(a.value)).expand(values)
        assert list(event.attributes.items())[:-2] == list(expected.items())
        assert list(event.attributes)[-2:] == ["id", "time"]


def test_emit_validates_dicts_and_keeps_model_instances(runtime_package: ModuleType) -> None:
    from pydantic import BaseModel

    core = runtime_package
    produce = importlib.import_module(runtime_package.__name__ + "._produce")

    class Model(BaseModel):
        a: int

    class Sub(Model):
        pass

    class Dict(dict):  # type: ignore[type-arg]
        pass

    emit = produce.Emitter(core.MessageDef(id="M", group="g", envelope=None, type=None,
                                           model=Model)).emit
    instance, sub = Model(a=1), Sub(a=2)
    assert emit(Model, instance, {}, None, None, {}).data is instance
    assert emit(Model, sub, {}, None, None, {}).data is sub
    for data in ({"a": 3}, Dict(a=3)):
        event = emit(Model, data, {}, None, None, {})
        assert type(event.data) is Model and event.data == Model(a=3)


_CORE = ["specversion", "id", "source", "type", "time", "datacontenttype", "dataschema",
         "subject", "data", "data_base64"]
_member_values = st.one_of(
    st.sampled_from(["1.0", "", "x", "/s", "http://a/b", "2024-01-02T03:04:05.5Z",
                     "2024-13-02T03:04:05Z", "application/json", "text/plain", "AP8=", "%%"]),
    st.text(max_size=8), st.booleans(), st.none(),
    st.integers(-(2**32), 2**32), st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.just("k"), st.integers(), max_size=1),
)
_member_names = st.one_of(st.sampled_from(_CORE), st.sampled_from(["ext", "e1", "Bad", "a_b"]))
_BASE = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


def _outcome(decode: Any) -> Any:
    try:
        event = decode()
    except Exception as exc:  # noqa: BLE001 - the kind and text of any error are compared
        return type(exc), str(exc)
    return list(event.attributes.items()), event.data, event.binding


@given(st.dictionaries(_member_names, _member_values, max_size=6), st.booleans())
@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_from_parsed_agrees_with_from_object(
    runtime_package: ModuleType, members: dict[str, Any], with_base: bool
) -> None:
    """``from_parsed`` (pops the data members from the parsed object itself; fast path for
    known names with string values) decides like ``from_object`` (copy and member loop), on
    parsed JSON objects of every shape."""
    jf = importlib.import_module(runtime_package.__name__ + ".bindings.jsonformat")
    body = json.dumps({**_BASE, **members} if with_base else members)
    binding = runtime_package.KafkaBinding(topic="t")
    expected = _outcome(lambda: jf.from_object(jf.parse(body), binding))
    assert _outcome(lambda: jf.from_parsed(jf.parse(body), binding)) == expected
    assert _outcome(lambda: jf.decode(body))[:2] == expected[:2]


class _Str(str):
    def __str__(self) -> str:
        return "other"


class _Kind(str, Enum):
    A = "a-kind"


def test_jsonformat_encode_of_string_subclasses(runtime_package: ModuleType) -> None:
    """``str`` subclasses among the attribute values take the member loop's path in neither
    version: the fast path keeps them, and they serialize exactly like the plain ``str`` the
    loop makes of them (``str.__str__``)."""
    core = runtime_package
    jf = importlib.import_module(runtime_package.__name__ + ".bindings.jsonformat")
    time = datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
    plain = {**_BASE, "time": time, "subject": 'a "b" \u00e9', "kind": "a-kind"}
    odd = {**plain, "id": _Str("1"), "subject": _Str('a "b" \u00e9'), "kind": _Kind.A}
    for data in (None, b"\x00", {"k": 1}):
        assert jf.encode(core.Event(odd, data)) == jf.encode(core.Event(plain, data))


def test_check_decoded_optional_attributes(runtime_package: ModuleType) -> None:
    """The one-expression fast path for ``datacontenttype``/``dataschema``/``subject`` accepts
    exactly what the per-attribute checks accept: absent, or a non-empty string (an absolute
    URI for ``dataschema``, an RFC 2046 media type for ``datacontenttype``); a ``str``
    subclass counts as a string."""
    core = runtime_package
    check_decoded = importlib.import_module(runtime_package.__name__ + "._attributes").check_decoded
    samples = [None, "", "x", "http://a/b", "rel/ref", 5, True, b"x", _Str("y"), _Kind.A]
    samples += ["text/plain", "a/b; c=d"]
    for ct in samples:
        for schema in samples:
            for subject in samples:
                attributes = dict(_BASE, time="2024-01-02T03:04:05Z")
                optional = {"datacontenttype": ct, "dataschema": schema, "subject": subject}
                attributes.update(optional)
                ok = all(
                    v is None or (isinstance(v, str) and v != ""
                                  and (n != "dataschema" or v == "http://a/b")
                                  and (n != "datacontenttype"
                                       or v in ("rel/ref", "text/plain", "a/b; c=d")))
                    for n, v in optional.items()
                )
                if ok:
                    assert check_decoded(attributes) is attributes
                    assert attributes["time"] == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
                else:
                    with pytest.raises(core.DecodeError) as info:
                        check_decoded(attributes)
                    assert info.value.reason == "invalid-attribute"
    with pytest.raises(core.DecodeError, match="^invalid-attribute: time: "):
        check_decoded(dict(_BASE, time="2024-13-02T03:04:05Z"))


def test_http_binding_splits_the_query_like_partition(runtime_package: ModuleType) -> None:
    from urllib.parse import parse_qsl

    core = runtime_package
    http = importlib.import_module(runtime_package.__name__ + ".bindings.http")
    for target in ("", "/", "/p", "/p?", "?", "?x", "/p?a=1&b=&c", "/p?a=%20?b", "/\u00e9?q=\u00e9"):
        path, sep, query = target.partition("?")
        pairs = tuple(parse_qsl(query, keep_blank_values=True)) if sep else ()
        message = core.HttpMessage("PUT", target, (), b"", 201)
        assert http._binding(message, [("h", "v")]) == core.HttpBinding(
            "PUT", path, (("h", "v"),), pairs, 201
        )
