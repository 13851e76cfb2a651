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

These variants exist only here (subclasses of ``SparkDecoder``); each still routes every row
of the input to its output, which this script checks. The ratios say how close the decoder
would come to the hand-written decode without those obligations.

Run: ``PYSPARK_PYTHON=.venv/bin/python .venv/bin/python bench/spark_ablation.py``
(after ``bench_spark.py`` has written its data, or with ``--dir``)
"""

from __future__ import annotations

import argparse
import copy
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def variant(sp: Any, defs: Any, schemas: Any, drop: tuple[str, ...], mode: str) -> Any:
    """A decoder of ``defs`` without the obligations named in ``drop``."""
    S = importlib.import_module("xrgen_runtime._spark_sql")
    errors = importlib.import_module("xrgen_runtime._spark_errors")

    class Ablated(sp.SparkDecoder):  # type: ignore[misc]
        def _typed_columns(self) -> Any:
            cols = super()._typed_columns()
            if "time" in drop:
                cols["_xr_t_time_timestamp"] = self._attr("time").try_cast("timestamp")
            return cols

        def _error(self) -> Any:
            return S.col("_xr_e0") if "payload" in drop else super()._error()

        def _error_before_parse(self) -> Any:
            if "pre" in drop:
                reason = errors._err(errors.NO_MATCH, "no match")
                return S.when(S.col("_xr_m").isNull(), reason)
            return super()._error_before_parse()

    decoder = Ablated(defs, schemas, "kafka")
    if "mode" in drop:
        wire = copy.copy(decoder.wire)
        fixed = "TRUE" if mode == "structured" else "FALSE"
        wire.structured = lambda: S.Expr(fixed)
        decoder.wire = wire
    return decoder


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
    sp = importlib.import_module("xrgen_runtime._spark")
    frames = B.mode_frames(spark, args.dir, args.rows)
    defs, schemas = B.definitions(rt, 1)
    schema = schemas["com.example.Type0"]

    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    for mode, (frame, native) in frames.items():
        cases: list[tuple[str, Callable[[], None]]] = [
            ("hand-written decode", lambda f=frame, n=native: noop(n(f, schema)))
        ]
        for name, drop in VARIANTS.items():
            dec = variant(sp, defs, schemas, drop, mode)
            outputs, dead = dec.decode(frame)
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
