"""Where the executor CPU of a Spark decode goes, by part of its plan (JFR samples).

``bench_spark.py`` says how the generic decoder compares with the hand-written decodes of the
same rows; this script says where the difference is. It records each case (the typed output
of 1 type, as in ``bench_spark.py``, and the hand-written decode) with Java Flight Recorder
(``jcmd <pid> JFR.start``, the ``profile`` settings: a stack sample of every running
executor thread every 10 ms), then gives every sample of an executor task thread to one part
of the plan, by the frames on its stack, in this order:

- ``from_json``: a JSON parse (``JsonToStructsEvaluator``);
- ``scan``: reading the Parquet input into rows (``columnartorow``, Parquet readers);
- ``projection``: a projection outside whole-stage code generation (Spark runs one that holds
  ``from_json`` row by row: its other expressions, and the copy of every column it carries);
- ``stage N``: the code-generated stage with codegen id N (its expressions and the rows it
  writes);
- ``other``: the rest of the task (the no-op write, iterators).

Each part is printed as its share of the case's samples and as executor task CPU seconds
(share x the task CPU of the recorded rounds, Spark's stage metrics), so the parts of the two
cases compare in seconds. Which stage holds what: ``--explain`` prints both physical plans
(codegen ids in brackets).

Needs the JDK's ``jcmd`` and ``jfr`` (the JVM that runs Spark). Each mode runs in one Spark
session; every case of a mode is run ``WARM_UP`` times before the first recording, then the
cases alternate, one recording per case and round.

Run: ``PYSPARK_PYTHON=.venv/bin/python .venv/bin/python bench/spark_profile.py``
(after ``bench_spark.py`` has written its data, or with ``--dir``)
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

#: JFR keeps 64 frames by default; Spark's task stacks are deeper
STACK_DEPTH = 512
#: runs of each case before the recordings (the first rounds of a session run slower)
WARM_UP = 2
_STAGE = re.compile(r"GeneratedIteratorForCodegenStage(\d+)")


def part_of(frames: Sequence[str]) -> str:
    """The plan part a stack sample belongs to (``frames``: ``class.method``, top first)."""
    if any("JsonToStructsEvaluator" in f for f in frames):
        return "from_json"
    if any("columnartorow" in f or "Parquet" in f for f in frames):
        return "scan"
    for f in frames:  # the innermost of a projection or a code-generated stage
        if "SpecificUnsafeProjection" in f:
            return "projection"
        stage = _STAGE.search(f)
        if stage:
            return f"stage {stage.group(1)}"
    return "other"


def task_stacks(recording: str) -> list[list[str]]:
    """The stacks (``class.method``, top first) of the executor task threads' samples."""
    printed = subprocess.run(
        ["jfr", "print", "--json", "--stack-depth", str(STACK_DEPTH)]
        + ["--events", "jdk.ExecutionSample", recording],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    stacks = []
    for event in json.loads(printed)["recording"]["events"]:
        values = event["values"]
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        if "Executor task" not in thread or not values.get("stackTrace"):
            continue
        stacks.append(
            [
                f"{f['method']['type']['name'].rsplit('/', 1)[-1]}.{f['method']['name']}"
                for f in values["stackTrace"]["frames"]
            ]
        )
    return stacks


def shares(stacks: Iterable[Sequence[str]]) -> dict[str, float]:
    """Part -> share of the samples."""
    counts = collections.Counter(part_of(s) for s in stacks)
    total = sum(counts.values()) or 1
    return {part: n / total for part, n in counts.items()}


def record(
    spark: Any, task_cpu: Callable[[], float], fn: Callable[[], None], path: str
) -> float:
    """Run ``fn`` once under a JFR recording written to ``path``; its task CPU seconds
    (``task_cpu``: a clock of ``spark_common``)."""
    pid = str(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    start = ["jcmd", pid, "JFR.start", "name=xrgen", "settings=profile"]
    subprocess.run([*start, f"filename={path}"], check=True, capture_output=True)
    before = task_cpu()
    fn()
    spent = task_cpu() - before
    subprocess.run(
        ["jcmd", pid, "JFR.stop", "name=xrgen"], check=True, capture_output=True
    )
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--mode", choices=("binary", "structured", "both"), default="both"
    )
    parser.add_argument("--explain", action="store_true")
    parser.add_argument(
        "--dir", default=os.path.join(tempfile.gettempdir(), "xrgen-bench-spark")
    )
    # make bench passes every script the same arguments
    args, _others = parser.parse_known_args()
    depth = f"-XX:FlightRecorderOptions:stackdepth={STACK_DEPTH}"
    os.environ["PYSPARK_SUBMIT_ARGS"] = f"--driver-java-options {depth} pyspark-shell"
    import bench_spark as B
    import spark_common as C

    spark = B.session()
    frames = B.mode_frames(spark, args.dir, args.rows)
    task_cpu = C._task_cpu_seconds(spark)
    sp = importlib.import_module("xrgen_runtime.spark")
    defs, schemas = B.definitions(B.runtime(), 1)
    schema = schemas["com.example.Type0"]
    modes = ("binary", "structured") if args.mode == "both" else (args.mode,)
    work = tempfile.mkdtemp(prefix="xrgen-profile-")
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    for mode in modes:
        frame, native = frames[mode]
        typed = sp.SparkDecoder(defs, schemas, "kafka").decode(frame)[0]
        cases = {
            "hand-written": native(frame, schema),
            "decoder": typed["com.example.Type0"],
        }
        for name, df in cases.items():
            if args.explain:
                print(f"-- {mode}, {name}")
                df.explain()
            for _ in range(WARM_UP):  # JIT, file listing
                C.noop(df)
        cpu = {name: 0.0 for name in cases}
        stacks: dict[str, list[list[str]]] = {name: [] for name in cases}
        # one recording per case and round, the cases alternating
        for k in range(args.rounds):
            for name, df in cases.items():
                jfr = os.path.join(work, f"{mode}-{name}-{k}.jfr")
                cpu[name] += record(spark, task_cpu, lambda df=df: C.noop(df), jfr)
                stacks[name] += task_stacks(jfr)
        found = {n: (cpu[n] / args.rounds, shares(stacks[n])) for n in cases}
        title = "task cpu s per round (share of the samples)"
        print(f"{mode} mode: {title}, {args.rounds} rounds")
        parts = sorted({p for _, s in found.values() for p in s})
        print(f"  {'part':12}" + "".join(f"{n:>24}" for n in found))
        for part in parts:
            cells = "".join(
                f"{cpu * s.get(part, 0.0):>15.2f} ({100 * s.get(part, 0.0):4.1f}%)"
                for cpu, s in found.values()
            )
            print(f"  {part:12}{cells}")
        print(f"  {'total':12}" + "".join(f"{cpu:>24.2f}" for cpu, _ in found.values()))
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
