"""What the generator needs to know about the installed xrgen-runtime, read from its files and
its distribution metadata (never imported: an adapter imports its client library).

The command line scans once per run and passes the result to ``api.generate`` (and into the run
cache's key); a library caller may pass its own or let ``generate`` scan.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class RuntimeInfo:
    #: dotted names of the public codec and adapter modules (``bindings.kafka``,
    #: ``adapters.mqtt``, ...), sorted: the generated package re-exports each
    modules: tuple[str, ...]
    #: the runtime's ``Requires-Python`` and its extras (the generated pyproject.toml states them)
    requires_python: str
    extras: tuple[str, ...]


def runtime_modules() -> list[str]:
    """Dotted names of the public codec and adapter modules of the installed xrgen-runtime
    (``bindings.kafka``, ``adapters.mqtt``, ...), sorted; read from its files."""
    spec = importlib.util.find_spec("xrgen_runtime")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("xrgen-runtime is not installed (pip install xrgen-runtime)")
    root = Path(next(iter(spec.submodule_search_locations)))
    out = []
    for sub in ("bindings", "adapters"):
        for p in sorted((root / sub).glob("*.py")):
            if p.stem == "__init__" or not p.stem.startswith("_"):
                out.append(sub if p.stem == "__init__" else f"{sub}.{p.stem}")
    return sorted(out)


def runtime_requirements() -> tuple[str, tuple[str, ...]]:
    """``(requires-python, extras)`` of the installed xrgen-runtime."""
    from importlib import metadata

    dist = metadata.distribution("xrgen-runtime")
    return dist.metadata["Requires-Python"], tuple(dist.metadata.get_all("Provides-Extra") or ())


def scan() -> RuntimeInfo:
    """The installed xrgen-runtime's modules and requirements."""
    python, extras = runtime_requirements()
    return RuntimeInfo(tuple(runtime_modules()), python, extras)
