"""Rebuild the runtime's compiled modules in place (runtime/xrgen_runtime/**/*.so) when a
compiled module's source, or the list in runtime/setup.py, is newer than its extension.

An editable install builds them once; without this, a source edited afterwards would keep
running as the old extension. Does nothing where the extensions were never built (the plain
package: no compiler, ``XRGEN_RUNTIME_PURE=1``) or for another Python. Old extensions are
unlinked first, so a process that has them loaded keeps its copy.

    python scripts/compile_runtime.py [--force]
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

RUNTIME = Path(__file__).resolve().parent.parent / "runtime"
PACKAGE = RUNTIME / "xrgen_runtime"


def _compiled_sources() -> list[str]:
    """runtime/setup.py's ``COMPILED`` (imported: it calls ``setup()`` only as __main__)."""
    spec = importlib.util.spec_from_file_location(
        "_xrgen_runtime_setup", RUNTIME / "setup.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.COMPILED)


def stale() -> bool | None:
    """None: nothing built for this Python; else whether a rebuild is due."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    compiled = _compiled_sources()
    built = [PACKAGE / (src[: -len(".py")] + suffix) for src in compiled]
    if not any(p.exists() for p in built):
        return None
    if not all(p.exists() for p in built):
        return True
    oldest = min(p.stat().st_mtime for p in built)
    sources = [PACKAGE / s for s in compiled] + [RUNTIME / "setup.py"]
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
    if "--force" in sys.argv or stale():
        print(
            "compile_runtime: rebuilding the compiled runtime modules", file=sys.stderr
        )
        rebuild()
    return 0


if __name__ == "__main__":
    sys.exit(main())
