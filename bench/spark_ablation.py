"""What the Spark decoder's obligations beyond the hand-written decodes cost, per content mode.

``bench_spark.py`` compares the generic decoder with hand-written decodes of the same rows
(``native_one_type``, ``native_structured``). The decoder also does what those do not: it
detects the content mode of each row, takes RFC 3339 times only (a lower-case ``t``/``z``
accepted, no other shape), gives every bad row its dead-letter reason (before the payload
parse: missing or empty attributes, spec version, unknown type, no match; after it: invalid
payload, missing fields) and rejects text after a JSON value. This script measures the typed
output of 1 type (executor task CPU, median of the rounds, case order rotated, as
``bench_spark.py``) with some of those obligations taken out, on the same rows:

- ``plain time``: ``time`` typed with a plain ``try_cast`` (no RFC 3339 shape check);
- ``no payload errors``: the final error is the one known before the payload parse;
- ``one pre-parse reason``: every row without a match gets one fixed reason;
- ``fixed content mode``: every row taken as the mode the input is in (Spark then folds every
  expression that depends on it);
- ``all four``.

These variants exist only here (the stage functions that carry an obligation replaced while
a decoder builds its stages); each still routes every row of the input to its output, which
this script checks. The ratios say how close the decoder would come to the hand-written
decode without those obligations.

Run: ``PYSPARK_PYTHON=.venv/bin/python .venv/bin/python bench/spark_ablation.py``
(after ``bench_spark.py`` has written its data, or with ``--dir``)
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

VARIANTS: dict[str, tuple[str, ...]] = {
    "decoder": (),
    "plain time": ("time",),
    "no payload errors": ("payload",),
    "one pre-parse reason": ("pre",),
    "fixed content mode": ("mode",),
    "all four": ("time", "payload", "pre", "mode"),
}


def variant(
    sp: Any, defs: Any, schemas: Any, drop: tuple[str, ...], mode: str, frame: Any
) -> tuple[Any, Any]:
    """``frame`` decoded by a decoder of ``defs`` without the obligations named in ``drop``:
    the stage functions that carry them replaced while the decoder builds its stages."""
    S = importlib.import_module(sp.__name__ + ".sql")
    N = importlib.import_module(sp.__name__ + ".names")
    columns = importlib.import_module(sp.__name__ + ".columns")
    envelope = importlib.import_module(sp.__name__ + ".envelope")
    errors = importlib.import_module(sp.__name__ + ".errors")
    typed_attributes = envelope.typed_attributes

    def plain_time(plan: Any) -> Any:
        cols = typed_attributes(plan)
        time = envelope.attribute("time").try_cast("timestamp")
        cols[N.typed("time", "timestamp")] = time
        return cols

    def no_payload_errors(plan: Any) -> Any:
        return S.col(N.ERROR_BEFORE_PARSE)

    def one_reason(plan: Any) -> Any:
        reason = columns.err(errors.NO_MATCH, "no match")
        return S.when(S.col(N.MATCH).isNull(), reason)

    decoder = sp.SparkDecoder(defs, schemas, "kafka")
    if "mode" in drop:
        wire = copy.copy(decoder.plan.wire)
        fixed = "TRUE" if mode == "structured" else "FALSE"
        wire.structured = lambda: S.Expr(fixed)
        decoder.plan = dataclasses.replace(decoder.plan, wire=wire)
    replaced = {
        "time": (envelope, "typed_attributes", plain_time),
        "payload": (errors, "final", no_payload_errors),
        "pre": (errors, "before_parse", one_reason),
    }
    with contextlib.ExitStack() as stack:
        for name in drop:
            if name in replaced:
                stack.enter_context(mock.patch.object(*replaced[name]))
        return decoder.decode(frame)  # the stages are built here, once


def main() -> None:
    import bench_spark as B
    from spark_common import noop

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--dir", default=os.path.join(tempfile.gettempdir(), "xrgen-bench-spark")
    )
    # make bench passes every script the same arguments
    args, _others = parser.parse_known_args()
    spark = B.session()
    rt = B.runtime()
    sp = importlib.import_module("xrgen_runtime.spark")
    frames = B.mode_frames(spark, args.dir, args.rows)
    defs, schemas = B.definitions(rt, 1)
    schema = schemas["com.example.Type0"]

    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    for mode, (frame, native) in frames.items():
        cases: list[tuple[str, Callable[[], None]]] = [
            ("hand-written decode", lambda f=frame, n=native: noop(n(f, schema)))
        ]
        for name, drop in VARIANTS.items():
            outputs, dead = variant(sp, defs, schemas, drop, mode, frame)
            assert outputs["com.example.Type0"].count() == args.rows, name
            assert dead.count() == 0, name
            typed = outputs["com.example.Type0"]
            cases.append((name, lambda t=typed: noop(t)))
        _wall, _cpu, tasks = B.timed_rounds(spark, cases, args.repeat)
        base = tasks["hand-written decode"]
        print(f"{mode} mode: task cpu s, median of {args.repeat}; hand-written / case")
        for name, _fn in cases:
            print(f"  {name:24} {tasks[name]:6.2f}   {base / tasks[name]:5.2f}x")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    spark.stop()


if __name__ == "__main__":
    main()
