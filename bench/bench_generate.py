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

Then the start-up figures (issue 31), each the median of fresh processes with `python -c pass`
measured in the same rounds (the runs interleaved), as seconds and as a ratio to it:
- `xrgen --help` -- target <= 0.15 s;
- `xrgen validate` of a one-message catalog -- target <= 0.35 s;
- warm `xrgen generate` of the 1,100-message catalog -- target <= 0.35 s;
- `import <generated package>` of the 1,100-message catalog (no slower than before).
"""

from __future__ import annotations

import json
import os
import statistics
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


ONE_MESSAGE = {
    "messagegroups": {
        "g": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                "com.example.Ping": {
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {
                        "type": {"value": "com.example.Ping"},
                        "source": {"value": "/ping"},
                    },
                    "dataschemaformat": "JsonSchema/draft-07",
                    "dataschema": {
                        "type": "object",
                        "properties": {"n": {"type": "integer"}},
                        "required": ["n"],
                    },
                }
            },
        }
    }
}


def startup(catalog: Path, work: Path, rounds: int) -> tuple[float, dict[str, float]]:
    """Median wall seconds of `python -c pass` and of each start-up command, interleaved."""
    cache = work / "cache"
    out = work / "out"
    env = {**os.environ, "XRGEN_CACHE_DIR": str(cache)}
    work.mkdir(parents=True, exist_ok=True)
    one = work / "one.json"
    one.write_text(json.dumps(ONE_MESSAGE))
    gen = ["generate", str(catalog), "--out", str(out), "--package", "synth", "--quiet"]
    subprocess.run(
        [sys.executable, "-m", "xrgen", *gen], check=True, env=env, cwd=ROOT, capture_output=True
    )
    compile_env = {**env, "PYTHONPATH": str(out)}
    subprocess.run(
        [sys.executable, "-c", "import synth"], check=True, env=compile_env, capture_output=True
    )
    commands: dict[str, list[str]] = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "xrgen --help": [sys.executable, "-m", "xrgen", "--help"],
        "xrgen validate (1 message)": [sys.executable, "-m", "xrgen", "validate", str(one)],
        "xrgen generate warm (1,100)": [sys.executable, "-m", "xrgen", *gen],
        "import synth (1,100)": [sys.executable, "-c", "import synth"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            run_env = compile_env if name.startswith("import") else env
            t = time.perf_counter()
            subprocess.run(cmd, check=True, env=run_env, cwd=ROOT, capture_output=True)
            times[name].append(time.perf_counter() - t)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    return medians.pop("python -c pass"), medians


STARTUP_TARGETS = {
    "xrgen --help": "<= 0.15 s",
    "xrgen validate (1 message)": "<= 0.35 s",
    "xrgen generate warm (1,100)": "<= 0.35 s",
    "import synth (1,100)": "no slower",
}


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
        base, starts = startup(small, t / "d", 5 if quick else 11)
    print(f"{'catalog':22} {'pipeline s':>11} {'inspect s':>10} {'cold s':>8} {'warm s':>8}")
    for name, r in rows.items():
        print(f"{name:22} {r['pipeline']:11.3f} {r['inspect']:10.3f} {r['cold']:8.3f} {r['warm']:8.3f}")
    if "11,000" in rows:
        a, b = rows["1,100"], rows["11,000"]
        print("ratios 11,000 / 1,100: " + ", ".join(f"{k} {b[k] / a[k]:.1f}x" for k in a))
    print("targets: pipeline(1,100) < 0.5 s; cold(1,100) <= 1.5 s; warm(1,100) <= 0.5 s; 11,000 <= 10x")
    print()
    print(f"start-up, median of fresh processes; python -c pass: {base:.3f} s in the same rounds")
    print(f"{'command':30} {'s':>7} {'x pass':>7}  target")
    for name, value in starts.items():
        print(f"{name:30} {value:7.3f} {value / base:7.1f}  {STARTUP_TARGETS[name]}")


if __name__ == "__main__":
    main()
