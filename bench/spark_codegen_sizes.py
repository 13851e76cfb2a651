"""The largest generated method of every Spark decoder plan, per catalog and binding.

HotSpot does not JIT-compile a method over 8,000 bytes of bytecode (``-XX:HugeMethodLimit``,
with ``DontCompileHugeMethods`` on by default): a whole-stage-codegen stage whose
``processNext`` grows past it runs interpreted. Spark only falls back on its own above
``spark.sql.codegen.hugeMethodLimit`` (65,535 by default). This script generates each catalog
given (``python -m xrgen generate``), builds each binding's decoder of the generated
``spark.py`` on an empty DataFrame of the landing schema, and prints the largest method
(bytes of bytecode, from Spark's ``codegenStringSeq``) over the plans of up to three typed
outputs and the dead letters; ``OVER`` marks decoders past 8,000.

Run: ``PYSPARK_PYTHON=.venv/bin/python .venv/bin/python bench/spark_codegen_sizes.py
catalogs/acme/catalog.json ../shared/catalogs/xrcg-samples/message-definitions/inkjet.xreg.json``
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

#: HotSpot's HugeMethodLimit
JIT_LIMIT = 8000
BINDINGS = ("kafka", "amqp", "mqtt", "nats", "http", "json")


def generate(catalog: str, out: Path) -> str:
    """Generate ``catalog`` into ``out``; the package name."""
    path = Path(catalog)
    stem = path.name.split(".")[0]
    if stem in ("catalog", "index"):
        stem = path.parent.name
    name = "cat_" + re.sub(r"\W", "_", stem).lower()
    done = subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", catalog, "--out", str(out)]
        + ["--package", name, "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:  # the generator's diagnostics; its warnings are not shown
        sys.exit(f"{catalog}: generate failed\n{done.stderr}")
    return name


def largest_methods(spark: Any, frame: Any) -> list[int]:
    """The largest method of each whole-stage-codegen stage of ``frame``'s plan."""
    debug = spark._jvm.org.apache.spark.sql.execution.debug.package
    plan = frame._jdf.queryExecution().executedPlan()
    stages = debug.codegenStringSeq(plan).iterator()
    sizes = []
    while stages.hasNext():
        sizes.append(int(stages.next()._3().maxMethodCodeSize()))
    return sizes


def main() -> None:
    from bench_spark import session

    catalogs = sys.argv[1:]
    if not catalogs:
        sys.exit(__doc__)
    spark = session()
    out = Path(tempfile.mkdtemp(prefix="xrgen-codegen"))
    sys.path.insert(0, str(out))
    print(
        f"{'package':28} {'binding':8} {'defs':>4} {'largest per output / dead (bytes)':40} largest"
    )
    over = total = 0
    for catalog in catalogs:
        package = importlib.import_module(generate(catalog, out) + ".spark")
        for binding in BINDINGS:
            decoder = package.decoder(binding)
            if not decoder.plan.targets:
                continue
            # ``decode_json`` reads a DataFrame of JSON lines (``spark.read.text``)
            landing = package.LANDING_SCHEMAS.get(binding, "value string")
            outputs, dead = decoder.decode(spark.createDataFrame([], landing))
            frames = [*list(outputs.values())[:3], dead]
            sizes = [largest_methods(spark, f) for f in frames]
            largest = max(max(s) for s in sizes)
            total += 1
            over += largest > JIT_LIMIT
            mark = "OVER" if largest > JIT_LIMIT else ""
            # stage counts differ between plans: the largest of each typed output, then
            # of the dead letters
            stages = " / ".join(str(max(frame)) for frame in sizes)
            print(
                f"{package.__name__.split('.')[0]:28} {binding:8} {len(decoder.plan.targets):>4}"
                f" {stages:40} {largest:>7} {mark}"
            )
    print(
        f"\n{over} of {total} decoders have a generated method over {JIT_LIMIT} bytes"
    )
    spark.stop()


if __name__ == "__main__":
    main()
