"""Benchmark of uritemplate matching (``xrgen_runtime._uritemplate.UriTemplate.match``).

    python bench/bench_templates.py [--quick]

Matching must be linear in the input. For templates of 1 to 30 dotted placeholders
(``{p0}.{p1}...``) whose values contain the separator (the ambiguous case that made the former
backtracking regex take 37 s for one valid event with 30 placeholders), and for one
placeholder with values from 1 KB to 1 MB, it prints the time per match and its ratio to the
smallest case of the same table, measured in the same run, next to the input-size ratio:
linear growth keeps the two close. The baseline row is the smallest case.
"""

from __future__ import annotations

import argparse
import functools
import re
import time
from collections.abc import Callable

from xrgen_runtime._uritemplate import UriTemplate


def best(fn: Callable[[], object], seconds: float) -> float:
    """The best time per call (s) over rounds of at least ``seconds`` / 5 each."""
    n, elapsed = 1, 0.0
    while elapsed < seconds / 5:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        n *= 2
    n //= 2
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - start) / n)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    seconds = 0.2 if parser.parse_args().quick else 1.0

    print(
        "## 1. dotted placeholders {p0}.{p1}...: values 'a.b.c' (ambiguous), and a text that fails at its end"
    )
    print(
        "regex fail us: the failing text against a backtracking regex of the template (one"
        " [unreserved%]* group per placeholder), up to 8 placeholders (10 take ~1 s, 12 ~35 s)"
    )
    print(
        f"{'placeholders':>12} {'chars':>7} {'match us':>9} {'fail us':>9} {'time ratio':>10}"
        f" {'size ratio':>10} {'regex fail us':>14}"
    )
    base: tuple[float, int] | None = None
    for n in (1, 2, 5, 8, 10, 20, 30):
        tpl = UriTemplate(".".join(f"{{p{i}}}" for i in range(n)) + "/end")
        text = tpl.expand({f"p{i}": "a.b.c" for i in range(n)})
        assert tpl.match(text) is not None
        bad = text[:-1] + "x"
        assert tpl.match(bad) is None
        t = best(functools.partial(tpl.match, text), seconds)
        f = best(functools.partial(tpl.match, bad), seconds)
        if base is None:
            base = (t, len(text))
        regex = "-"
        if n <= 8:
            group = r"([A-Za-z0-9\-._~%]*)"
            backtracking = re.compile(r"\.".join([group] * n) + "/end")
            regex = f"{best(functools.partial(backtracking.fullmatch, bad), seconds) * 1e6:.1f}"
        print(
            f"{n:>12} {len(text):>7} {t * 1e6:>9.2f} {f * 1e6:>9.2f} {t / base[0]:>9.1f}x"
            f" {len(text) / base[1]:>9.1f}x {regex:>14}"
        )

    print()
    print(
        "## 2. one placeholder between literals, value size growing (percent-encoded halves)"
    )
    print(f"{'value chars':>12} {'match us':>10} {'time ratio':>10} {'size ratio':>10}")
    tpl = UriTemplate("/devices/{id}/{kind}/telemetry")
    base = None
    for size in (1_000, 10_000, 100_000, 1_000_000):
        value = ("x.%2F" * (size // 5 + 1))[:size]
        text = f"/devices/{value}/k/telemetry"
        assert tpl.match(text) is not None
        t = best(functools.partial(tpl.match, text), seconds)
        if base is None:
            base = (t, size)
        print(
            f"{size:>12} {t * 1e6:>10.1f} {t / base[0]:>9.1f}x {size / base[1]:>9.1f}x"
        )


if __name__ == "__main__":
    main()
