"""Driver program of ``test_cluster.py``: a generated package's Spark decoder on a standalone
cluster (separate master, worker and executor JVMs), in batch and in Structured Streaming.

    python cluster_job.py MASTER_URL PACKAGE_PARENT PACKAGE INBOX WORKDIR

Reads the Kafka-source rows in INBOX (parquet), decodes them with ``PACKAGE.spark`` in one
batch and in one ``foreachBatch`` stream (file source, ``availableNow``), and writes
``WORKDIR/result.json``: message id (``"None"``: dead letters) -> sorted ``offset`` values
for each way, plus the executors the application had. The decoder is made of column
expressions, so the executors never import the package; acme's Avro-binary message is decoded
over Arrow batches (no spark-avro here), which runs xrgen-runtime in the executors' Python
workers.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any


def summary(frames: dict[str, Any]) -> dict[str, list[int]]:
    """Output name -> sorted ``offset`` values of its rows (also the test's expectation)."""
    return {
        key: sorted(r["offset"] for r in frame.select("offset").collect())
        for key, frame in frames.items()
    }


def main() -> None:
    master, parent, package, inbox, workdir = sys.argv[1:6]
    sys.path.insert(0, parent)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(master)
        .appName("xrgen-cluster-test")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.executor.memory", "1g")
        .config("spark.cores.max", "2")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sp = importlib.import_module(package + ".spark")
    landing = sp.LANDING_SCHEMAS["kafka"]

    outputs, dead = sp.decode_kafka(spark.read.schema(landing).parquet(inbox))
    batch = summary({**outputs, "None": dead})

    streamed: dict[str, list[int]] = {}

    def write(message_id: str | None, frame: Any, _batch_id: int) -> None:
        rows = frame.select("offset").collect()
        streamed.setdefault(str(message_id), []).extend(r["offset"] for r in rows)

    query = (
        spark.readStream.schema(landing)
        .parquet(inbox)
        .writeStream.foreachBatch(sp.decoder("kafka").foreach_batch(write))
        .option("checkpointLocation", os.path.join(workdir, "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    if query.exception() is not None:
        raise RuntimeError(f"stream failed: {query.exception()}")
    # the driver's own block manager is in this map too
    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
    result = {
        "batch": batch,
        "stream": {k: sorted(v) for k, v in streamed.items()},
        "executors": status.size() - 1,
        "master": spark.sparkContext.master,
    }
    with open(os.path.join(workdir, "result.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh)
    spark.stop()


if __name__ == "__main__":
    main()
