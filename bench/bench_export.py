"""`xrgen export asyncapi` speed (issue 46) on the 1,100-message synthetic catalog of
../shared/tools/synth_catalog.py, against `xrgen validate` of the same catalog.

    python bench/bench_export.py [--rounds N]

Each round runs, in fresh processes and in turn (so that the load of a shared machine weighs
on each alike):
- validate cold: `xrgen validate` with an empty run cache (what a hook pays after a change);
- validate warm: `xrgen validate` again, answered from the run cache (nothing changed);
- export yaml: `xrgen export asyncapi CATALOG -o api.yaml` (its first run on the catalog);
- export warm: the same again, answered from the run cache (nothing changed);
- export json: `xrgen export asyncapi CATALOG -o api.json` (its first run).
Prints the median of each and the median of the per-round ratios to validate cold --
targets: export yaml <= 1.0x validate cold and export warm <= 1.5x validate warm, so the export
is never the slow part of a hook that also validates. Then, in-process (best of the rounds):
analyze (load + validate + resolve + build), the document, and writing it as YAML and JSON.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_diff import synth  # noqa: E402 - the 1,100-message catalog, as bench_diff makes it


def wall(args: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "xrgen", *args], check=True, env=env, cwd=ROOT, capture_output=True
    )
    return time.perf_counter() - t


def in_process(catalog: Path, rounds: int) -> dict[str, float]:
    from xrgen import api
    from xrgen.export.asyncapi import dump, from_analysis

    best: dict[str, float] = {}

    def keep(name: str, seconds: float) -> None:
        best[name] = min(best.get(name, float("inf")), seconds)

    for _ in range(rounds):
        t0 = time.perf_counter()
        analysis = api.analyze([str(catalog)])
        t1 = time.perf_counter()
        doc = from_analysis(analysis)
        t2 = time.perf_counter()
        dump(doc, "yaml")
        t3 = time.perf_counter()
        dump(doc, "json")
        t4 = time.perf_counter()
        keep("analyze", t1 - t0)
        keep("document", t2 - t1)
        keep("yaml", t3 - t2)
        keep("json", t4 - t3)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        catalog = synth(folder / "synth.json")
        env = {**os.environ}
        names = ("validate cold", "validate warm", "export yaml", "export warm", "export json")
        times: dict[str, list[float]] = {n: [] for n in names}
        for r in range(rounds):
            env["XRGEN_CACHE_DIR"] = str(folder / f"cache{r}")
            times["validate cold"].append(wall(["validate", str(catalog)], env))
            times["validate warm"].append(wall(["validate", str(catalog)], env))
            times["export yaml"].append(
                wall(["export", "asyncapi", str(catalog), "-o", str(folder / "api.yaml")], env)
            )
            times["export warm"].append(
                wall(["export", "asyncapi", str(catalog), "-o", str(folder / "api.yaml")], env)
            )
            times["export json"].append(
                wall(["export", "asyncapi", str(catalog), "-o", str(folder / "api.json")], env)
            )
        size = (folder / "api.yaml").stat().st_size
        parts = in_process(catalog, rounds)
    cold = times["validate cold"]
    print(f"catalog: 1,100 messages; {rounds} rounds; AsyncAPI YAML {size / 1e6:.1f} MB")
    print(f"{'':16} {'median s':>9} {'/ validate cold':>16}")
    for name in names:
        ratio = statistics.median(x / y for x, y in zip(times[name], cold, strict=True))
        print(f"{name:16} {statistics.median(times[name]):9.3f} {ratio:15.2f}x")
    print("in-process, best: " + ", ".join(f"{k} {v:.3f} s" for k, v in parts.items()))
    print(f"load average (1 min, 2 cores): {load:.1f} -> {os.getloadavg()[0]:.1f}")
    warm = statistics.median(
        x / y for x, y in zip(times["export warm"], times["validate warm"], strict=True)
    )
    print(f"export warm / validate warm: {warm:.2f}x")
    print("targets: export yaml <= 1.0x validate cold; export warm <= 1.5x validate warm")


if __name__ == "__main__":
    main()
