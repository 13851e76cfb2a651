"""Kafka consume, CPU time per message: this runtime's ``KafkaReceiver.run(dispatch)`` against
another version of it and against a hand-written confluent-kafka loop, in one process.

    python bench/ab_kafka_consume.py OTHER_RUNTIME_FOLDER [--count N] [--rounds R]

A private Tansu broker (started by the script, as ``bench_brokers.py`` does) holds ``N``
Kafka binary events of ``bench_dispatch.py``'s 10-type catalog. Each round every contender
reads the whole topic in a fresh consumer group, in turn (in reverse order every other
round):

- ``hand``: ``poll``, the CloudEvents attributes off the ``ce_`` headers, the model by
  ``type``, the same strict ``model_validate_json``, the handler, ``store_offsets``;
- ``this`` and ``other``: ``KafkaReceiver(...).run(dispatcher.dispatch)`` at concurrency 1
  (the dispatcher of ``bench_dispatch.py`` on that runtime), offsets stored after each
  handler.

Timed with ``time.process_time`` (the whole process, librdkafka's threads included) from
the group's first message (fetched before the clock starts and given back) to the last.
``OTHER_RUNTIME_FOLDER`` is imported as its own package, as ``ab_runtimes.py`` does. Prints
the medians and, per contender, hand / it (the median of the per-round ratios, its range):
the throughput ratio the CPU time allows.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_brokers as brokers  # noqa: E402
import bench_dispatch as dispatch  # noqa: E402
from ab_runtimes import side_by_side  # noqa: E402

CONSUMER = {"auto.offset.reset": "earliest", "session.timeout.ms": 6000}


def side(package: str) -> tuple[Any, Any, list[Any], dispatch.Counter]:
    """The receiver class, a dispatcher and 500 wire messages of the runtime ``package``."""
    rt = importlib.import_module(package)
    importlib.import_module(f"{package}._dispatch")
    receiver = importlib.import_module(f"{package}.adapters.kafka").KafkaReceiver
    codec = importlib.import_module(f"{package}.bindings.kafka")
    defs = dispatch.catalog(rt, 10)
    counter = dispatch.Counter()
    d = dispatch.dispatcher(rt, defs, counter)
    wire = [
        codec.encode(dispatch.event_for(rt, defs[i % 10], i), mode="binary", topic="t")
        for i in range(500)
    ]
    return receiver, d, wire, counter


def fill(bootstrap: str, topic: str, wire: list[Any], n: int) -> None:
    import confluent_kafka

    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap})
    for i in range(n):
        w = wire[i % len(wire)]
        while True:
            try:
                p.produce(topic, w.value, headers=list(w.headers))
                break
            except BufferError:
                p.poll(0.01)
        p.poll(0)
    p.flush(120)


def xrgen(bootstrap: str, topic: str, n: int, receiver: Any, d: Any) -> Callable[[str], float]:
    def run(group: str) -> float:
        r = receiver({"bootstrap.servers": bootstrap, "group.id": group, **CONSUMER}, [topic])
        try:
            r._nack(r._poll(30.0))  # joined and fetching: the clock starts here
            start = time.process_time()
            handled = r.run(d.dispatch, max_messages=n, idle_timeout=30, handle_signals=False)
            cpu = time.process_time() - start
        finally:
            r.close()
        assert handled == n, handled
        return cpu / n * 1e6

    return run


def hand(bootstrap: str, topic: str, n: int, models: dict[str, Any]) -> Callable[[str], float]:
    import confluent_kafka

    counter = dispatch.Counter()

    def run(group: str) -> float:
        c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                      "enable.auto.offset.store": False, **CONSUMER})  # fmt: skip
        c.subscribe([topic])
        count, start = 0, 0.0
        while count < n:
            m = c.poll(1.0)
            if m is None or m.error():
                continue
            if count == 0:
                start = time.process_time()
            attrs = {k[3:]: v.decode() for k, v in m.headers() or () if k.startswith("ce_")}
            counter.handler(models[attrs["type"]].model_validate_json(m.value(), strict=True), attrs)
            c.store_offsets(message=m)
            count += 1
        cpu = time.process_time() - start
        c.close()
        return cpu / n * 1e6

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="the other xrgen_runtime folder")
    ap.add_argument("--count", type=int, default=30_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    work, this, other = side_by_side(args.other)
    try:
        a, b = side(this), side(other)
        rt = importlib.import_module(this)
        models = {defn.type: defn.model for defn in dispatch.catalog(rt, 10)}
        with brokers.tansu(work) as port:
            bootstrap, topic = f"{brokers.HOST}:{port}", f"ab-{uuid.uuid4().hex[:8]}"
            fill(bootstrap, topic, a[2], args.count)
            cases = [("hand", hand(bootstrap, topic, args.count, models)),
                     ("this", xrgen(bootstrap, topic, args.count, a[0], a[1])),
                     ("other", xrgen(bootstrap, topic, args.count, b[0], b[1]))]  # fmt: skip
            per: dict[str, list[float]] = {name: [] for name, _ in cases}
            for r in range(args.rounds):
                for name, fn in cases if r % 2 == 0 else cases[::-1]:
                    per[name].append(fn(f"{name}-{r}-{topic}"))
        dispatch.check(a[3], "this")
        dispatch.check(b[3], "other")
        print(f"python {sys.version.split()[0]}, {args.count} Kafka binary messages, {args.rounds}"
              " interleaved rounds, CPU us per message (process), medians")  # fmt: skip
        print(f"{'contender':10} {'us/msg':>7} {'hand/it':>8} {'range':>11}")
        for name, values in per.items():
            ratios = [h / v for h, v in zip(per["hand"], values, strict=True)]
            print(f"{name:10} {statistics.median(values):7.2f} {statistics.median(ratios):7.2f}x"
                  f" {min(ratios):.2f}-{max(ratios):.2f}x")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
