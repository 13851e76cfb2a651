"""Property tests: round trips over random attributes and data for every codec and mode;
percent-encoding round trip; decoding random input raises nothing but DecodeError."""

from __future__ import annotations

import importlib
from datetime import datetime, timezone
from types import ModuleType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

UTC = timezone.utc
CODECS = ["kafka", "amqp", "mqtt", "nats", "http", "pulsar", "rocketmq"]
ROUTING = {
    "kafka": ("KafkaBinding", {"topic": "t"}),
    "amqp": ("AmqpBinding", {}),
    "mqtt": ("MqttBinding", {"topic": "t"}),
    "nats": ("NatsBinding", {"subject": "s"}),
    "http": ("HttpBinding", {}),
    "pulsar": ("PulsarBinding", {"topic": "t"}),
    "rocketmq": ("RocketMqBinding", {"topic": "t"}),
}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

# CloudEvents String: no controls U+0000-001F / U+007F-009F, no surrogates
text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=[chr(c) for c in range(0x20)]
                  + [chr(c) for c in range(0x7F, 0xA0)]),
    min_size=1, max_size=20,
)
names = st.from_regex(r"[a-z][a-z0-9]{0,9}", fullmatch=True).filter(
    lambda n: n not in ("data", "specversion", "id", "source", "type", "time",
                        "datacontenttype", "dataschema", "subject"))
times = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                     timezones=st.just(UTC))
values = st.one_of(text, st.booleans(), st.integers(-(2**31), 2**31 - 1),
                   st.binary(max_size=10), times)
extensions = st.dictionaries(names, values, max_size=5)
payloads = st.one_of(st.none(), st.binary(min_size=1, max_size=50))


def codec(rt: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


def expected(rt: ModuleType, name: str, mode: str, attrs: dict[str, Any]) -> dict[str, Any]:
    canon = importlib.import_module(rt.__name__ + "._attributes").to_canonical
    out = {}
    for key, value in attrs.items():
        if key == "time":
            out[key] = value
        elif mode == "structured":
            out[key] = canon(value) if isinstance(value, (bytes, datetime)) else value
        elif name == "amqp":
            keep = not isinstance(value, datetime) or value.microsecond % 1000 == 0
            out[key] = value if keep else canon(value)
        else:
            out[key] = canon(value)
    return out


@SETTINGS
@given(ext=extensions, id_=text, source=text, type_=text, time=times, data=payloads,
       mode=st.sampled_from(["binary", "structured"]), name=st.sampled_from(CODECS))
def test_round_trip(runtime_package: ModuleType, ext: dict[str, Any], id_: str, source: str,
                    type_: str, time: datetime, data: bytes | None, mode: str, name: str) -> None:
    rt = runtime_package
    attrs = {"specversion": "1.0", "id": id_, "source": source, "type": type_, "time": time,
             **ext}
    bname, bargs = ROUTING[name]
    event = rt.Event(dict(attrs), data, getattr(rt, bname)(**bargs))
    mod = codec(rt, name)
    decoded = mod.decode(mod.encode(event, mode))
    assert decoded.attributes == expected(rt, name, mode, attrs)
    assert decoded.data == data


@SETTINGS
@given(ext=extensions, data=st.one_of(st.none(), st.binary(max_size=20),
                                      st.dictionaries(text, st.integers())))
def test_jsonformat_round_trip(runtime_package: ModuleType, ext: dict[str, Any], data: Any) -> None:
    jf = codec(runtime_package, "jsonformat")
    attrs = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t", **ext}
    decoded = jf.decode(jf.encode(runtime_package.Event(dict(attrs), data)))
    assert decoded.attributes == expected(runtime_package, "jsonformat", "structured", attrs)
    assert decoded.data == data


@SETTINGS
@given(value=st.text(st.characters(blacklist_categories=("Cs",))))
def test_percent_round_trip(runtime_package: ModuleType, value: str) -> None:
    common = codec(runtime_package, "_common")
    encoded = common.pct_encode(value)
    assert all(0x21 <= ord(c) <= 0x7E and c != '"' for c in encoded)
    assert common.pct_decode(encoded) == value


header_names = st.one_of(st.sampled_from(["ce-id", "ce_id", "ce-specversion", "ce_specversion",
                                          "ce-source", "ce_type", "content-type", "CE-x",
                                          "CE_contenttype", "specversion", "id", "x"]), st.text(max_size=8))
header_values = st.one_of(st.text(max_size=12), st.sampled_from(
    ["1.0", "application/cloudevents+json", "%C0%A0", '"a\\', "2024-01-01T00:00:00Z"]))
bodies = st.one_of(st.binary(max_size=40), st.sampled_from(
    [b'{"specversion":"1.0"}', b'{"specversion":"1.0","id":"1","source":"s","type":"t",'
     b'"data_base64":"@@"}', b"[]", b"{}"]))


def _raises_only_decode_error(rt: ModuleType, fn: Any, msg: Any) -> None:
    try:
        fn(msg)
    except rt.DecodeError as exc:
        assert exc.reason
    # any other exception propagates and fails the test


@SETTINGS
@given(headers=st.lists(st.tuples(header_names, header_values), max_size=6), body=bodies,
       name=st.sampled_from(CODECS + ["jsonformat", "mqtt311"]))
def test_decode_random_input(runtime_package: ModuleType, headers: list[tuple[str, str]],
                             body: bytes, name: str) -> None:
    rt = runtime_package
    pairs = tuple(headers)
    if name == "jsonformat":
        msg: Any = body
    elif name == "kafka":
        msg = rt.KafkaMessage("t", None, body, tuple((k, v.encode("utf-8", "surrogatepass"))
                                                     for k, v in pairs))
    elif name == "amqp":
        msg = rt.AmqpMessage(body, {"content-type": pairs[0][1]} if pairs else {},
                             {k.replace("ce-", "cloudEvents_"): v for k, v in pairs})
    elif name in ("mqtt", "mqtt311"):
        ct = pairs[0][1] if pairs else None
        msg = rt.MqttMessage("t", body, version="3.1.1" if name == "mqtt311" else "5.0",
                             content_type=ct, user_properties=pairs)
        name = "mqtt"
    elif name == "nats":
        msg = rt.NatsMessage("s", body, pairs)
    elif name == "http":
        msg = rt.HttpMessage("POST", "/?a=%ZZ", pairs, body)
    elif name == "pulsar":
        msg = rt.PulsarMessage("t", body, dict(pairs))
    else:
        msg = rt.RocketMqMessage("t", body, dict(pairs))
    _raises_only_decode_error(rt, codec(rt, name).decode, msg)
    if name == "http":
        _raises_only_decode_error(rt, codec(rt, name).decode_batch, msg)
