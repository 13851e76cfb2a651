"""What the Spark benchmarks share: the session, the bench payload's schema and the timing
of cases (wall time, the driver JVM's CPU time, the executor task CPU time) in rotated rounds.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

FIELDS = {
    "id": {"type": "string"},
    "count": {"type": "integer"},
    "price": {"type": "number"},
    "active": {"type": "boolean"},
    "name": {"type": "string"},
    "created": {"type": "string", "format": "date-time"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ratio": {"type": "number"},
}
PAYLOAD_SCHEMA = {"type": "object", "properties": FIELDS, "required": ["id", "count"]}


def session() -> Any:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("xrgen-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "4g")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def runtime() -> ModuleType:
    return importlib.import_module("xrgen_runtime")


def _jvm_cpu_seconds(spark: Any) -> Callable[[], float]:
    """A clock of the driver JVM's CPU time (user + system, from /proc; Linux only)."""
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    tick = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    return read


def _task_cpu_seconds(spark: Any) -> Callable[[], float]:
    """A clock of the executor CPU time of the tasks of every finished stage (Spark's stage
    metrics, ``executorCpuTime``): the work of the plan itself, without the driver's planning,
    the JIT compiler and the garbage collector, so the figure least disturbed by load.
    """
    sc = spark.sparkContext
    store = sc._jsc.sc().statusStore()
    no_quantiles = sc._gateway.new_array(sc._gateway.jvm.double, 0)
    seen: dict[tuple[int, int], float] = {}

    bus = sc._jsc.sc().listenerBus()

    def read() -> float:
        # the status store learns of finished stages from the listener bus
        bus.waitUntilEmpty()
        stages = store.stageList(None, False, False, no_quantiles, None).iterator()
        while stages.hasNext():
            s = stages.next()
            key = (s.stageId(), s.attemptId())
            if key not in seen and s.status().toString() in ("COMPLETE", "FAILED"):
                seen[key] = s.executorCpuTime() / 1e9
        return sum(seen.values())

    return read


def timed_rounds(
    spark: Any,
    cases: list[tuple[str, Callable[[], None]]],
    repeat: int,
    once: tuple[str, ...] = (),
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """(median wall seconds, median JVM CPU seconds, median task CPU seconds) per case: one
    warm-up each, then ``repeat`` rounds with the case order rotated every round (each case
    inherits the garbage of the one before it), so that load from other processes hits every
    case alike. Cases named in ``once`` run in the first round only."""
    import statistics

    jvm_cpu = _jvm_cpu_seconds(spark)
    task_cpu = _task_cpu_seconds(spark)
    wall: dict[str, list[float]] = {name: [] for name, _ in cases}
    cpu: dict[str, list[float]] = {name: [] for name, _ in cases}
    tasks: dict[str, list[float]] = {name: [] for name, _ in cases}
    for name, fn in cases:
        if name not in once:
            fn()  # warm-up (JIT, file listing)
    for rep in range(repeat):
        k = rep % len(cases)
        for name, fn in cases[k:] + cases[:k]:
            if name in once and wall[name]:
                continue
            tasks_start = task_cpu()
            cpu_start = jvm_cpu()
            start = time.perf_counter()
            fn()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(jvm_cpu() - cpu_start)
            tasks[name].append(task_cpu() - tasks_start)
    return (
        {n: statistics.median(v) for n, v in wall.items()},
        {n: statistics.median(v) for n, v in cpu.items()},
        {n: statistics.median(v) for n, v in tasks.items()},
    )


def noop(df: Any) -> None:
    """Evaluate every row and column of ``df`` and write nothing (Spark's ``noop`` sink)."""
    df.write.format("noop").mode("overwrite").save()


def verdict(value: float, target: float, higher: bool) -> str:
    met = value >= target if higher else value <= target
    return "met" if met else "NOT met"
