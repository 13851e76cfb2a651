"""The payload-format part of ``bench_spark.py`` (see its docstring): Avro and Protobuf
payloads over Arrow (and natively where the session has Spark's connectors) against JSON, and
the Arrow step's Python work per row.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import time
from collections.abc import Callable
from typing import Any

from spark_common import PAYLOAD_SCHEMA, noop, timed_rounds, verdict

BENCH_AVRO = {
    "type": "record",
    "name": "Bench",
    "namespace": "com.example",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "count", "type": "long"},
        {"name": "price", "type": ["null", "double"], "default": None},
        {"name": "active", "type": ["null", "boolean"], "default": None},
        {"name": "name", "type": ["null", "string"], "default": None},
        {
            "name": "created",
            "type": {"type": "long", "logicalType": "timestamp-millis"},
        },
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "ratio", "type": ["null", "double"], "default": None},
    ],
}
BENCH_PROTO = """syntax = "proto3";
package com.example;
message Bench {
  string id = 1;
  int64 count = 2;
  double price = 3;
  bool active = 4;
  string name = 5;
  int64 created = 6;
  repeated string tags = 7;
  double ratio = 8;
}
"""


def make_format_data(spark: Any, rows: int, root: str) -> dict[str, str]:
    """Parquet paths of Kafka rows whose payloads are JSON, Avro and Protobuf."""
    import io
    from datetime import datetime, timezone

    import fastavro
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    from pyspark.sql import functions as F

    from xrgen.formats.protobuf import compile_proto

    parsed = fastavro.parse_schema(BENCH_AVRO)
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(
        compile_proto(BENCH_PROTO).descriptor_set
    ).file:
        pool.Add(f)
    proto_cls = message_factory.GetMessageClass(
        pool.FindMessageTypeByName("com.example.Bench")
    )
    created = datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
    distinct = []
    for i in range(1000):
        rec = {
            "id": f"k-{i}",
            "count": i,
            "price": i * 0.5,
            "active": i % 2 == 0,
            "name": f"name {i}",
            "tags": ["a", "b"],
            "ratio": i / 7.0,
        }
        as_json = json.dumps({**rec, "created": "2024-05-01T10:00:00Z"}).encode()
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, {**rec, "created": created})
        as_proto = proto_cls(
            **rec, created=int(created.timestamp() * 1000)
        ).SerializeToString()
        distinct.append((i, as_json, out.getvalue(), as_proto))
    small = spark.createDataFrame(
        distinct, "n long, json binary, avro binary, proto binary"
    )
    reps = spark.range(max(rows // 1000, 1), numPartitions=2).withColumnRenamed(
        "id", "r"
    )
    base = reps.crossJoin(small).withColumn("i", F.col("r") * 1000 + F.col("n"))

    def header(key: str, value: Any) -> Any:
        return F.struct(F.lit(key).alias("key"), value.cast("binary").alias("value"))

    paths = {}
    for fmt, column, content_type in (
        ("json", "json", "application/json"),
        ("avro", "avro", "avro/binary"),
        ("protobuf", "proto", "application/protobuf"),
    ):
        path = os.path.join(root, f"format-{fmt}-{rows}")
        paths[fmt] = path
        if os.path.exists(os.path.join(path, "_SUCCESS")):
            continue
        headers = F.array(
            header("ce_specversion", F.lit("1.0")),
            header("ce_id", F.col("i").cast("string")),
            header("ce_source", F.lit("/bench/source")),
            header("ce_type", F.lit(f"com.example.{fmt}")),
            header("content-type", F.lit(content_type)),
        )
        base.select(
            F.col("i").cast("string").cast("binary").alias("key"),
            F.col(column).alias("value"),
            F.lit("bench").alias("topic"),
            F.lit(0).alias("partition"),
            F.col("i").alias("offset"),
            F.lit("2024-05-01 10:00:00").cast("timestamp").alias("timestamp"),
            F.lit(0).alias("timestampType"),
            headers.alias("headers"),
        ).write.mode("overwrite").parquet(path)
    return paths


def payload_formats(spark: Any, rt: Any, rows: int, repeat: int, root: str) -> None:
    """The Avro / Protobuf decode paths against the JSON path (see the module doc)."""
    import warnings

    from pyspark.sql.types import StructType

    from xrgen.formats.avro import spark_type as avro_to_spark
    from xrgen.formats.jsonschema import spark_type as json_schema_to_spark
    from xrgen.formats.protobuf import compile_proto, spark_type

    sp = importlib.import_module("xrgen_runtime.spark")
    payloads = importlib.import_module("xrgen_runtime.spark.payloads")
    core = rt
    paths = make_format_data(spark, rows, root)
    types = {
        "json": json_schema_to_spark(PAYLOAD_SCHEMA),
        "avro": avro_to_spark(BENCH_AVRO),
        "protobuf": spark_type(BENCH_PROTO),
    }
    content = {
        "json": "application/json",
        "avro": "avro/binary",
        "protobuf": "application/protobuf",
    }

    def decoder(fmt: str, mode: str) -> Any:
        mid = f"com.example.{fmt}"
        defn = core.MessageDef(
            id=mid,
            group="bench",
            envelope="CloudEvents/1.0",
            type=mid,
            attributes=(
                core.AttrDef("type", "string", True, mid),
                core.AttrDef("datacontenttype", "string", False, content[fmt]),
            ),
            datacontenttype=content[fmt],
            schemaformat=fmt,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sp.SparkDecoder(
                (defn,),
                {mid: StructType.fromJson(types[fmt])},
                "kafka",
                payloads=mode,
                avro_schemas={mid: json.dumps(BENCH_AVRO)},
                proto_descriptors={
                    mid: (
                        "com.example.Bench",
                        compile_proto(BENCH_PROTO).descriptor_set,
                    )
                },
            )

    cases: list[tuple[str, Callable[[], None]]] = []
    absent = []
    python_step: dict[str, float] = {}
    for fmt in ("json", "avro", "protobuf"):
        df = spark.read.parquet(paths[fmt])
        modes = ["json"] if fmt == "json" else ["arrow", "native"]
        for mode in modes:
            if mode == "native" and not payloads.connector_present(spark, fmt):
                absent.append(f"{fmt} ({payloads.CONNECTORS[fmt][0]})")
                continue
            dec = decoder(fmt, "auto" if mode == "json" else mode)
            outputs, dead = dec.decode(df)
            assert (
                dead.count() == 0
                and outputs[f"com.example.{fmt}"].count() == df.count()
            )
            frame = outputs[f"com.example.{fmt}"]
            cases.append((f"{fmt} {mode}", lambda frame=frame: noop(frame)))
            if mode == "arrow":
                python_step[fmt] = arrow_step_us(dec, df, payloads)
    wall, _cpu, _tasks = timed_rounds(spark, cases, repeat)
    n = spark.read.parquet(paths["json"]).count()
    print(f"{'payload format case':34} {'rows':>10} {'seconds':>8} {'rows/s':>12}")
    for name, _fn in cases:
        print(f"{name:34} {n:>10,} {wall[name]:>8.2f} {n / wall[name]:>12,.0f}")
    print()
    for name, _fn in cases[1:]:
        ratio = wall[name] / wall["json json"]
        target = "target <= 1.5x" if name.endswith("arrow") else "no target"
        print(
            f"{name + ' / json (time per row)':34} {ratio:6.2f}x   ({target}"
            + (f": {verdict(ratio, 1.5, False)})" if name.endswith("arrow") else ")")
        )
    for fmt, us in python_step.items():
        print(
            f"{fmt + ' arrow step in Python':34} {us:6.2f} us per row"
            f"   (decode_array over {ARROW_STEP_ROWS:,} rows, CPU time, best of 7)"
        )
    if absent:
        print(f"native path not measured: connector absent for {', '.join(absent)}")


ARROW_STEP_ROWS = 10_000


def arrow_step_us(dec: Any, df: Any, payloads: Any) -> float:
    """CPU microseconds per row of the Arrow step's Python work (``decode_array``: the
    payloads decoded and built into the result array) on the first rows of ``df``, in this
    process: the part of the Arrow path that a faster codec changes."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_type

    plan = importlib.import_module("xrgen_runtime.spark.plan")
    binary = importlib.import_module("xrgen_runtime.spark.binary")
    (group,) = plan.arrow_groups(dec.plan)
    indexes, spec = frozenset(t.index for t in group.members), group.spec
    arrow_type = to_arrow_type(binary.result_type(spec), timezone="UTC")
    values = [r["value"] for r in df.select("value").limit(ARROW_STEP_ROWS).collect()]
    matched = pa.array([min(indexes)] * len(values), type=pa.int32())
    data = pa.array(values, type=pa.binary())
    best = float("inf")
    # the driver's heap (PySpark, the bench's data) out of the garbage collector's scans,
    # as in a Python worker, which holds little besides the batch
    gc.collect()
    gc.freeze()
    try:
        for _ in range(7):
            start = time.process_time()
            payloads.decode_array(matched, data, indexes, spec, arrow_type)
            best = min(best, time.process_time() - start)
    finally:
        gc.unfreeze()
    return best / len(values) * 1e6
