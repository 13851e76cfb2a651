"""Generation speed at scale (issues 2 and 7), on catalogs from ../shared/tools/synth_catalog.py.

    python bench/bench_generate.py [--quick]

Prints, for 1,100 and 11,000 messages:
- pipeline: load + validate + resolve + build (in-process, best of 3) -- target < 0.5 s at 1,100
  and linear growth;
- inspect: `xrgen inspect --json` wall time (a fresh process, as users run it);
- generate cold: `xrgen generate` wall time with an empty format cache and output folder --
  target <= 1.5 s at 1,100 (the reference tool xrcg takes 29 s);
- generate warm: the same again, nothing changed -- target <= 0.5 s;
- the 11,000 / 1,100 ratios -- target <= 10x.
Also a "varied names" catalog (every message and field name of a different length), where the
format cache's shape sharing helps least, to show the cost when names do not repeat.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYNTH = ROOT.parent / "shared" / "tools" / "synth_catalog.py"
sys.path.insert(0, str(ROOT))


def synth(path: Path, groups: int) -> Path:
    if not SYNTH.exists():
        sys.exit(f"{SYNTH} not found: the benchmark needs ../shared beside the checkout")
    subprocess.run([sys.executable, str(SYNTH), str(path), "--groups", str(groups)], check=True, capture_output=True)
    return path


def varied(src: Path, dest: Path) -> Path:
    """Rename every message so that ids, titles and names differ in length from message to message."""
    doc = json.loads(src.read_text())
    text = json.dumps(doc)
    for i in range(2000):
        text = text.replace(f"Event{i:05d}", "Ev" + "x" * (i % 37) + str(i))
    dest.write_text(text)
    return dest


def pipeline_seconds(catalog: Path) -> float:
    from xrgen import api

    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        analysis = api.analyze([str(catalog)])
        best = min(best, time.perf_counter() - t)
        assert not analysis.diagnostics.has_errors
    return best


def wall(args: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "xrgen", *args], check=True, env=env, cwd=ROOT, capture_output=True)
    return time.perf_counter() - t


def measure(catalog: Path, work: Path) -> dict[str, float]:
    cache = work / "cache"
    out = work / "out"
    env = {**os.environ, "XRGEN_CACHE_DIR": str(cache)}
    gen = ["generate", str(catalog), "--out", str(out), "--package", "synth", "--quiet"]
    return {
        "pipeline": pipeline_seconds(catalog),
        "inspect": wall(["inspect", "--json", str(catalog)], env),
        "cold": wall(gen, env),
        "warm": wall(gen, env),
    }


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        small = synth(t / "s1100.json", 20)
        rows = {"1,100": measure(small, t / "a")}
        rows["1,100 varied names"] = measure(varied(small, t / "v1100.json"), t / "b")
        if not quick:
            rows["11,000"] = measure(synth(t / "s11000.json", 200), t / "c")
    print(f"{'catalog':22} {'pipeline s':>11} {'inspect s':>10} {'cold s':>8} {'warm s':>8}")
    for name, r in rows.items():
        print(f"{name:22} {r['pipeline']:11.3f} {r['inspect']:10.3f} {r['cold']:8.3f} {r['warm']:8.3f}")
    if "11,000" in rows:
        a, b = rows["1,100"], rows["11,000"]
        print("ratios 11,000 / 1,100: " + ", ".join(f"{k} {b[k] / a[k]:.1f}x" for k in a))
    print("targets: pipeline(1,100) < 0.5 s; cold(1,100) <= 1.5 s; warm(1,100) <= 0.5 s; 11,000 <= 10x")


if __name__ == "__main__":
    main()
