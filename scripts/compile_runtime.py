"""Rebuild the runtime's compiled modules in place (runtime/xrgen_runtime/**/*.so) when a
compiled module's source, or the list in runtime/setup.py, is newer than its extension.

An editable install builds them once; without this, a source edited afterwards would keep
running as the old extension. Does nothing where the extensions were never built (the plain
package: no compiler, ``XRGEN_RUNTIME_PURE=1``) or for another Python. Old extensions are
unlinked first, so a process that has them loaded keeps its copy.

    python scripts/compile_runtime.py [--force]
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
PACKAGE = RUNTIME / "xrgen_runtime"


def _compiled_sources() -> list[str]:
    namespace: dict[str, object] = {}
    text = (RUNTIME / "setup.py").read_text()
    # the list alone (setup.py calls setup() when run)
    start = text.index("COMPILED = [")
    end = text.index("\n]\n", start) + 3
    exec(compile(text[start:end], "setup.py", "exec"), namespace)
    return list(namespace["COMPILED"])  # type: ignore[call-overload]


def stale() -> bool | None:
    """None: nothing built for this Python; else whether a rebuild is due."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    built = [PACKAGE / (src[: -len(".py")] + suffix) for src in _compiled_sources()]
    if not any(p.exists() for p in built):
        return None
    if not all(p.exists() for p in built):
        return True
    oldest = min(p.stat().st_mtime for p in built)
    sources = [PACKAGE / s for s in _compiled_sources()] + [RUNTIME / "setup.py"]
    return any(s.stat().st_mtime > oldest for s in sources)


def rebuild() -> None:
    for so in PACKAGE.rglob("*" + sysconfig.get_config_var("EXT_SUFFIX")):
        so.unlink()
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace", "--force"],
        cwd=RUNTIME,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> int:
    if os.environ.get("XRGEN_RUNTIME_PURE", "") not in ("", "0"):
        return 0
    state = stale()
    if state is None and "--force" not in sys.argv:
        return 0
    if state or "--force" in sys.argv:
        print(
            "compile_runtime: rebuilding the compiled runtime modules", file=sys.stderr
        )
        rebuild()
    return 0


if __name__ == "__main__":
    sys.exit(main())
