"""`xrgen diff` speed (issue 28): the 1,100-message synthetic catalog against a copy with ten
changes (envelope, protocol, payload schema, messages removed and added).

    python bench/bench_diff.py

Prints, best of 5:
- load: analyze() of both catalogs (load + validate + resolve + build), the baseline;
- diff: diff_catalogs() of the pair, which loads both and compares them -- target < 1 s;
- compare: the comparison alone (diff minus its loads);
- cli: `xrgen diff OLD NEW` wall time in a fresh process;
and the ratio diff / load (the comparison's overhead over reading the two catalogs).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYNTH = ROOT.parent / "shared" / "tools" / "synth_catalog.py"
sys.path.insert(0, str(ROOT))


def synth(path: Path) -> Path:
    if not SYNTH.exists():
        sys.exit(f"{SYNTH} not found: the benchmark needs ../shared beside the checkout")
    subprocess.run([sys.executable, str(SYNTH), str(path)], check=True, capture_output=True)
    return path


def ten_changes(src: Path, dest: Path) -> int:
    doc = json.loads(src.read_text())
    groups = doc["messagegroups"]
    g0 = groups["com.example.synth.g000"]["messages"]
    g1 = groups["com.example.synth.g001"]["messages"]
    schemas = doc["schemagroups"]["com.example.synth.g002"]["schemas"]
    e0 = g0["com.example.synth.g000.Event00001"]
    e0["envelopemetadata"]["type"]["value"] += ".v2"  # 1 type changed
    e0["envelopemetadata"]["region"] = {"type": "string", "required": True}  # 2 required attr
    e2 = g0["com.example.synth.g000.Event00002"]
    e2["envelopemetadata"]["source"]["value"] += "/{zone}"  # 3 placeholder added
    g0["com.example.synth.g000.Event00009.Mqtt"]["protocoloptions"]["qos"] = 0  # 4 qos lowered
    del g1["com.example.synth.g001.Event00060"]  # 5 message removed
    new = json.loads(json.dumps(g1["com.example.synth.g001.Event00061"]))
    new["messageid"] = "com.example.synth.g001.Extra"
    new["envelopemetadata"]["type"]["value"] = "com.example.synth.g001.Extra"
    g1["com.example.synth.g001.Extra"] = new  # 6 message added
    s = schemas["Event00100Data"]["versions"]["1"]["schema"]
    s["required"].append("label")  # 7 required added
    s["properties"]["label"]["enum"].remove("mid")  # 8 enum value removed
    s["properties"]["value"]["type"] = "integer"  # 9 type narrowed
    del schemas["Event00101Data"]["versions"]["1"]["schema"]["properties"]["tags"]  # 10 property removed
    dest.write_text(json.dumps(doc, indent=2))
    return 10


def interleaved(*fns: Callable[[], object], rounds: int = 5) -> list[float]:
    """Best time of each function over ``rounds`` rounds, run in turn (so that the load of a
    shared machine weighs on each alike)."""
    out = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t = time.perf_counter()
            fn()
            out[i] = min(out[i], time.perf_counter() - t)
    return out


def main() -> None:
    from xrgen import api
    from xrgen.diff import diff_catalogs

    with tempfile.TemporaryDirectory() as tmp:
        old = synth(Path(tmp) / "old.json")
        new = Path(tmp) / "new.json"
        ten_changes(old, new)
        count = len(api.analyze([str(old)]).catalog.messages())  # type: ignore[union-attr]
        result = diff_catalogs([str(old)], [str(new)])
        load, diff = interleaved(
            lambda: (api.analyze([str(old)]), api.analyze([str(new)])),
            lambda: diff_catalogs([str(old)], [str(new)]),
        )
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "xrgen", "diff", str(old), str(new)], capture_output=True, check=False)
        cli = time.perf_counter() - t
    breaking = sum(r.breaking for r in result.reports)
    print(f"catalog: {count} messages; changes reported: {len(result.reports)} ({breaking} breaking)")
    print(f"{'load both s':>12} {'diff s':>8} {'compare s':>10} {'cli s':>7} {'diff/load':>10}")
    print(f"{load:12.3f} {diff:8.3f} {diff - load:10.3f} {cli:7.3f} {diff / load:9.2f}x")
    print("target: diff (1,100 messages, ten changes) < 1 s")


if __name__ == "__main__":
    main()
