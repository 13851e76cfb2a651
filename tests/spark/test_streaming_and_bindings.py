"""Structured Streaming with foreachBatch, decode_json, and the landing-shape decoders."""

from __future__ import annotations

import dataclasses
import importlib
import json
from typing import Any

import pytest

pytestmark = pytest.mark.spark

READING = {"value": 1.25, "unit": "F"}


def test_streaming_file_source_with_foreach_batch(
    spark: Any, spark_rt: Any, catalog: Any, tmp_path: Any
) -> None:
    kafka = catalog.kafka
    src = "/plants/p9/sensors/s9"
    msgs = [
        kafka.encode(
            catalog.event("com.acme.Reading", READING, src, seq=i, id=f"s{i}"),
            mode=mode,
        )
        for i, mode in enumerate(["binary", "structured", "binary"])
    ]
    msgs.append(
        type(msgs[0])(
            "readings",
            None,
            b"{oops",
            (("content-type", b"application/cloudevents+json"),),
            0,
        )
    )
    rows = [catalog.row(m, i) for i, m in enumerate(msgs)]
    landing = spark_rt.LANDING_SCHEMAS["kafka"]
    inbox = tmp_path / "inbox"
    spark.createDataFrame(rows, landing).write.parquet(str(inbox))

    decoder = spark_rt.SparkDecoder(catalog.defs, catalog.schemas, "kafka")
    written: dict[str, list[Any]] = {}

    def write(message_id: str | None, frame: Any, batch_id: int) -> None:
        written.setdefault(str(message_id), []).extend(frame.collect())

    stream = spark.readStream.schema(landing).parquet(str(inbox))
    query = (
        stream.writeStream.foreachBatch(decoder.foreach_batch(write))
        .option("checkpointLocation", str(tmp_path / "ckpt"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    assert query.exception() is None
    assert sorted(r["id"] for r in written["com.acme.Reading"]) == ["s0", "s1", "s2"]
    assert [r["reason"] for r in written["None"]] == ["decode-error"]
    # outputs without rows in the batch are not written (no Spark job per definition)
    assert set(written) == {"com.acme.Reading", "None"}
    assert (
        len(spark.sparkContext._jsc.getPersistentRDDs()) == 0
    )  # unpersisted after each batch

    # ``write_empty=True``: every message id and the dead letters, in catalog order
    calls: list[tuple[str | None, int, int]] = []

    def record(message_id: str | None, frame: Any, batch_id: int) -> None:
        calls.append((message_id, frame.count(), batch_id))

    good = spark.createDataFrame(rows[:1], landing)
    decoder.foreach_batch(record, write_empty=True)(good, 7)
    assert calls == [
        ("com.acme.Reading", 1, 7),
        ("com.acme.Alarm", 0, 7),
        ("com.acme.Blob", 0, 7),
        (None, 0, 7),
    ]
    calls.clear()
    decoder.foreach_batch(record)(good, 8)
    assert calls == [("com.acme.Reading", 1, 8)]


def test_foreach_batch_keeps_rows_in_a_checkpoint_or_the_cache(
    spark: Any, spark_rt: Any, catalog: Any
) -> None:
    """``foreach_batch`` keeps the routed rows in a local checkpoint (the outputs scan
    them), or in the columnar cache with ``keep="cache"`` and where a DataFrame has no JVM
    side (Spark Connect raises ``AttributeError`` for ``_jdf``): the same outputs either
    way, and nothing left persisted after the batch."""
    kafka = catalog.kafka
    src = "/plants/p9/sensors/s9"
    msgs = [
        kafka.encode(catalog.event("com.acme.Reading", READING, src, seq=i, id=f"c{i}"))
        for i in range(3)
    ]
    bad = type(msgs[0])("readings", None, b"{oops", (("ce_specversion", b"1.0"),), 0)
    rows = [catalog.row(m, i) for i, m in enumerate([*msgs, bad])]
    frame = spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS["kafka"])

    class NoJvm:
        def __init__(self, df: Any) -> None:
            self.df = df

        def __getattr__(self, name: str) -> Any:
            if name == "_jdf":
                raise AttributeError(name)
            return getattr(self.df, name)

    decoder = spark_rt.SparkDecoder(catalog.defs, catalog.schemas, "kafka")
    cacheable = decoder._cacheable
    decoder._cacheable = lambda routed: NoJvm(cacheable(routed))
    plans: list[str] = []
    written: dict[str, list[Any]] = {}

    def write(message_id: str | None, out: Any, batch_id: int) -> None:
        plans.append(out._jdf.queryExecution().executedPlan().toString())
        written[str(message_id)] = out.collect()

    decoder.foreach_batch(write)(frame, 3)
    assert sorted(r["id"] for r in written["com.acme.Reading"]) == ["c0", "c1", "c2"]
    assert [r["reason"] for r in written["None"]] == ["decode-error"]
    assert len(plans) == 2 and all("InMemoryTableScan" in p for p in plans)
    assert len(spark.sparkContext._jsc.getPersistentRDDs()) == 0
    # with a JVM side: the outputs scan the checkpointed rows, not a cache of the plan
    decoder._cacheable = cacheable
    plans.clear()
    decoder.foreach_batch(write)(frame, 4)
    assert sorted(r["id"] for r in written["com.acme.Reading"]) == ["c0", "c1", "c2"]
    assert len(plans) == 2 and not any("InMemoryTableScan" in p for p in plans)
    assert all("ExistingRDD" in p for p in plans), plans
    assert len(spark.sparkContext._jsc.getPersistentRDDs()) == 0
    # keep="cache" asks for the persisted frame (lost blocks recomputed from lineage)
    plans.clear()
    decoder.foreach_batch(write, keep="cache")(frame, 5)
    assert sorted(r["id"] for r in written["com.acme.Reading"]) == ["c0", "c1", "c2"]
    assert len(plans) == 2 and all("InMemoryTableScan" in p for p in plans)
    assert len(spark.sparkContext._jsc.getPersistentRDDs()) == 0
    with pytest.raises(ValueError, match="keep must be"):
        decoder.foreach_batch(write, keep="disk")


def test_streaming_decode_without_foreach_batch(
    spark: Any, spark_rt: Any, catalog: Any, tmp_path: Any
) -> None:
    """Each lazy output of decode_kafka is itself a valid streaming query."""
    kafka = catalog.kafka
    ev = catalog.event("com.acme.Alarm", {"code": 9}, "/alarms", id="x1")
    rows = [catalog.row(kafka.encode(ev, mode="structured"), 0)]
    landing = spark_rt.LANDING_SCHEMAS["kafka"]
    spark.createDataFrame(rows, landing).write.parquet(str(tmp_path / "in"))
    stream = spark.readStream.schema(landing).parquet(str(tmp_path / "in"))
    outputs, _ = spark_rt.decode_kafka(stream, catalog.defs, catalog.schemas)
    query = (
        outputs["com.acme.Alarm"]
        .writeStream.format("memory")
        .queryName("alarms_out")
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(120)
    got = spark.sql("select id, data.code from alarms_out").collect()
    assert [(r["id"], r["code"]) for r in got] == [("x1", 9)]


def test_decode_json_structured_strings(
    spark: Any, spark_rt: Any, catalog: Any
) -> None:
    jsonformat = importlib.import_module(catalog.rt.__name__ + ".bindings.jsonformat")
    ev = catalog.event(
        "com.acme.Alarm", {"code": 4, "message": "hi"}, "/alarms", id="j1"
    )
    good = jsonformat.encode(ev).decode()
    bad_type = json.dumps(
        {"specversion": "1.0", "id": "j2", "source": "/alarms", "type": "x.Y"}
    )
    df = spark.createDataFrame([(good,), (bad_type,), ("nope",)], "value string")
    outputs, dead = spark_rt.decode_json(df, catalog.defs, catalog.schemas)
    (row,) = outputs["com.acme.Alarm"].collect()
    assert row["id"] == "j1" and row["data"]["message"] == "hi"
    reasons = sorted((r["reason"], r["detail"]) for r in dead.collect())
    assert [r for r, _ in reasons] == ["decode-error", "unknown-type"], reasons


def _wire(rt: Any, name: str) -> Any:
    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


def _landing_rows(catalog: Any, binding: str) -> list[dict[str, Any]]:
    """Rows of the landing shape from messages encoded by the runtime codecs (both modes)."""
    rt = catalog.rt
    codec = _wire(rt, binding)
    core = rt
    rows = []
    for i, mode in enumerate(["binary", "structured"]):
        ev = catalog.event("com.acme.Alarm", {"code": i}, "/alarms", id=f"{binding}{i}")
        ev.binding = {
            "mqtt": core.MqttBinding(topic="t/alarms"),
            "nats": core.NatsBinding(subject="alarms"),
            "http": core.HttpBinding(method="POST", path="/in"),
            "pulsar": core.PulsarBinding(topic="alarms"),
            "rocketmq": core.RocketMqBinding(topic="alarms"),
            "amqp": core.AmqpBinding(address="alarms"),
        }[binding]
        m = codec.encode(ev, mode=mode)
        rows.append(_to_landing(binding, m))
    return rows


def _to_landing(binding: str, m: Any) -> dict[str, Any]:
    pairs = lambda items: [{"key": k, "value": v} for k, v in items]  # noqa: E731
    if binding == "mqtt":
        return {
            "topic": m.topic,
            "payload": m.payload,
            "qos": m.qos,
            "retain": m.retain,
            "version": m.version,
            "content_type": m.content_type,
            "user_properties": pairs(m.user_properties),
        }
    if binding == "nats":
        return {
            "subject": m.subject,
            "payload": m.payload,
            "headers": pairs(m.headers),
            "reply": m.reply,
        }
    if binding == "http":
        return {
            "method": m.method,
            "path": m.path,
            "headers": pairs(m.headers),
            "body": m.body,
            "status": m.status,
        }
    if binding == "pulsar":
        return {
            "topic": m.topic,
            "payload": m.payload,
            "properties": dict(m.properties),
            "partition_key": m.partition_key,
            "event_time": m.event_time,
        }
    if binding == "rocketmq":
        return {
            "topic": m.topic,
            "body": m.body,
            "properties": dict(m.properties),
            "tag": m.tag,
            "keys": list(m.keys),
        }
    props = {k.replace("-", "_"): v for k, v in m.properties.items()}
    return {
        "body": m.body,
        "properties": props,
        "application_properties": _canonical_map(m.application_properties),
        "message_annotations": _canonical_map(m.message_annotations),
        "header": {k.replace("-", "_"): v for k, v in m.header.items()} or None,
        "footer": _canonical_map(m.footer),
        "address": m.address,
    }


def _canonical_map(section: Any) -> dict[str, str]:
    return {str(k): _canonical(v) for k, v in section.items()}


def _canonical(value: Any) -> str:
    from datetime import datetime, timezone

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode()
    return str(value)


@pytest.mark.parametrize(
    "binding", ["mqtt", "nats", "http", "pulsar", "rocketmq", "amqp"]
)
def test_landing_decoders_both_modes(
    spark: Any, spark_rt: Any, catalog: Any, binding: str
) -> None:
    rows = _landing_rows(catalog, binding)
    df = spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS[binding])
    decode = getattr(spark_rt, f"decode_{binding}")
    outputs, dead = decode(df, catalog.defs, catalog.schemas)
    assert dead.count() == 0, dead.collect()
    got = sorted(
        (r["id"], r["data"]["code"]) for r in outputs["com.acme.Alarm"].collect()
    )
    assert got == [(f"{binding}0", 0), (f"{binding}1", 1)]


ENCODED_IDS = [
    "a%C0%A0b",  # overlong UTF-8: invalid
    "a%FFb",  # not UTF-8
    "a%E2%82",  # truncated sequence
    "a%ZZ",  # bad escape
    "a%4",  # bad escape at the end
    "a%EF%BF%BDb",  # U+FFFD spelled as UTF-8: valid
    "a\ufffd%41",  # a literal U+FFFD and an escape: valid
    "x%41y+z",  # valid; '+' stays '+'
]


@pytest.mark.parametrize("binding", ["nats", "http"])
def test_percent_encoding_verdicts_match_the_codecs(
    spark: Any, spark_rt: Any, catalog: Any, binding: str
) -> None:
    """Invalid percent-encoding in an attribute header dead-letters like the codec rejects it."""
    codec = _wire(catalog.rt, binding)
    core = catalog.rt
    event = catalog.event("com.acme.Alarm", {"code": 1}, "/alarms", id="x")
    event.binding = (
        core.NatsBinding(subject="alarms")
        if binding == "nats"
        else core.HttpBinding(method="POST", path="/in")
    )
    binary = codec.encode(event, mode="binary")
    rows, expected = [], []
    for n, raw in enumerate(ENCODED_IDS):
        headers = tuple(
            (k, raw if k.lower() == "ce-id" else v) for k, v in binary.headers
        )
        message = dataclasses.replace(binary, headers=headers)
        try:
            decoded_id = codec.decode(message).attributes["id"]
        except core.DecodeError as exc:
            assert exc.reason == "invalid-encoding", exc
            decoded_id = None
        expected.append((n, decoded_id))
        row = _to_landing(binding, message)
        row["headers"] = row["headers"] + [{"key": "x-row", "value": str(n)}]
        rows.append(row)
    assert [d for _, d in expected].count(None) == 5  # the cases mean what they say
    df = spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS[binding])
    outputs, dead = getattr(spark_rt, f"decode_{binding}")(
        df, catalog.defs, catalog.schemas
    )
    got: list[tuple[int, str | None]] = []
    for r in outputs["com.acme.Alarm"].collect():
        (n,) = [n for n, decoded in expected if decoded == r["id"]]
        got.append((n, r["id"]))
    for r in dead.collect():
        assert (r["reason"], r["detail"]) == ("decode-error", "invalid-encoding"), r
        n = int(next(h["value"] for h in r["headers"] if h["key"] == "x-row"))
        got.append((n, None))
    assert sorted(got) == expected


def test_http_batch_bodies_are_unsupported_before_any_json_error(
    spark: Any, spark_rt: Any, catalog: Any
) -> None:
    """``application/cloudevents-batch+json`` is reported as an unsupported mode whatever the
    body holds (the HTTP codec's ``decode`` rejects a batch before reading it), also when
    the envelope is read with a typed ``data`` that does not fit (a payload of the wrong
    type, a syntax error inside ``data``) and would otherwise be parsed again as a JSON
    check. One definition: every envelope is read typed (with several, the ``type`` read
    first by ``get_json_object`` is null for broken JSON, which selects text ``data``).
    """
    event = (
        '{"specversion":"1.0","id":"x","source":"/alarms","type":"com.acme.Alarm",'
        '"data":{"code":"not an integer"}}'
    )
    broken = event.replace('"not an integer"', "3,")  # {"code":3,}
    bodies = ["[" + event + "]", event, event[:-2], broken]
    ct = [{"key": "Content-Type", "value": "application/cloudevents-batch+json"}]
    rows = [
        {
            "method": "POST",
            "path": "/in",
            "headers": ct,
            "body": b.encode(),
            "status": None,
        }
        for b in bodies
    ]
    df = spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS["http"])
    alarm = [d for d in catalog.defs if d.id == "com.acme.Alarm"]
    decoder = spark_rt.SparkDecoder(alarm, catalog.schemas, "http")
    assert decoder.plan.envelopes == ({"com.acme.Alarm": 1}, 1)  # one typed variant
    outputs, dead = decoder.decode(df)
    assert sum(frame.count() for frame in outputs.values()) == 0
    assert [(r["reason"], r["detail"]) for r in dead.collect()] == [
        ("decode-error", "unsupported-format")
    ] * 4


def test_http_method_option_compares_in_upper_case(
    spark: Any, spark_rt: Any, runtime_package: Any
) -> None:
    """The HTTP declaration's upper-case ``method`` field: a definition bound to method
    ``post`` matches a request of method ``POST`` or ``Post`` (as the dispatcher compares),
    and not a ``PUT``."""
    core = runtime_package
    defn = core.MessageDef(
        id="m",
        group="g",
        envelope="CloudEvents/1.0",
        type="t",
        attributes=(core.AttrDef("type", "string", True, "t"),),
        protocol="HTTP",
        options=(core.OptionDef(("method",), "post"),),
    )
    rows = [
        {
            "method": method,
            "path": "/in",
            "headers": [
                {"key": "ce-specversion", "value": "1.0"},
                {"key": "ce-id", "value": str(i)},
                {"key": "ce-source", "value": "/s"},
                {"key": "ce-type", "value": "t"},
            ],
            "body": None,
            "status": None,
        }
        for i, method in enumerate(["POST", "Post", "PUT"])
    ]
    df = spark.createDataFrame(rows, spark_rt.LANDING_SCHEMAS["http"])
    outputs, dead = spark_rt.SparkDecoder([defn], {}, "http").decode(df)
    assert sorted(r["id"] for r in outputs["m"].collect()) == ["0", "1"]
    assert [(r["method"], r["reason"]) for r in dead.collect()] == [("PUT", "no-match")]
