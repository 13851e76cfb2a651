"""The compiled runtime (mypyc, as installed here) against the same source as plain Python:
``bench_dispatch.py``'s table 6 (xrgen dispatch against the hand-written consumer, every
binding) run in fresh processes, the two builds alternating, ``--rounds`` times each.

    python bench/ab_compiled.py [--rounds N] [--seconds S]

The plain build is a copy of runtime/xrgen_runtime without its extension modules, first on
``PYTHONPATH``. Prints, per binding, the medians over the rounds of the hand-written and xrgen
microseconds per message and of their ratio, for each build, and the compiled build's xrgen
time over the plain one's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNTIME = HERE.parent / "runtime" / "xrgen_runtime"
BINDINGS = ("kafka", "mqtt", "amqp", "nats", "http")


def table6(env: dict[str, str], seconds: float) -> dict[str, tuple[float, float]]:
    """binding -> (hand-written us, xrgen us) of one run of table 6."""
    out = subprocess.run(
        [sys.executable, str(HERE / "bench_dispatch.py"), "--only-hand-written",
         "--seconds", str(seconds)],
        env=env, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    rows: dict[str, tuple[float, float]] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in BINDINGS:
            rows[parts[0]] = (float(parts[1]), float(parts[2]))
    if set(rows) != set(BINDINGS):
        raise SystemExit(f"unexpected output of bench_dispatch.py:\n{out}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    sys.path.insert(0, str(RUNTIME.parent))
    import xrgen_runtime

    if not xrgen_runtime.compiled():
        raise SystemExit("the installed runtime is not compiled: nothing to compare")
    plain_root = Path(tempfile.mkdtemp(prefix="xrgen-plain-"))
    shutil.copytree(
        RUNTIME, plain_root / "xrgen_runtime",
        ignore=shutil.ignore_patterns("*.so", "__pycache__"),
    )  # fmt: skip
    envs = {
        "compiled": {**os.environ},
        "plain": {**os.environ, "PYTHONPATH": f"{plain_root}{os.pathsep}"
                  f"{os.environ.get('PYTHONPATH', '')}"},
    }  # fmt: skip
    runs: dict[str, list[dict[str, tuple[float, float]]]] = {k: [] for k in envs}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for build in ("plain", "compiled") if r % 2 == 0 else ("compiled", "plain"):
            runs[build].append(table6(envs[build], args.seconds))
    shutil.rmtree(plain_root)
    print(f"python {sys.version.split()[0]}; table 6 of bench_dispatch.py, {args.rounds} "
          f"rounds per build, fresh processes, alternating; load {load:.1f} -> "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"{'binding':8} {'build':9} {'hand us':>8} {'xrgen us':>9} {'ratio':>6}")
    for b in BINDINGS:
        xrgen = {}
        for build in envs:
            hand = statistics.median(run[b][0] for run in runs[build])
            xrgen[build] = statistics.median(run[b][1] for run in runs[build])
            ratio = statistics.median(run[b][1] / run[b][0] for run in runs[build])
            print(f"{b:8} {build:9} {hand:8.2f} {xrgen[build]:9.2f} {ratio:6.2f}")
        print(f"{b:8} compiled/plain xrgen us: {xrgen['compiled'] / xrgen['plain']:.2f}")


if __name__ == "__main__":
    main()
