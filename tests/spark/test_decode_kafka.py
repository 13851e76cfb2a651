"""decode_kafka on a real local SparkSession, with rows encoded by the runtime Kafka codec."""

from __future__ import annotations

import dataclasses
import importlib
import json
from datetime import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.spark

READING = {
    "value": 21.5,
    "unit": "C",
    "at": "2024-05-01T10:00:00Z",
    "tags": ["a"],
    "location": {"lat": 1.0, "lon": 2.0},
}


def _rows(catalog: Any) -> list[tuple[Any, ...]]:
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s%201"
    good_bin = catalog.event(
        "com.acme.Reading", READING, src, seq=7, urgent=True, id="r1"
    )
    good_str = catalog.event("com.acme.Reading", READING, src, seq=8, id="r2")
    alarm = catalog.event(
        "com.acme.Alarm", {"code": 3, "message": None}, "/alarms", id="a1"
    )
    blob = catalog.event(
        "com.acme.Blob",
        b"\x00\x01raw",
        "/b",
        id="b1",
        datacontenttype="application/octet-stream",
    )
    msgs = [
        kafka.encode(good_bin, mode="binary"),
        kafka.encode(good_str, mode="structured"),
        kafka.encode(alarm, mode="binary"),
        kafka.encode(blob, mode="binary"),
    ]
    return [catalog.row(m, i) for i, m in enumerate(msgs)]


def test_binary_and_structured_rows_are_typed(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    df = kafka_df(_rows(catalog))
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    assert dead.count() == 0, dead.collect()
    readings = {r["id"]: r for r in outputs["com.acme.Reading"].collect()}
    assert set(readings) == {"r1", "r2"}
    r1 = readings["r1"]
    assert r1["type"] == "com.acme.Reading" and r1["specversion"] == "1.0"
    assert r1["seq"] == 7 and r1["urgent"] is True
    assert r1["data"]["value"] == 21.5 and r1["data"]["unit"] == "C"
    assert r1["data"]["at"] == datetime(2024, 5, 1, 10, 0)
    assert r1["data"]["location"]["lon"] == 2.0
    assert r1["params"]["plant"] == "p1" and r1["params"]["sensor"] == "s 1"
    assert r1["topic"] == "readings" and r1["offset"] == 0
    assert readings["r2"]["seq"] == 8 and readings["r2"]["urgent"] is None
    assert readings["r2"]["data"]["tags"] == ["a"]
    (alarm,) = outputs["com.acme.Alarm"].collect()
    assert alarm["data"]["code"] == 3 and alarm["source"] == "/alarms"
    (blob,) = outputs["com.acme.Blob"].collect()
    assert bytes(blob["data"]) == b"\x00\x01raw"
    assert blob["datacontenttype"] == "application/octet-stream"


def _dead_rows(catalog: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """(expected reason, Kafka row) for every dead-letter case."""
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s1"
    ok = catalog.event("com.acme.Reading", READING, src, seq=1)
    good = kafka.encode(ok, mode="binary")
    h = dict(good.headers)

    def with_headers(**changes: bytes | None) -> tuple[tuple[str, bytes | None], ...]:
        merged = {**h, **{k.replace("__", "-"): v for k, v in changes.items()}}
        return tuple((k, v) for k, v in merged.items() if v is not None)

    def msg(value: bytes | None, headers: Any, topic: str = "readings") -> Any:
        if isinstance(headers, dict):
            headers = tuple(headers.items())
        return type(good)(topic, None, value, headers, 0)

    structured_ct = (("content-type", b"application/cloudevents+json"),)
    cases = [
        ("decode-error", msg(b"{not json", structured_ct)),
        ("decode-error", msg(b"[1, 2]", structured_ct)),
        ("decode-error", msg(good.value, with_headers(ce_id=None))),
        ("decode-error", msg(good.value, with_headers(ce_specversion=b"0.3"))),
        ("decode-error", msg(good.value, with_headers(ce_time=b"yesterday"))),
        ("decode-error", msg(good.value, with_headers(ce_seq=b"seven"))),
        ("decode-error", msg(good.value, with_headers(ce_dataschema=b"#/relative"))),
        ("unknown-type", msg(good.value, with_headers(ce_type=b"com.acme.Nope"))),
        ("unknown-type", msg(b"plain bytes", ())),
        ("no-match", msg(good.value, with_headers(ce_source=b"/elsewhere"))),
        ("no-match", msg(good.value, with_headers(ce_seq=None))),
        ("no-match", msg(good.value, h, topic="other-topic")),
        ("validation-error", msg(b'{"value": "hot", "unit": "C"}', h)),
        ("validation-error", msg(b'{"unit": "C"}', h)),
        (
            "validation-error",
            msg(b'{"value": 1, "unit": "C", "location": {"lat": 1}}', h),
        ),
        ("validation-error", msg(b"{broken", h)),
        ("validation-error", msg(b"{'value': 1, 'unit': 'C'}", h)),  # single quotes
        # a valid payload, then text that closes the parser's wrapper early
        ("validation-error", msg(good.value + b"}", h)),
        ("validation-error", msg(good.value + b'},{"x":1', h)),
        ("validation-error", msg(None, h)),
        (
            "validation-error",
            msg(good.value, with_headers(content__type=b"text/plain")),
        ),
    ]
    return [(reason, catalog.row(m, i)) for i, (reason, m) in enumerate(cases)]


def test_dead_letters_have_reasons_and_original_columns(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    cases = _dead_rows(catalog)
    df = kafka_df([row for _, row in cases])
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    leaked = {
        k: [(r["offset"], r["data"]) for r in out.collect()]
        for k, out in outputs.items()
    }
    assert all(not rows for rows in leaked.values()), leaked
    got = {r["offset"]: (r["reason"], r["detail"]) for r in dead.collect()}
    expected = {row[4]: reason for reason, row in cases}
    assert {k: v[0] for k, v in got.items()} == expected, sorted(got.items())
    assert dead.columns == [
        *df.columns,
        "traceparent",
        "tracestate",
        "reason",
        "detail",
    ]
    details = {v[1] for v in got.values()}
    assert {
        "invalid-json",
        "missing-attribute: id",
        "invalid-specversion",
        "invalid-attribute: time",
        "invalid-attribute: seq",
        "invalid-attribute: dataschema",
        "invalid payload",
        "missing field: value",
        "missing field: location.lon",
        "no data",
        "unsupported-format",
    } <= details


def test_every_row_lands_in_exactly_one_output(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    rows = _rows(catalog) + [row for _, row in _dead_rows(catalog)]
    rows = [r[:4] + (i,) + r[5:] for i, r in enumerate(rows)]  # unique offsets
    df = kafka_df(rows)
    outputs, dead = spark_rt.decode_kafka(df, catalog.defs, catalog.schemas)
    seen = [
        r["offset"] for out in outputs.values() for r in out.select("offset").collect()
    ]
    seen += [r["offset"] for r in dead.select("offset").collect()]
    assert sorted(seen) == list(range(len(rows)))


TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_trace_context_is_kept_in_every_output(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    """``traceparent`` and ``tracestate`` (the Distributed Tracing extension) are columns of
    every typed output and of the dead letters: from the ``ce_`` headers in binary mode and
    from the envelope in structured mode; null where the event has none."""
    kafka = catalog.kafka
    src = "/plants/p1/sensors/s1"
    traced = {"traceparent": TRACEPARENT, "tracestate": "vendor=a,other=b"}
    events = [
        (
            "binary",
            catalog.event("com.acme.Reading", READING, src, seq=1, id="b", **traced),
        ),
        (
            "structured",
            catalog.event("com.acme.Reading", READING, src, seq=2, id="s", **traced),
        ),
        ("binary", catalog.event("com.acme.Alarm", {"code": 1}, "/alarms", id="plain")),
        # a payload of the wrong type: dead-lettered with its trace context
        (
            "binary",
            catalog.event(
                "com.acme.Alarm", {"code": "x"}, "/alarms", id="bad", **traced
            ),
        ),
        (
            "structured",
            catalog.event(
                "com.acme.Alarm", {"code": "x"}, "/alarms", id="bad2", **traced
            ),
        ),
    ]
    rows = [catalog.row(kafka.encode(e, mode=m), i) for i, (m, e) in enumerate(events)]
    outputs, dead = spark_rt.decode_kafka(kafka_df(rows), catalog.defs, catalog.schemas)
    for frame in (*outputs.values(), dead):
        assert {"traceparent", "tracestate"} <= set(frame.columns)
    got = {
        r["id"]: (r["traceparent"], r["tracestate"])
        for m in ("com.acme.Reading", "com.acme.Alarm")
        for r in outputs[m].collect()
    }
    assert got == {
        "b": (TRACEPARENT, "vendor=a,other=b"),
        "s": (TRACEPARENT, "vendor=a,other=b"),
        "plain": (None, None),
    }
    dead_rows = {r["offset"]: r for r in dead.collect()}
    assert {o: r["detail"] for o, r in dead_rows.items()} == {
        3: "invalid payload",
        4: "invalid payload",
    }
    assert all(r["traceparent"] == TRACEPARENT for r in dead_rows.values())
    assert all(r["tracestate"] == "vendor=a,other=b" for r in dead_rows.values())


def test_output_columns_follow_the_event_schema(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    from pyspark.sql.types import StructType

    from xrgen.formats.jsonschema import spark_type as json_schema_to_spark
    from xrgen.spark_types import event_schema

    from conftest import READING_SCHEMA

    outputs, _ = spark_rt.decode_kafka(
        kafka_df(_rows(catalog)), catalog.defs, catalog.schemas
    )
    frame = outputs["com.acme.Reading"]
    event = StructType.fromJson(
        event_schema(
            json_schema_to_spark(READING_SCHEMA),
            [("seq", "integer"), ("urgent", "boolean")],
        )
    )
    assert frame.columns == [
        *event.fieldNames(),
        "params",
        "topic",
        "partition",
        "offset",
        "timestamp",
    ]
    for f in event.fields:
        assert frame.schema[f.name].dataType.simpleString() == f.dataType.simpleString()


_ALARM_AVRO = json.dumps(
    {
        "type": "record",
        "name": "Alarm",
        "fields": [
            {"name": "code", "type": "long"},
            {"name": "message", "type": ["null", "string"], "default": None},
        ],
    }
)


def _avro_long(n: int) -> bytes:
    """Avro's binary long: zigzag, then a little-endian base-128 varint."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _alarm_avro(code: int, message: str | None) -> bytes:
    """An ``_ALARM_AVRO`` record in Avro binary encoding (union branch index, then value)."""
    if message is None:
        return _avro_long(code) + _avro_long(0)
    text = message.encode()
    return _avro_long(code) + _avro_long(1) + _avro_long(len(text)) + text


def _avro_loaded(spark: Any) -> bool:
    """Whether the session has the spark-avro data source (``XRGEN_SPARK_JARS``)."""
    try:
        spark.sql("SELECT from_avro(CAST(NULL AS BINARY), '\"long\"')").collect()
    except Exception as exc:
        if "AVRO_NOT_LOADED" in str(exc):
            return False
        raise
    return True


def test_avro_encoding_helper() -> None:
    # the spec's examples: 0 -> 00, -1 -> 01, 1 -> 02, -64 -> 7f, 64 -> 80 01
    assert [_avro_long(n) for n in (0, -1, 1, -64, 64)] == [
        b"\x00",
        b"\x01",
        b"\x02",
        b"\x7f",
        b"\x80\x01",
    ]
    assert _alarm_avro(3, "hi") == b"\x06\x02\x04hi"


def test_avro_payloads(catalog: Any, kafka_df: Any, spark_rt: Any, spark: Any) -> None:
    """Rows of a definition whose content type is Avro binary decode with its Avro schema.

    Over Arrow batches here (``payloads="arrow"``); with spark-avro on the session
    (``XRGEN_SPARK_JARS=<spark-avro jar>``) also with ``from_avro`` (``payloads="native"``),
    to the same rows. Without it, ``payloads="native"`` is refused when the decoder is built.
    Unreadable bytes are dead-lettered; a JSON row does not match the Avro definition.
    """
    from dataclasses import replace

    kafka = catalog.kafka
    core = catalog.rt
    alarm_def = catalog.defs[1]
    avro_ct = core.AttrDef("datacontenttype", "string", False, "application/avro")
    defn = replace(
        alarm_def,
        schemaformat="avro",
        datacontenttype="application/avro",
        attributes=(*alarm_def.attributes, avro_ct),
    )
    schemas = {defn.id: catalog.schemas["com.acme.Alarm"]}

    def alarm(ident: str, data: Any, content_type: str, mode: str = "binary") -> Any:
        event = catalog.event(
            "com.acme.Alarm", data, "/alarms", id=ident, datacontenttype=content_type
        )
        return kafka.encode(event, mode=mode)

    msgs = [
        alarm("a1", _alarm_avro(3, "hi"), "application/avro"),
        alarm("a2", _alarm_avro(-70, None), "Application/Avro; v=1"),
        # a string longer than the bytes left: unreadable
        alarm("a3", b"\x06\x02\x10hi", "application/avro"),
        alarm("a4", {"code": 5}, "application/json"),
        # structured mode: the Avro bytes travel as data_base64
        alarm("a5", _alarm_avro(9, "s"), "application/avro", "structured"),
    ]
    df = kafka_df([catalog.row(m, i) for i, m in enumerate(msgs)])
    modes = ["arrow"] + (["native"] if _avro_loaded(spark) else [])
    if not _avro_loaded(spark):
        with pytest.raises(RuntimeError, match="spark-avro"):
            spark_rt.SparkDecoder(
                (defn,), schemas, payloads="native", avro_schemas={defn.id: _ALARM_AVRO}
            )
    for mode in modes:
        outputs, dead = spark_rt.decode_kafka(
            df, (defn,), schemas, payloads=mode, avro_schemas={defn.id: _ALARM_AVRO}
        )
        good = {r["id"]: r["data"].asDict() for r in outputs[defn.id].collect()}
        assert good == {
            "a1": {"code": 3, "message": "hi"},
            "a2": {"code": -70, "message": None},
            "a5": {"code": 9, "message": "s"},
        }
        assert [(r["offset"], r["reason"], r["detail"]) for r in dead.collect()] == [
            (2, "validation-error", "invalid payload"),
            (3, "no-match", "type com.acme.Alarm"),
        ]


_ENVELOPE = '"specversion":"1.0","id":"x","source":"/alarms","type":"com.acme.Alarm"'
_BLOB = '"specversion":"1.0","id":"b","source":"/b","type":"com.acme.Blob"'


def _body(members: str, base: str = _ENVELOPE) -> str:
    """A structured envelope: ``{<base><members>}``."""
    return "{" + base + members + "}"


#: structured envelopes written by hand: (body, the definition that should get it or None)
_STRUCTURED = [
    (_body(',"data":{"code":3}'), "com.acme.Alarm"),
    (
        " \n" + _body(',"traceparent":"00-a","data":{"code":3}') + " \n",
        "com.acme.Alarm",
    ),
    (_body(',"data_base64":"eyJjb2RlIjo0fQ=="'), "com.acme.Alarm"),
    (_body(',"data":null'), None),
    (_body(""), None),
    (_body(',"data":{"code":3.0}'), None),
    (_body(',"data":{"code":"3"}'), None),
    (_body(',"data":[1]'), None),
    ("[" + _body(',"data":{"code":3}') + "]", None),
    (json.dumps(_body(',"data":{"code":3}')), None),  # a JSON string
    (_body(',"data":{"code":3}') + " x", None),  # text after the envelope
    (_body(',"data":{"code":3}') + "}", None),  # one brace too many
    (_body(',"data":{"code":3}') + '},{"a":1', None),
    (_body(',"data":{"code":3}}'), None),  # the brace too many inside
    (_body(",\"data\":{'code':3}"), None),  # single-quoted JSON
    ("{'specversion':'1.0','id':'x','source':'/alarms','type':'com.acme.Alarm'}", None),
    (_body(',"data":{"code":3,"message":"a\tb"}'), None),  # a raw control character
    # JSON syntax errors inside ``data`` and after it: with ``data`` typed, Spark reads on
    # past them (the payload stage parses such rows again to tell them from a payload of a
    # wrong type)
    (_body(',"data":{"code":3,}'), None),
    (_body(',"data":{"code":"3",}'), None),
    (_body(',"data":{"code":3} ,"x":"a" "b"'), None),
    (_body(',"data":{"code":[1,}'), None),
    # a member twice: the last one wins (the payload tells which one was read)
    (_body(',"data":{"code":1},"data":{"code":3}'), "com.acme.Alarm"),
    (_body(',"data":{"a":1.50,"b":[true,null]}', _BLOB), "com.acme.Blob"),
    (_body(',"datacontenttype":"text/plain","data":"hello"', _BLOB), "com.acme.Blob"),
    (_body(',"data_base64":"AAEC"', _BLOB), "com.acme.Blob"),
]


def _payload_json(data: Any) -> Any:
    """A payload as comparable JSON (bytes that are JSON are parsed, models dumped)."""
    if isinstance(data, (bytes, bytearray)):
        try:
            return json.loads(data)
        except ValueError:
            return bytes(data)
    if hasattr(data, "model_dump"):
        return data.model_dump(mode="json")
    return data


#: ``data`` holding a JSON string of JSON text: an envelope read with ``data`` as text gives the
#: text inside the string (a documented difference from the dispatcher); a typed envelope
#: rejects it as the dispatcher does
_JSON_STRING_DATA = (_body(',"data":"{\\"code\\":3}"'), None)


#: how the decoder under test parses envelopes (``SparkDecoder.route``): the catalog's three
#: types select three envelope variants (read with ``get_json_object`` first); the Alarm
#: definition alone (one variant: nothing is read before the parse); ``data`` read as text and
#: parsed after the match
_LAYOUTS = ["variant by type", "one variant", "data as text"]


@pytest.mark.parametrize("layout", _LAYOUTS)
def test_structured_envelope_verdicts_match_the_dispatcher(
    catalog: Any, kafka_df: Any, spark_rt: Any, layout: str
) -> None:
    """Hand-written structured envelopes: the Spark decoder routes each one as the Python
    dispatcher does (same definition or same dead-letter reason, same payload), in each
    layout of the routing plan (``_LAYOUTS``)."""
    import importlib

    rt = catalog.rt
    dispatch = importlib.import_module(rt.__name__ + "._dispatch")
    ct = [("content-type", b"application/cloudevents+json")]
    cases = _STRUCTURED + ([_JSON_STRING_DATA] if layout != "data as text" else [])
    messages = [
        rt.KafkaMessage("alarms", None, body.encode(), tuple(ct), 0)
        for body, _ in cases
    ]
    from dataclasses import replace

    from pydantic import BaseModel

    class AlarmData(BaseModel):  # ALARM_SCHEMA as the generated model would be
        code: int
        message: str | None = None

    chosen = [
        d for d in catalog.defs if layout != "one variant" or d.id == "com.acme.Alarm"
    ]
    defs = tuple(
        replace(d, model=AlarmData) if d.id == "com.acme.Alarm" else d for d in chosen
    )
    handled: dict[int, tuple[str, Any]] = {}
    dispatcher = dispatch.DispatcherBase(defs, dead_letter=lambda *a: None)
    current = [0]
    for d in chosen:
        dispatcher.on(d.id)(
            lambda event, params, mid=d.id: handled.__setitem__(
                current[0], (mid, _payload_json(event.data))
            )
        )
    expected: dict[int, tuple[str, Any]] = {}
    for n, message in enumerate(messages):
        current[0] = n
        result = dispatcher.dispatch(message)
        expected[n] = handled[n] if result.handled else ("dead", str(result.reason))
    # the cases mean what they say
    assert [expected[n][0] for n in range(len(cases))] == [
        mid if mid in {d.id for d in chosen} else "dead" for _, mid in cases
    ]
    df = kafka_df([catalog.row(m, n) for n, m in enumerate(messages)])
    decoder = spark_rt.SparkDecoder(chosen, catalog.schemas, "kafka")
    variants = {"variant by type": 3, "one variant": 1, "data as text": 3}[layout]
    assert decoder.plan.envelopes is not None
    types, default = decoder.plan.envelopes
    assert len(set(types.values()) | {default}) == variants
    if layout == "data as text":  # what the decoder builds without a variant choice
        decoder.plan = dataclasses.replace(decoder.plan, envelopes=None)
    outputs, dead = decoder.decode(df)
    got: dict[int, tuple[str, Any]] = {}
    for mid, frame in outputs.items():
        for r in frame.collect():
            data = r["data"]
            data = data.asDict(recursive=True) if hasattr(data, "asDict") else data
            got[r["offset"]] = (mid, _payload_json(data))
    for r in dead.collect():
        got[r["offset"]] = ("dead", r["reason"])
    assert got == expected


def test_a_type_member_twice_selecting_two_envelope_variants_is_dead_lettered(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    """The envelope variant is chosen from the first ``type`` member, the strict parse keeps
    the last one: when they select different variants the row is dead-lettered (the Python
    dispatcher takes the last one; a documented difference). Repeated with one variant, the
    last one wins as in the dispatcher."""
    rt = catalog.rt
    ct = (("content-type", b"application/cloudevents+json"),)
    head = '{"specversion":"1.0","id":"x","source":"/alarms",'
    bodies = [
        head + '"type":"com.acme.Blob","type":"com.acme.Alarm","data":{"code":3}}',
        head + '"type":"com.acme.Alarm","type":"com.acme.Blob","data":{"code":3}}',
        head + '"type":"com.acme.Nope","type":"com.acme.Blob","data":{"code":3}}',
    ]
    rows = [
        catalog.row(rt.KafkaMessage("alarms", None, b.encode(), ct, 0), n)
        for n, b in enumerate(bodies)
    ]
    outputs, dead = spark_rt.decode_kafka(kafka_df(rows), catalog.defs, catalog.schemas)
    assert sorted((r["offset"], r["reason"], r["detail"]) for r in dead.collect()) == [
        (0, "decode-error", "duplicate-attribute: type"),
        (1, "decode-error", "duplicate-attribute: type"),
    ]
    # an unknown type and an opaque one select the same variant (data as text)
    assert [r["offset"] for r in outputs["com.acme.Blob"].collect()] == [2]


def test_envelope_variant_choice(catalog: Any, spark_rt: Any) -> None:
    """One parse needs each CloudEvents type to select one envelope variant."""
    from dataclasses import replace

    from pyspark.sql.types import StructField, StructType

    reading, alarm, blob = catalog.defs
    schemas = dict(catalog.schemas)

    def choice(*defs: Any) -> Any:
        return spark_rt.SparkDecoder(defs, schemas, "kafka").plan.envelopes

    # types -> variant (JSON payload group + 1; 0: data as text), the variant of other types
    assert choice(reading, alarm, blob) == (
        {"com.acme.Reading": 1, "com.acme.Alarm": 2, "com.acme.Blob": 0},
        0,  # other types: the most common variant (here the lowest of three)
    )
    # definitions with one payload type share a variant
    twin = replace(alarm, id="com.acme.Alarm2", type="com.acme.Alarm2")
    schemas[twin.id] = schemas[alarm.id]
    assert choice(alarm, twin) == ({"com.acme.Alarm": 1, "com.acme.Alarm2": 1}, 1)
    # one type, two payload types (told apart by other attributes): data as text
    other = replace(alarm, id="com.acme.Alarm3")
    schemas[other.id] = StructType([StructField("x", schemas[alarm.id])])
    assert choice(alarm, other) is None
    # a definition without a literal type can match any type: its variant is every type's
    untyped = replace(alarm, id="com.acme.Any", type=None, attributes=())
    schemas[untyped.id] = schemas[alarm.id]
    assert choice(twin, untyped) == ({"com.acme.Alarm2": 1}, 1)
    assert choice(reading, untyped) is None


def test_a_typed_output_computes_the_error_once(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    """The output filters test the materialized error column: pushed below the last stage,
    the filter carried the error expression, and Spark inferred a second copy of it from
    the ``_xr_m`` test beside it (two evaluations per good row, twice the generated code).
    """
    outputs, dead = spark_rt.decode_kafka(
        kafka_df(_rows(catalog)), catalog.defs, catalog.schemas
    )
    decoder = spark_rt.SparkDecoder(catalog.defs, catalog.schemas, "kafka")
    groups = [g for g in decoder.plan.groups if g.kind == "json"]
    assert len(groups) == 2  # Reading, Alarm
    for frame in [*outputs.values(), dead]:
        plan = frame._jdf.queryExecution().executedPlan().toString()
        filters = [line for line in plan.splitlines() if "Filter " in line]
        assert filters, plan
        for line in filters:  # the error expression (its payload branch) is not there
            assert "_xr_e" in line and "invalid payload" not in line, line
        # computed in one place: one payload branch per JSON payload type
        assert plan.count("invalid payload") == len(groups), plan


def test_json_payloads_run_in_the_jvm_only(
    catalog: Any, kafka_df: Any, spark_rt: Any
) -> None:
    """A catalog without Avro or Protobuf payloads gets a plan without a Python step (no
    UDF, no Arrow step) and without the payload-bytes column of the Arrow path."""
    decoder = spark_rt.SparkDecoder(catalog.defs, catalog.schemas, "kafka")
    assert not decoder.plan.specs  # no binary payload formats in this catalog
    outputs, dead = decoder.decode(kafka_df(_rows(catalog)))
    for frame in [*outputs.values(), dead]:
        plan = frame._jdf.queryExecution().executedPlan().toString()
        for python_step in ("EvalPython", "MapInArrow", "PythonUDF", "MapInPandas"):
            assert python_step not in plan, plan
        assert "_xr_bin" not in plan, plan
        assert "from_json" in plan  # the payloads are parsed, in the JVM


def test_outputs_are_built_on_first_lookup(spark_rt: Any) -> None:
    """``Outputs`` builds a message's DataFrame when it is first looked up, then keeps it."""
    built: list[str] = []

    def build(message_id: str) -> Any:
        built.append(message_id)
        return message_id.upper()

    outputs = spark_rt.Outputs(["com.b", "com.a"], build)
    assert list(outputs) == ["com.b", "com.a"] and len(outputs) == 2
    assert "com.a" in outputs and "com.c" not in outputs
    assert built == []
    assert outputs["com.a"] == "COM.A" and outputs["com.a"] == "COM.A"
    assert built == ["com.a"]
    with pytest.raises(KeyError):
        outputs["com.c"]
    assert dict(outputs) == {"com.b": "COM.B", "com.a": "COM.A"}
    assert built == ["com.a", "com.b"]


def test_outputs_of_the_same_shape_share_their_columns(
    spark_rt: Any, catalog: Any, kafka_df: Any, monkeypatch: Any
) -> None:
    """Definitions that differ only in their ``type`` get one output select list and, per
    routed frame, one selected frame that each output filters (one ``where`` per output:
    building a select per output took 30-50 ms each for a 1,100-definition catalog)."""
    alarm = catalog.defs[1]
    core = catalog.rt
    defs = tuple(
        dataclasses.replace(
            alarm,
            id=f"com.acme.T{n}",
            type=f"com.acme.T{n}",
            attributes=(
                core.AttrDef("type", "string", True, f"com.acme.T{n}"),
                *alarm.attributes[1:],
            ),
        )
        for n in range(3)
    )
    schema = catalog.schemas["com.acme.Alarm"]
    decoder = spark_rt.SparkDecoder(defs, {d.id: schema for d in defs}, "kafka")
    outputs_module = importlib.import_module(spark_rt.__name__ + ".outputs")
    plan = decoder.plan
    first, second, third = (outputs_module.shape(plan, t) for t in plan.targets)
    assert first == second == third
    rows = [
        catalog.row(
            catalog.kafka.encode(
                catalog.event(f"com.acme.T{n}", {"code": n}, "/alarms")
            ),
            offset=n,
        )
        for n in range(3)
    ]
    routed = decoder.route(kafka_df(rows))
    selects: list[Any] = []
    sql = importlib.import_module(spark_rt.__name__ + ".sql")
    apply = sql.apply
    monkeypatch.setattr(
        sql,
        "apply",
        lambda df, select: selects.append(select) or apply(df, select),
    )
    outputs, _dead = decoder.split(routed)
    assert len(selects) == 1  # the dead letters
    got = {m: [r["data"]["code"] for r in outputs[m].collect()] for m in outputs}
    assert got == {f"com.acme.T{n}": [n] for n in range(3)}
    assert len(selects) == 2  # and one for the three outputs
    # built once for the three: one output select list among what the decoder built
    assert [k for k in decoder._built if k[0] == "output"] == [first]
