"""The generated Spark decoder on a real standalone cluster: a Spark master, a worker and its
executor, each its own JVM on 127.0.0.1, driven by ``cluster_job.py`` in a subprocess (one
SparkContext per process; the test run's local session stays as it is).

Batch and Structured Streaming (``foreachBatch``) on the cluster must put every row in the
same output as the local session does.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acme_samples import SAMPLES
from cluster_job import summary
from netutil import free_port
from test_spark_acme import _kafka_row

pytestmark = pytest.mark.spark
JOB = Path(__file__).with_name("cluster_job.py")
START_SECONDS = 120


def _wait_for(path: Path, text: str, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        if path.exists() and text in path.read_text(errors="replace"):
            return
        time.sleep(0.5)
    log = path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"
    pytest.fail(f"{what} did not start within {START_SECONDS}s:\n{log}")


@pytest.fixture(scope="module")
def cluster(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``spark://127.0.0.1:<port>`` of a standalone master with one 2-core worker."""
    import pyspark

    home = Path(pyspark.__file__).parent
    logs = tmp_path_factory.mktemp("cluster")
    env = dict(
        os.environ,
        SPARK_HOME=str(home),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false",
        PYSPARK_PYTHON=sys.executable,
    )
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    spark_class = str(home / "bin" / "spark-class")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        master_log = logs / "master.log"
        with master_log.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [spark_class, "org.apache.spark.deploy.master.Master"]
                    + ["--host", "127.0.0.1", "--port", str(port), "--webui-port", "0"],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        _wait_for(master_log, "I have been elected leader", procs[0], "Spark master")
        worker_log = logs / "worker.log"
        with worker_log.open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [spark_class, "org.apache.spark.deploy.worker.Worker", url]
                    + ["--host", "127.0.0.1", "--cores", "2", "--memory", "2g"]
                    + ["--webui-port", "0", "--work-dir", str(logs / "work")],
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        _wait_for(worker_log, "Successfully registered with master", procs[1], "worker")
        yield url
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _rows(acme: ModuleType) -> list[dict[str, Any]]:
    """Both content modes of every Kafka-carried acme message, and rows for the dead letters."""
    kafka = importlib.import_module("acme.bindings.kafka")
    rows: list[dict[str, Any]] = []
    for message_id, (data, kwargs) in sorted(SAMPLES.items()):
        info = acme.MESSAGES[message_id]
        if info.definition.protocol not in (None, "KAFKA"):
            continue
        route = {} if info.definition.protocol else {"topic": "acme.notes"}
        for mode in ("binary", "structured"):
            event = info.create(data, **kwargs, id=f"e{len(rows)}")
            rows.append(_kafka_row(kafka.encode(event, mode=mode, **route), len(rows)))
    bad = [
        [("content-type", b"application/cloudevents+json")],  # value below is not JSON
        [("ce_specversion", b"1.0"), ("ce_id", b"x"), ("ce_source", b"/s")],  # no type
        [("ce_specversion", b"1.0"), ("ce_id", b"x"), ("ce_source", b"/s"), ("ce_type", b"nope")],
    ]
    for headers in bad:
        msg = kafka.KafkaMessage("t", None, b"{oops", tuple(headers), 0)
        rows.append(_kafka_row(msg, len(rows)))
    return rows


@pytest.mark.slow
def test_decoder_on_a_standalone_cluster(
    spark: Any, acme: ModuleType, cluster: str, tmp_path: Path
) -> None:
    sp = importlib.import_module("acme.spark")
    rows = _rows(acme)
    inbox = tmp_path / "inbox"
    spark.createDataFrame(rows, sp.LANDING_SCHEMAS["kafka"]).repartition(4).write.parquet(
        str(inbox)
    )
    outputs, dead = sp.decode_kafka(spark.read.parquet(str(inbox)))
    expected = summary({**outputs, "None": dead})
    assert len(expected["None"]) == 3 and sum(map(len, expected.values())) == len(rows)

    package_parent = str(Path(acme.__file__).parent.parent)
    job = subprocess.run(
        [sys.executable, str(JOB), cluster, package_parent, "acme", str(inbox), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    assert job.returncode == 0, job.stderr[-4000:]
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["master"] == cluster and result["executors"] >= 1
    assert result["batch"] == expected
    # the stream's foreach_batch writes the outputs that have rows (and the dead letters)
    assert result["stream"] == {k: v for k, v in expected.items() if v}
    assert len(result["stream"]) < len(expected)  # some acme outputs have no Kafka rows
