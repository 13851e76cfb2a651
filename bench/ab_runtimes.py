"""This runtime against another version of it, in one process: the codec round trip of
``bench_codecs.py`` (Kafka binary, with its floor) and the dispatch of ``bench_dispatch.py``'s
table 1 (10 types, every binding and mode), the two runtimes interleaved in every round.

    python bench/ab_runtimes.py OTHER_RUNTIME_FOLDER [--rounds N]

``OTHER_RUNTIME_FOLDER`` is an ``xrgen_runtime`` folder (of another checkout, e.g. a worktree
of main). Both runtimes are copied into a temporary folder and imported as the packages
``xrgen_runtime_a`` (this checkout's) and ``xrgen_runtime_b`` (the runtime imports itself
relatively), so that neither is the installed package the benchmark modules have already
used. Prints medians over the rounds; each ratio is the median of the ratios measured in the
same round, so a slow stretch of a shared machine hits both sides of it. Comparing this runtime
with itself (``runtime/xrgen_runtime``) shows what the method cannot tell apart.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_codecs as codecs  # noqa: E402
import bench_dispatch as dispatch  # noqa: E402

RUNTIME = Path(__file__).resolve().parent.parent / "runtime" / "xrgen_runtime"
ROUTES = {
    "kafka": {"topic": "synth"}, "amqp": {"address": "synth"}, "mqtt": {"topic": "synth/events"},
    "nats": {"subject": "synth.events"}, "http": {"method": "POST", "path": "/events"},
    "pulsar": {"topic": "synth"}, "rocketmq": {"topic": "synth"},
}


def round_trip(package: str) -> Callable[[], None]:
    """``bench_codecs.ours`` for Kafka binary, on the runtime imported as ``package``."""
    rt = importlib.import_module(package)
    kafka = importlib.import_module(f"{package}.bindings.kafka")
    produce = importlib.import_module(f"{package}._produce")
    t = codecs.TYPE
    emit = produce.Emitter(rt.MessageDef(
        id="Reading", group="acme", envelope="CloudEvents/1.0", type=t,
        attributes=(rt.AttrDef("specversion", "string", True, "1.0"),
                    rt.AttrDef("type", "string", True, t),
                    rt.AttrDef("source", "uritemplate", True, codecs.SOURCE),
                    rt.AttrDef("datacontenttype", "string", False, "application/json")),
        protocol="KAFKA", options=(rt.OptionDef(("topic",), "readings"),),
        datacontenttype="application/json", schemaformat="json", model=codecs.Reading)).emit
    encode, decode, validate_json = kafka.encode, kafka.decode, codecs.Reading.model_validate_json
    none: dict[str, str] = {}

    def run() -> None:
        validate_json(decode(encode(emit(codecs.Reading, codecs.PAYLOAD, none, None, None, none))).data)

    return run


def dispatch_cases(package: str, binding: str, mode: str) -> tuple[Callable[[Any], object], list[Any]]:
    rt = importlib.import_module(package)
    importlib.import_module(f"{package}._dispatch")
    defs = dispatch.catalog(rt, 10)
    counter = dispatch.Counter()
    d = dispatch.dispatcher(rt, defs, counter)
    codec = importlib.import_module(f"{package}.bindings.{binding}")
    wires = [codec.encode(dispatch.event_for(rt, defs[i % 10], i), mode=mode, **ROUTES[binding])
             for i in range(300)]
    return d.dispatch, wires


def interleaved(cases: list[tuple[Callable[[Any], object], list[Any]]], rounds: int) -> list[list[float]]:
    """CPU microseconds per item of each case in each round (three passes over the items);
    the cases run in turn, in reverse order every other round (neither side always first)."""
    for fn, items in cases:
        for item in items:
            fn(item)
    out: list[list[float]] = [[] for _ in cases]
    order = list(enumerate(cases))
    for r in range(rounds):
        for i, (fn, items) in order if r % 2 == 0 else order[::-1]:
            start = time.process_time()
            for _ in range(3):
                for item in items:
                    fn(item)
            out[i].append((time.process_time() - start) / (3 * len(items)) * 1e6)
    return out


def side_by_side(other: Path) -> tuple[Path, str, str]:
    """A temporary folder (first on ``sys.path``) with this runtime and ``other`` copied as
    the packages ``xrgen_runtime_a`` and ``xrgen_runtime_b``; returns it and the two names."""
    work = Path(tempfile.mkdtemp(prefix="xrgen-ab-"))
    shutil.copytree(RUNTIME, work / "xrgen_runtime_a")
    shutil.copytree(other, work / "xrgen_runtime_b")
    sys.path.insert(0, str(work))
    return work, "xrgen_runtime_a", "xrgen_runtime_b"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="the other xrgen_runtime folder")
    ap.add_argument("--rounds", type=int, default=41)
    args = ap.parse_args()
    work, a, b = side_by_side(args.other)
    try:
        t = codecs.measure([round_trip(a), round_trip(b), codecs.floor("kafka", "binary")],
                           1000, args.rounds)
        m = [statistics.median(x) for x in t]
        print(f"codec round trip, Kafka binary (us): this {m[0]:.2f}, other {m[1]:.2f}, floor {m[2]:.2f};"
              f" this/floor {codecs.median_ratio(t[0], t[2]):.3f}, other/floor"
              f" {codecs.median_ratio(t[1], t[2]):.3f}, this/other {codecs.median_ratio(t[0], t[1]):.3f}")
        print(f"\n{'dispatch':9} {'mode':10} {'this us':>8} {'other us':>9} {'this/other':>10}")
        for binding in dispatch.BINDINGS:
            for mode in ("binary", "structured"):
                per = interleaved([dispatch_cases(a, binding, mode), dispatch_cases(b, binding, mode)],
                                  args.rounds)
                ratio = statistics.median(x / y for x, y in zip(*per, strict=True))
                print(f"{binding:9} {mode:10} {statistics.median(per[0]):8.2f}"
                      f" {statistics.median(per[1]):9.2f} {ratio:10.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
