"""Benchmark: the generic Spark decoder (runtime/xrgen_runtime/spark/) against baselines.

Script, not a test: prints a table and ratios measured in the same run on local[2], each
figure beside its target.

Data: ``--rows`` (default 500,000) Kafka-source rows in binary mode (``ce_`` headers,
``content-type: application/json``), 8-field JSON payloads (synthetic-catalog-like), written
once to parquet under ``--dir`` so that generation is not measured. Three data sets: every
row of type 0 ("one type"), rows spread over 20 types ("20 types"), and the one-type rows as
structured-mode events (``application/cloudevents+json``).

Measured (each forces full evaluation with ``df.write.format("noop")``; median of
``--repeat`` rounds with the case order rotated each round: wall time, the driver JVM's CPU
time, and the executor CPU time of the plan's tasks from Spark's stage metrics, which load
from other processes on the 2-core machine disturbs least; ``--only-modes`` runs just the
four one-type cases of the two content modes):

- ``native 1 type``: a hand-written decode with the decoder's obligations for these rows:
  the CloudEvents headers to columns (all eight core attributes, ``traceparent`` and
  ``tracestate``), ``specversion`` and
  ``type`` checked, ``id`` and ``source`` present, the payload parsed with the package's
  schema (a corrupt-record field, the required fields present), ``time`` as a timestamp
  (rows where it does not parse are bad), every row in exactly one of the typed output and
  its complement (the dead letters); each row parsed once (a ``spark_partition_id()`` column
  keeps Spark from pushing the checks below the parse and parsing twice);
- ``generic 1 type``: ``SparkDecoder.decode`` with that one definition, writing its typed
  output (one decoder for all rounds, as the generated ``decode_kafka`` keeps one);
- ``native 1 type, structured`` and ``generic 1 type, structured``: the same for the
  structured-mode rows (the hand-written one parses the envelope once with a typed ``data``);
- ``generic 1 type, foreachBatch``: the writer helper (routed rows kept in a local checkpoint,
  typed output + dead letters);
- ``generic 20 types, foreachBatch``: 20 definitions, all 21 outputs written from one pass;
- ``generic 1,100 defs, 20 present``: the same rows through a decoder of 1,100 definitions
  (the batch holds 20 of its types), foreachBatch;
- ``python UDF 1 type``: a Python UDF doing the same decode (``--udf-rows`` rows, default
  100,000, throughput extrapolated per row).

Catalog scale: the package that xrgen generates from ``../shared/tools/synth_catalog.py``
(1,100 definitions; the 1,000 a Kafka decoder receives, the MQTT-bound variants aside) when
that script is there, else 1,100 definitions built here: the time to build the decoder and
its routing (``route``) and then the plan (DataFrame) of every output. Printed beside it:
the same number of trivial ``where`` DataFrames on a one-row frame, Spark's own floor for
creating that many DataFrames on this machine.

Payload formats (``--format-rows``, default 200,000, in the same run; ``--only-formats`` runs
just this part): the same 8-field payload as JSON, Avro binary and Protobuf (1,000 distinct
records repeated), one definition per format, decoded by ``SparkDecoder`` to its typed output:
JSON with ``from_json``, Avro and Protobuf over Arrow (``payloads="arrow"``) and, where the
session has Spark's connectors, natively (``from_avro`` / ``from_protobuf``). Beside them, the
CPU time per row of the Arrow step's Python work (``decode_array`` on 10,000 of the rows, in
the driver's process).

Targets: generic >= 0.95x native per row in binary mode, >= 0.90x in structured mode;
generic >= 15x the UDF; 20 types in one pass <= 1.5x one type; the synthetic catalog's
decoder and the plans of all its outputs <= 10 s; Avro and Protobuf over Arrow <= 1.5x JSON
per row.
Run: ``make bench`` or ``PYSPARK_PYTHON=.venv/bin/python .venv/bin/python bench/bench_spark.py``.
The payload-format cases live in ``spark_formats.py``, the session and the timing of rounds in
``spark_common.py``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_common import (  # noqa: E402
    PAYLOAD_SCHEMA,
    ROOT,
    noop,
    runtime,
    session,
    timed_rounds,
    verdict,
)
from spark_formats import payload_formats  # noqa: E402

N_TYPES = 20
LARGE_CATALOG = 1_100


def make_data(spark: Any, rt: Any, rows: int, types: int, path: str) -> None:
    """Kafka-source rows in binary mode, written to parquet (generated with Spark, not Python)."""
    from pyspark.sql import functions as F

    i = F.col("id")
    t = (i % types) if types > 1 else F.lit(0)
    payload = F.to_json(
        F.struct(
            F.concat(F.lit("k-"), i.cast("string")).alias("id"),
            i.alias("count"),
            (i * 0.5).alias("price"),
            (i % 2 == 0).alias("active"),
            F.concat(F.lit("name "), (i % 1000).cast("string")).alias("name"),
            F.lit("2024-05-01T10:00:00Z").alias("created"),
            F.array(F.lit("a"), F.lit("b")).alias("tags"),
            (i / 7.0).alias("ratio"),
        )
    )

    def header(key: str, value: Any) -> Any:
        return F.struct(F.lit(key).alias("key"), value.cast("binary").alias("value"))

    ce_type = F.concat(F.lit("com.example.Type"), t.cast("string"))
    headers = F.array(
        header("ce_specversion", F.lit("1.0")),
        header("ce_id", i.cast("string")),
        header("ce_source", F.lit("/bench/source")),
        header("ce_type", ce_type),
        header("ce_time", F.lit("2024-05-01T10:00:00Z")),
        header("content-type", F.lit("application/json")),
        header("traceparent", F.lit("00-abc-def-01")),
    )
    df = spark.range(rows, numPartitions=2).select(
        i.cast("string").cast("binary").alias("key"),
        payload.cast("binary").alias("value"),
        F.lit("bench").alias("topic"),
        (i % 2).cast("int").alias("partition"),
        i.alias("offset"),
        F.lit("2024-05-01 10:00:00").cast("timestamp").alias("timestamp"),
        F.lit(0).alias("timestampType"),
        headers.alias("headers"),
    )
    df.write.mode("overwrite").parquet(path)


#: the attributes the hand-written pipelines read: (name, Kafka header in binary mode)
ATTRIBUTES = (
    ("specversion", "ce_specversion"),
    ("id", "ce_id"),
    ("source", "ce_source"),
    ("type", "ce_type"),
    ("time", "ce_time"),
    ("datacontenttype", "content-type"),
)


def header(name: str) -> Any:
    """The text of the Kafka header ``name`` (``NULL`` when absent)."""
    from pyspark.sql import functions as F

    pos = F.array_position(F.col("headers.key"), name).cast("int") - 1
    return F.get(F.col("headers.value"), pos).cast("string")


def mode_frames(spark: Any, directory: str, rows: int) -> dict[str, tuple[Any, Any]]:
    """Content mode -> (the one-type rows written by this script, the hand-written decode
    of them); for the scripts that measure on those rows. Exits when they are not there."""
    binary = os.path.join(directory, f"one-{rows}")
    structured = os.path.join(directory, f"structured-{rows}")
    if not os.path.exists(os.path.join(structured, "_SUCCESS")):
        sys.exit(f"no data in {directory}: run bench_spark.py --only-modes first")
    return {
        "binary": (spark.read.parquet(binary), native_one_type),
        "structured": (spark.read.parquet(structured), native_structured),
    }


def make_structured(spark: Any, binary_path: str, path: str) -> None:
    """The rows of ``binary_path`` as structured-mode records (envelope JSON as value)."""
    from pyspark.sql import functions as F

    envelope = F.to_json(
        F.struct(
            *(header(wire).alias(n) for n, wire in ATTRIBUTES),
            F.parse_json(F.col("value").cast("string")).alias("data"),
        )
    )
    ct = F.struct(
        F.lit("content-type").alias("key"),
        F.lit("application/cloudevents+json").cast("binary").alias("value"),
    )
    spark.read.parquet(binary_path).select(
        "key",
        envelope.cast("binary").alias("value"),
        "topic",
        "partition",
        "offset",
        "timestamp",
        "timestampType",
        F.array(ct).alias("headers"),
    ).write.mode("overwrite").parquet(path)


def definitions(rt: Any, types: int) -> tuple[tuple[Any, ...], dict[str, Any]]:
    from pyspark.sql.types import StructType

    from xrgen.formats.jsonschema import spark_type as json_schema_to_spark

    core = rt
    schema = StructType.fromJson(json_schema_to_spark(PAYLOAD_SCHEMA))
    defs = tuple(
        core.MessageDef(
            id=f"com.example.Type{n}",
            group="bench",
            envelope="CloudEvents/1.0",
            type=f"com.example.Type{n}",
            attributes=(core.AttrDef("type", "string", True, f"com.example.Type{n}"),),
            schemaformat="json",
        )
        for n in range(types)
    )
    return defs, {d.id: schema for d in defs}


#: the eight core attributes: (name, Kafka header in binary mode)
#: and the Distributed Tracing extension, which every output of the decoder keeps
CORE = (
    *ATTRIBUTES,
    ("dataschema", "ce_dataschema"),
    ("subject", "ce_subject"),
    ("traceparent", "ce_traceparent"),
    ("tracestate", "ce_tracestate"),
)
LINEAGE = ("topic", "partition", "offset", "timestamp")
#: what the hand-written decodes check in the payload (the schema's required fields)
REQUIRED = tuple(PAYLOAD_SCHEMA["required"])


def _checked(schema: Any) -> Any:
    """``schema`` with a corrupt-record field (how ``from_json`` reports text it cannot read)."""
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([*schema.fields, StructField("_corrupt", StringType())])


def _ok(attr: Callable[[str], Any], record: Any, data: Any) -> Any:
    """The hand-written decodes' obligations: a good row of type 0 (``record``: the parsed
    struct with the corrupt-record field; ``data``: the payload in it)."""
    from pyspark.sql import functions as F

    ok = (attr("specversion") == "1.0") & (attr("type") == "com.example.Type0")
    ok = ok & attr("id").isNotNull() & attr("source").isNotNull()
    ok = ok & record.isNotNull() & record["_corrupt"].isNull() & data.isNotNull()
    for name in REQUIRED:
        ok = ok & data[name].isNotNull()
    time = attr("time")
    ok = ok & (time.isNull() | time.try_cast("timestamp").isNotNull())
    # the ``spark_partition_id()`` column keeps this filter above the parse
    return F.coalesce(ok, F.lit(False)) & (F.col("_g") >= 0)


def _typed_output(attr: Callable[[str], Any], data: Any) -> list[Any]:
    """The typed output's columns (the generic decoder's: attributes, ``time`` typed, data,
    lineage)."""
    cols = [
        (attr(n).try_cast("timestamp") if n == "time" else attr(n)).alias(n)
        for n, _ in CORE
    ]
    return [*cols, data.alias("data"), *LINEAGE]


def native_one_type(df: Any, schema: Any) -> Any:
    """A hand-written decode of binary-mode rows with the generic decoder's obligations
    (see the module doc): the typed output; ``where(~ok)`` of the same frame is the rest.
    """
    from pyspark.sql import functions as F

    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": "_corrupt"}
    parsed = df.select(
        *(header(wire).alias(n) for n, wire in CORE),
        F.from_json(F.col("value").cast("string"), _checked(schema), options).alias(
            "d"
        ),
        *LINEAGE,
        F.spark_partition_id().alias("_g"),
    )
    d = F.col("d")
    return parsed.where(_ok(F.col, d, d)).select(
        *_typed_output(F.col, d.dropFields("_corrupt"))
    )


def native_structured(df: Any, schema: Any) -> Any:
    """The same for structured-mode rows: the envelope parsed once, ``data`` typed."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    envelope = StructType(
        [StructField(n, StringType()) for n, _ in CORE]
        + [StructField("data", schema), StructField("_corrupt", StringType())]
    )
    options = {"mode": "PERMISSIVE", "columnNameOfCorruptRecord": "_corrupt"}
    parsed = df.select(
        F.from_json(F.col("value").cast("string"), envelope, options).alias("e"),
        *LINEAGE,
        F.spark_partition_id().alias("_g"),
    )
    e = F.col("e")

    def attr(name: str) -> Any:
        return e[name]

    data = e["data"]
    return parsed.where(_ok(attr, e, data)).select(*_typed_output(attr, data))


def udf_one_type(df: Any, schema: Any) -> Any:
    from datetime import datetime

    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType, TimestampType

    out = StructType(
        [
            StructField("specversion", StringType()),
            StructField("id", StringType()),
            StructField("source", StringType()),
            StructField("type", StringType()),
            StructField("time", TimestampType()),
            StructField("datacontenttype", StringType()),
            StructField("data", schema),
        ]
    )

    def decode(value: bytes, headers: list[Any]) -> Any:
        h = {k: (v.decode() if v is not None else None) for k, v in headers}
        data = json.loads(value)
        created = data.get("created")
        if created:
            data["created"] = datetime.fromisoformat(created.replace("Z", "+00:00"))
        t = h.get("ce_time")
        return (
            h.get("ce_specversion"),
            h.get("ce_id"),
            h.get("ce_source"),
            h.get("ce_type"),
            datetime.fromisoformat(t.replace("Z", "+00:00")) if t else None,
            h.get("content-type"),
            data,
        )

    f = F.udf(decode, out)
    return (
        df.select(
            f("value", "headers").alias("e"),
            "topic",
            "partition",
            "offset",
            "timestamp",
        )
        .select("e.*", "topic", "partition", "offset", "timestamp")
        .where(F.col("type") == "com.example.Type0")
    )


SYNTH = ROOT.parent / "shared" / "tools" / "synth_catalog.py"


def synthetic_package(work: str, synth: Path = SYNTH) -> tuple[Any, str]:
    """(the ``spark`` module of the package generated from ``synth_catalog.py``, what it is);
    without that script, a module-like object with 1,100 definitions built here."""
    import subprocess
    from types import SimpleNamespace

    if not synth.is_file():
        defs, schemas = definitions(runtime(), LARGE_CATALOG)
        return (
            SimpleNamespace(
                decoder=lambda binding: importlib.import_module(
                    "xrgen_runtime.spark"
                ).SparkDecoder(defs, schemas, binding)
            ),
            f"{LARGE_CATALOG:,} definitions built here ({synth} is absent)",
        )
    name = "synth_bench"
    catalog = os.path.join(work, "synth.json")
    if not os.path.isfile(os.path.join(work, name, "spark.py")):
        subprocess.run(
            [sys.executable, str(synth), catalog], check=True, capture_output=True
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "xrgen",
                "generate",
                catalog,
                "--out",
                work,
                "--package",
                name,
                "--quiet",
            ],
            check=True,
            cwd=ROOT,
            capture_output=True,  # XRG301 name warnings
        )
    if work not in sys.path:
        sys.path.insert(0, work)
    return importlib.import_module(name + ".spark"), "the synth_catalog.py package"


def catalog_scale(
    spark: Any, work: str, synth: Path = SYNTH
) -> tuple[float, float, float, int, str]:
    """(seconds to build the synthetic catalog's Kafka decoder and its routing, then the
    plans of all its outputs, then as many trivial ``where`` DataFrames; outputs; what).
    """
    pkg, what = synthetic_package(work, synth)
    landing = importlib.import_module("xrgen_runtime.spark").LANDING_SCHEMAS["kafka"]
    df = spark.createDataFrame([], landing)
    start = time.perf_counter()
    decoder = pkg.decoder("kafka")
    routed = decoder.route(df)
    route_s = time.perf_counter() - start
    outputs, _dead = decoder.split(routed)
    start = time.perf_counter()
    for message_id in outputs:
        outputs[message_id]
    outputs_s = time.perf_counter() - start
    one = spark.range(1)
    start = time.perf_counter()
    for i in range(len(outputs)):
        one.where(f"id = {i}")
    floor_s = time.perf_counter() - start
    return route_s, outputs_s, floor_s, len(outputs), what


def breakdown(
    spark: Any,
    sp: Any,
    decoder: Any,
    frames: dict[str, Any],
    schema: Any,
    mixed: Any,
    decoder20: Any,
    repeat: int,
) -> None:
    """Where the decoder's time goes: the task CPU of each prefix of the routing stages
    (``route`` applied up to stage k, every column written) beside the hand-written decode,
    per content mode; and the cost of the 20-type pass's outputs beside Spark's floor for as
    many jobs (one-column ``where`` outputs of a cached frame of the same rows)."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    route = importlib.import_module(sp.__name__ + ".route")
    sql = importlib.import_module(sp.__name__ + ".sql")
    for mode, frame in frames.items():
        stages = route.stages(decoder.plan, tuple(frame.columns))

        def prefix(k: int, frame: Any = frame, stages: Any = stages) -> Any:
            for stage in stages[:k]:
                frame = frame if stage is None else sql.apply(frame, stage)
            return frame

        native = native_structured if mode == "structured" else native_one_type
        cases: list[tuple[str, Callable[[], None]]] = [
            ("hand-written decode", lambda f=frame, n=native: noop(n(f, schema))),
            ("input scan", lambda f=frame: noop(f)),
            *(
                (f"routing stages 1-{k}", lambda k=k: noop(prefix(k)))
                for k in range(1, len(stages) + 1)
            ),
            (
                "typed output",
                lambda f=frame: noop(decoder.decode(f)[0]["com.example.Type0"]),
            ),
        ]
        _wall, _cpu, tasks = timed_rounds(spark, cases, repeat)
        print(f"{mode} mode, task cpu s (median of {repeat})")
        for name, _fn in cases:
            print(f"  {name:32} {tasks[name]:6.2f}")
    ids = [f"com.example.Type{i}" for i in range(N_TYPES)]
    times: dict[str, list[float]] = {"outputs": [], "floor": []}
    for _ in range(repeat + 1):
        routed, release = decoder20._kept(decoder20.route(mixed))
        outputs, _dead = decoder20.split(routed)
        decoder20._present(routed)
        start = time.perf_counter()
        for mid in ids:
            noop(outputs[mid])
        times["outputs"].append(time.perf_counter() - start)
        release()
        key = (F.col("offset") % N_TYPES).alias("k")
        trivial = mixed.select("offset", key).sortWithinPartitions("k")
        trivial = trivial.persist(StorageLevel.MEMORY_AND_DISK)
        trivial.count()
        start = time.perf_counter()
        for k in range(N_TYPES):
            noop(trivial.where(F.col("k") == k))
        times["floor"].append(time.perf_counter() - start)
        trivial.unpersist()
    import statistics

    out, floor = (statistics.median(times[k][1:]) for k in ("outputs", "floor"))
    print(
        f"20 types: writing the {N_TYPES} outputs of the kept routed rows {out:.2f} s;"
        f" {N_TYPES} one-column outputs of a cached frame of the same rows {floor:.2f} s"
        f" (median of {repeat}, after one warm-up)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--udf-rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format-rows", type=int, default=200_000)
    parser.add_argument(
        "--only-formats", action="store_true", help="run only the payload-format cases"
    )
    parser.add_argument(
        "--only-modes",
        action="store_true",
        help="run only the native and generic one-type cases of both content modes",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also print the task CPU of each routing stage and the 20-type outputs' floor",
    )
    parser.add_argument(
        "--dir", default=os.path.join(tempfile.gettempdir(), "xrgen-bench-spark")
    )
    parser.add_argument(
        "--synth",
        type=Path,
        default=SYNTH,
        help="synth_catalog.py (default: ../shared/tools)",
    )
    args = parser.parse_args()

    spark = session()
    rt = runtime()
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    if args.only_formats:
        payload_formats(spark, rt, args.format_rows, args.repeat, args.dir)
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
        spark.stop()
        return
    sp = importlib.import_module("xrgen_runtime.spark")
    one_path = os.path.join(args.dir, f"one-{args.rows}")
    all_path = os.path.join(args.dir, f"all-{args.rows}")
    structured_path = os.path.join(args.dir, f"structured-{args.rows}")
    for path, types in ((one_path, 1), (all_path, N_TYPES)):
        if not os.path.exists(os.path.join(path, "_SUCCESS")):
            shutil.rmtree(path, ignore_errors=True)
            make_data(spark, rt, args.rows, types, path)
    if not os.path.exists(os.path.join(structured_path, "_SUCCESS")):
        shutil.rmtree(structured_path, ignore_errors=True)
        make_structured(spark, one_path, structured_path)
    one = spark.read.parquet(one_path)
    structured = spark.read.parquet(structured_path)
    mixed = spark.read.parquet(all_path)
    udf_input = one.limit(args.udf_rows)
    defs1, schemas1 = definitions(rt, 1)
    defs20, schemas20 = definitions(rt, N_TYPES)
    schema = schemas1["com.example.Type0"]

    def writer(_id: str | None, frame: Any, _batch: int) -> None:
        noop(frame)

    dec1 = sp.SparkDecoder(defs1, schemas1, "kafka")
    dec20 = sp.SparkDecoder(defs20, schemas20, "kafka")
    dec_large = sp.SparkDecoder(*definitions(rt, LARGE_CATALOG), "kafka")
    if not args.only_modes:
        scale = catalog_scale(spark, args.dir, args.synth)
    counts: dict[str, int] = {}

    def count_writer(mid: str | None, frame: Any, _batch: int) -> None:
        counts[str(mid)] = frame.count()

    if not args.only_modes:
        dec20.foreach_batch(count_writer)(mixed, 0)
        # no dead letters: foreach_batch writes no dead-letter frame
        assert sum(counts.values()) == args.rows and "None" not in counts, counts
    for frame, native in ((one, native_one_type), (structured, native_structured)):
        counts.clear()
        dec1.foreach_batch(count_writer)(frame, 0)
        assert counts == {"com.example.Type0": args.rows}, counts
        assert native(frame, schema).count() == args.rows

    cases: list[tuple[str, int, Callable[[], None]]] = [
        ("native 1 type", args.rows, lambda: noop(native_one_type(one, schema))),
        (
            "generic 1 type",
            args.rows,
            lambda: noop(dec1.decode(one)[0]["com.example.Type0"]),
        ),
        (
            "native 1 type, structured",
            args.rows,
            lambda: noop(native_structured(structured, schema)),
        ),
        (
            "generic 1 type, structured",
            args.rows,
            lambda: noop(dec1.decode(structured)[0]["com.example.Type0"]),
        ),
        (
            "generic 1 type, foreachBatch",
            args.rows,
            lambda: dec1.foreach_batch(writer)(one, 0),
        ),
        (
            "generic 20 types, foreachBatch",
            args.rows,
            lambda: dec20.foreach_batch(writer)(mixed, 0),
        ),
        (
            "generic 1,100 defs, 20 present",
            args.rows,
            lambda: dec_large.foreach_batch(writer)(mixed, 0),
        ),
        (
            "python UDF 1 type",
            args.udf_rows,
            lambda: noop(udf_one_type(udf_input, schema)),
        ),
    ]
    if args.only_modes:
        cases = [c for c in cases if c[0].endswith(("1 type", "1 type, structured"))]
        cases = [c for c in cases if not c[0].startswith("python")]
    # the UDF case runs once (it is ~40x slower)
    wall, cpu, tasks = timed_rounds(
        spark,
        [(name, fn) for name, _rows, fn in cases],
        args.repeat,
        once=("python UDF 1 type",),
    )
    results: dict[str, float] = {}
    print(
        f"{'case':34} {'rows':>10} {'seconds':>8} {'rows/s':>12} {'JVM cpu s':>10}"
        f" {'task cpu s':>10}"
    )
    for name, rows, _fn in cases:
        results[name] = rows / wall[name]
        print(
            f"{name:34} {rows:>10,} {wall[name]:>8.2f} {results[name]:>12,.0f}"
            f" {cpu[name]:>10.2f} {tasks[name]:>10.2f}"
        )
    print("(median of the rounds; JVM cpu: the driver JVM's CPU time; task cpu: the")
    print(
        " executor CPU time of the plan's tasks, Spark's stage metrics, the figure least"
    )
    print(" disturbed by other load on a shared 2-core machine)")
    print()
    for mode, native, generic, target in (
        ("binary", "native 1 type", "generic 1 type", 0.95),
        ("structured", "native 1 type, structured", "generic 1 type, structured", 0.90),
    ):
        ratio = results[generic] / results[native]
        by_tasks = tasks[native] / tasks[generic]
        print(
            f"{mode + ': generic / native':34} {ratio:6.2f}x   (target >= {target}x:"
            f" {verdict(ratio, target, True)}; task CPU {by_tasks:.2f}x:"
            f" {verdict(by_tasks, target, True)}; JVM CPU"
            f" {cpu[native] / cpu[generic]:.2f}x)"
        )
    if args.breakdown:
        print()
        frames = {"binary": one, "structured": structured}
        breakdown(spark, sp, dec1, frames, schema, mixed, dec20, args.repeat)
    if args.only_modes:
        spark.stop()
        return
    udf = results["generic 1 type"] / results["python UDF 1 type"]
    print(
        f"{'generic / python UDF (per row)':34} {udf:6.1f}x   (target >= 15x:"
        f" {verdict(udf, 15, True)})"
    )
    one_t = 1 / results["generic 1 type, foreachBatch"]
    all_t = 1 / results["generic 20 types, foreachBatch"]
    print(
        f"{'20 types / 1 type (time per row)':34} {all_t / one_t:6.2f}x   (target <= 1.5x:"
        f" {verdict(all_t / one_t, 1.5, False)})"
    )
    large_t = 1 / results["generic 1,100 defs, 20 present"]
    print(
        f"{'1,100 defs / 20 defs, 20 present':34} {large_t / all_t:6.2f}x   (no target)"
    )
    route_s, outputs_s, floor_s, n_outputs, what = scale
    total = route_s + outputs_s
    print(
        f"{'catalog scale: decoder + plans':34} {total:6.1f} s  (target <= 10 s:"
        f" {verdict(total, 10, False)}; {what}: routing {route_s:.1f} s, then the plans of"
        f" its {n_outputs:,} outputs {outputs_s:.1f} s; {n_outputs:,} trivial where()"
        f" DataFrames take {floor_s:.1f} s here)"
    )
    print()
    payload_formats(spark, rt, args.format_rows, args.repeat, args.dir)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
