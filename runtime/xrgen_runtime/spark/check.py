"""Check a generated package's native Avro / Protobuf path on a Spark cluster.

    PYSPARK_SUBMIT_ARGS="--packages org.apache.spark:spark-avro_2.13:<v>,org.apache.spark:spark-protobuf_2.13:<v> pyspark-shell" \
        python -m xrgen_runtime.spark.check PACKAGE [--events N]

(``<v>``: the cluster's Spark version; add ``--master <url>`` to the submit arguments for a
cluster). For every message of ``PACKAGE`` whose payload is Avro binary or Protobuf, it
makes ``N`` valid events with the package's own producer (``testing.example_event``),
encodes them as Kafka records in both content modes with the package's codec, decodes them
with the package's Spark decoder natively (``payloads="native"``: ``from_avro`` /
``from_protobuf``) and over Arrow (``payloads="arrow"``, the runtime's codecs), and compares
every output row and dead letter. Prints one line per message and exits 1 when a connector
is missing, a row differs, or a row is dead-lettered.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

__all__ = ["check", "main"]


def _rows(pkg: Any, ids: Sequence[str], events: int) -> list[tuple[Any, ...]]:
    """Kafka-source rows of ``events`` example events per message id, in both modes."""
    from ..bindings import kafka
    from ..testing import example_event

    stamp = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rows: list[tuple[Any, ...]] = []
    for mid in ids:
        for seed in range(events):
            event = example_event(pkg, mid, seed=seed)
            # a message without a Kafka topic of its own gets one
            topic = getattr(event.binding, "topic", None) or "xrgen-spark-check"
            for mode in ("binary", "structured"):
                msg = kafka.encode(event, mode=mode, topic=topic)
                offset = len(rows)
                headers = [(k, v) for k, v in msg.headers]
                rows.append(
                    (msg.key, msg.value, msg.topic, 0, offset, stamp, 0, headers)
                )
    return rows


def _collected(frame: Any) -> dict[int, Any]:
    return {r["offset"]: r.asDict(recursive=True) for r in frame.collect()}


def check(spark: Any, package: str, events: int = 3) -> list[str]:
    """The problems found (empty: the native path decodes as the Arrow path does)."""
    pkg = importlib.import_module(package)
    sp = importlib.import_module(package + ".spark")
    arrow = sp.decoder("kafka", payloads="arrow")
    # the messages a Kafka decoder receives (not those bound to another protocol)
    ids = sorted(
        m
        for m in {*sp.AVRO_SCHEMAS, *sp.PROTO_DESCRIPTORS} & set(sp.SCHEMAS)
        if m in arrow.plan.by_id and arrow.plan.by_id[m].index in arrow.plan.specs
    )
    if not ids:
        return [
            f"{package} has no Kafka message with an Avro-binary or Protobuf payload"
        ]
    df = spark.createDataFrame(_rows(pkg, ids, events), sp.LANDING_SCHEMAS["kafka"])
    try:
        native = sp.decoder("kafka", payloads="native")
    except RuntimeError as exc:  # the connector is not on the cluster
        return [str(exc)]
    (native_out, native_dead), (arrow_out, arrow_dead) = (
        native.decode(df),
        arrow.decode(df),
    )
    problems = []
    for mid in ids:
        got, want = _collected(native_out[mid]), _collected(arrow_out[mid])
        if got != want or len(want) != 2 * events:
            problems.append(
                f"{mid}: native rows {sorted(got)} differ from Arrow rows {sorted(want)}"
                if got != want
                else f"{mid}: {len(want)} of {2 * events} rows decoded"
            )
        else:
            print(f"{mid}: {len(got)} rows decoded alike natively and over Arrow")
    for name, dead in (("native", native_dead), ("Arrow", arrow_dead)):
        for r in dead.select("offset", "reason", "detail").collect():
            problems.append(f"{name}: row {r['offset']} dead-lettered: {r['detail']}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xrgen_runtime.spark.check",
        description="Compare a package's native Avro/Protobuf Spark decoding with the Arrow path.",
    )
    parser.add_argument("package", help="the generated package's import name")
    parser.add_argument("--events", type=int, default=3, help="events per message")
    args = parser.parse_args(argv)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("xrgen-spark-check").getOrCreate()
    problems = check(spark, args.package, args.events)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
