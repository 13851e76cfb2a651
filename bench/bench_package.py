"""Size and import time of generated packages: the package as generated (catalog-specific code
that imports the installed xrgen-runtime) against the same package with the runtime vendored
into it (every runtime module copied in and imported relatively), the layout in which each
package carries its own copy of the runtime. Both are measured in the same run.

    python bench/bench_package.py [--quick]

Prints, for the bundled acme catalog and for 1,100 messages from ../shared/tools/synth_catalog.py:
- lines of Python in the package (target: acme at most 1,200);
- `import <package>` in a fresh interpreter, median of N runs with byte-code compiled first
  (target: no slower than the vendored layout), and the ratio generated / vendored.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SYNTH = ROOT.parent / "shared" / "tools" / "synth_catalog.py"
RUNTIME = ROOT / "runtime" / "xrgen_runtime"
_IMPORT = re.compile(r"^(\s*)from xrgen_runtime((?:\.[\w.]+)?) import ", re.M)


def generate(catalog: Path, out: Path, package: str) -> Path:
    subprocess.run(
        [sys.executable, "-m", "xrgen", "generate", str(catalog), "--out", str(out),
         "--package", package, "--no-spark", "--quiet", "--no-cache"],
        check=True, capture_output=True,
    )
    return out / package


def vendored(package: Path, dest: Path) -> Path:
    """``package`` with xrgen_runtime copied in as ``_rt`` and every import of it made relative."""
    shutil.copytree(package, dest)
    shutil.copytree(RUNTIME, dest / "_rt", ignore=shutil.ignore_patterns("__pycache__"))
    for path in dest.rglob("*.py"):
        if "_rt" in path.relative_to(dest).parts:
            continue
        depth = len(path.relative_to(dest).parts) - 1
        dots = "." * (depth + 1)
        text = _IMPORT.sub(
            lambda m, dots=dots: f"{m.group(1)}from {dots}_rt{m.group(2)} import ", path.read_text()
        )
        path.write_text(text)
    return dest


def lines(package: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def import_seconds(parent: Path, package: str, runs: int) -> float:
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(parent / package)], check=True)
    code = (
        "import time, sys; sys.path.insert(0, sys.argv[1]); t = time.perf_counter(); "
        f"import {package}; print(time.perf_counter() - t)"
    )
    times = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code, str(parent)], check=True, capture_output=True, text=True)
        times.append(float(out.stdout))
    return statistics.median(times)


def main() -> None:
    quick = "--quick" in sys.argv
    runs = 5 if quick else 15
    work = Path(tempfile.mkdtemp(prefix="xrbench-pkg-"))
    catalogs = [("acme", ROOT / "catalogs" / "acme" / "catalog.json")]
    if SYNTH.exists():
        synth = work / "synth.json"
        subprocess.run([sys.executable, str(SYNTH), str(synth), "--groups", "22"], check=True, capture_output=True)
        catalogs.append(("synth1100", synth))
    else:
        print(f"{SYNTH} not found: only the acme catalog is measured")
    print(f"{'catalog':<10} {'lines':>7} {'vendored':>9} {'import ms':>10} {'vendored ms':>12} {'ratio':>6}")
    try:
        for name, catalog in catalogs:
            gen = generate(catalog, work / "gen", name)
            ven = vendored(gen, work / "ven" / name)
            # the runtime itself is imported by the generated package from site-packages: compile it
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(RUNTIME)], check=True)
            ours = import_seconds(work / "gen", name, runs)
            theirs = import_seconds(work / "ven", name, runs)
            print(
                f"{name:<10} {lines(gen):>7} {lines(ven):>9} {ours * 1e3:>10.1f} {theirs * 1e3:>12.1f}"
                f" {ours / theirs:>6.2f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
