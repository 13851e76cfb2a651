"""The serving loop's own cost per message (runtime/xrgen_runtime/adapters/_serve.py).

    python bench/bench_serve.py [--quick]

An in-memory receiver (a deque of Kafka wire messages, acknowledgements appended to a list)
feeds a dispatcher of a 10-type catalog shaped like bench_dispatch.py's. Each row times, in
CPU microseconds per message (median of interleaved rounds, all measured in the same run):

- ``hand loop``: ``for raw in queue: on_message(convert(raw)); ack(raw)``, the least a loop
  that acknowledges after the handler costs;
- ``hand loop, async handler``: the same awaiting ``dispatch_async`` of a dispatcher whose
  handler is a coroutine;
- ``run``: ``receiver.run(dispatcher)`` (``PollingReceiver.run``), and the same with an
  ``AsyncPollingReceiver`` (``await receiver.run(dispatcher)``), at concurrency 1 and 8:
  a synchronous handler runs in the loop's threads above 1 (a thread hop per message), an
  async one as a task.

``loop us`` is the row minus its hand loop: what the serving loop adds per message (the
handler and the dispatcher are the same). Target: at concurrency 1 under 1 us (a few
percent of the dispatcher's own cost). Then the wall time of 300 async handlers of 10 ms at
concurrency 8 against the ideal 0.375 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_dispatch as bd  # noqa: E402
from xrgen_runtime.adapters._loop import (  # noqa: E402
    AsyncPollingReceiver,
    PollingReceiver,
)

TARGET_US = 1.0


class Memory(PollingReceiver[Any, Any]):
    def __init__(self, messages: list[Any]) -> None:
        self.queue = deque(messages)
        self.acked: list[Any] = []

    def _poll(self, timeout: float) -> Any:
        queue = self.queue
        return queue.popleft() if queue else None

    def _convert(self, raw: Any) -> Any:
        return raw

    def _ack(self, raw: Any) -> None:
        self.acked.append(raw)

    def close(self) -> None:
        pass


class AsyncMemory(AsyncPollingReceiver[Any, Any]):
    def __init__(self, messages: list[Any]) -> None:
        self.queue = deque(messages)
        self.acked: list[Any] = []

    async def _poll(self, timeout: float) -> Any:
        queue = self.queue
        return queue.popleft() if queue else None

    def _convert(self, raw: Any) -> Any:
        return raw

    async def _ack(self, raw: Any) -> None:
        self.acked.append(raw)

    async def close(self) -> None:
        pass


def hand_loop(messages: list[Any], on_message: Any) -> None:
    r = Memory(messages)
    poll, convert, ack = r._poll, r._convert, r._ack
    while True:
        raw = poll(0.0)
        if raw is None:
            break
        on_message(convert(raw))
        ack(raw)


def hand_loop_async(messages: list[Any], on_message: Any) -> None:
    r = AsyncMemory(messages)

    async def main() -> None:
        poll, convert, ack = r._poll, r._convert, r._ack
        while True:
            raw = await poll(0.0)
            if raw is None:
                break
            await on_message(convert(raw))
            await ack(raw)

    asyncio.run(main())


def run_sync(messages: list[Any], on_message: Any, concurrency: int) -> None:
    r = Memory(messages)
    n = r.run(
        on_message,
        max_messages=len(messages),
        handle_signals=False,
        concurrency=concurrency,
    )
    assert n == len(messages) == len(r.acked)


def run_async(messages: list[Any], on_message: Any, concurrency: int) -> None:
    r = AsyncMemory(messages)

    async def main() -> int:
        return await r.run(
            on_message,
            max_messages=len(messages),
            handle_signals=False,
            concurrency=concurrency,
        )

    assert asyncio.run(main()) == len(messages) == len(r.acked)


def concurrency_table(rounds: int) -> None:
    """300 async handlers of 10 ms each at concurrency 8: wall time against the ideal
    300 / 8 * 10 ms (the handlers' own sleeping, not CPU), sync and async receivers."""
    n, hold, conc = 300, 0.01, 8

    async def handler(message: Any) -> None:
        await asyncio.sleep(hold)

    ideal = n / conc * hold
    times: dict[str, list[float]] = {"run": [], "async run": []}
    for _ in range(max(3, rounds // 3)):
        start = time.perf_counter()
        run_sync(list(range(n)), handler, conc)
        times["run"].append(time.perf_counter() - start)
        start = time.perf_counter()
        run_async(list(range(n)), handler, conc)
        times["async run"].append(time.perf_counter() - start)
    print(
        f"\n{n} async handlers of {hold * 1000:.0f} ms at concurrency {conc}"
        f" (wall s, median; ideal {ideal:.3f} s)"
    )
    for name, values in times.items():
        wall = statistics.median(values)
        print(f"{name:28} {wall:8.3f} {wall / ideal:7.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    args = ap.parse_args()
    rounds = 5 if args.quick else 15
    rt = bd.load_runtime()
    defs = bd.catalog(rt, 10)
    events = [bd.event_for(rt, defs[i % len(defs)], i) for i in range(2000)]
    wire = [bd.encoder("kafka", "binary")(e) for e in events]
    counter = bd.Counter()
    d = bd.dispatcher(rt, defs, counter)  # a synchronous handler
    da = bd.dispatcher(rt, defs, counter)  # an async handler

    async def handle(event: Any, params: dict[str, str]) -> None:
        counter.handled += 1

    for defn in defs:
        da.on(defn.id)(handle)
    # (row, its baseline row)
    cases: list[tuple[str, Callable[[], None], int]] = [
        ("hand loop, sync handler", lambda: hand_loop(wire, d.dispatch), 0),
        ("run, concurrency 1", lambda: run_sync(wire, d.dispatch, 1), 0),
        ("run, concurrency 8 (threads)", lambda: run_sync(wire, d.dispatch, 8), 0),
        ("async run, conc. 8 (threads)", lambda: run_async(wire, d, 8), 0),
        (
            "hand loop, async handler",
            lambda: hand_loop_async(wire, da.dispatch_async),
            4,
        ),
        ("async run, concurrency 1", lambda: run_async(wire, da, 1), 4),
        ("async run, concurrency 8", lambda: run_async(wire, da, 8), 4),
        ("run, concurrency 8 (tasks)", lambda: run_sync(wire, da, 8), 4),
    ]
    samples: list[list[float]] = [[] for _ in cases]
    for _ in range(rounds):
        for i, (_, fn, _base) in enumerate(cases):
            start = time.process_time()
            fn()
            samples[i].append((time.process_time() - start) / len(wire) * 1e6)
    bd.check(counter, "serve")
    medians = [statistics.median(s) for s in samples]
    print(
        f"python {sys.version.split()[0]}; {len(wire)} Kafka binary messages per round,"
        f" CPU us per message, median of {rounds} interleaved rounds"
    )
    print(f"{'loop':28} {'us/msg':>8} {'loop us':>8}")
    for (name, _, base), us in zip(cases, medians, strict=True):
        print(f"{name:28} {us:8.2f} {us - medians[base]:8.2f}")
    concurrency_table(rounds)
    overhead = medians[1] - medians[0]
    verdict = "met" if overhead <= TARGET_US else "NOT met"
    print(
        f"serving loop at concurrency 1: {overhead:.2f} us per message"
        f" (target <= {TARGET_US}: {verdict})"
    )


if __name__ == "__main__":
    main()
