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
    (``bindings.kafka``, ``adapters.mqtt``, ...), sorted; read from its files: ``adapters``,
    ``bindings`` and its public modules (``bindings.jsonformat``), and for each binding (a
    package ``bindings/<x>/``) ``bindings.<x>`` and, when it has an adapter, ``adapters.<x>``."""
    spec = importlib.util.find_spec("xrgen_runtime")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("xrgen-runtime is not installed (pip install xrgen-runtime)")
    bindings = Path(next(iter(spec.submodule_search_locations))) / "bindings"
    out = ["adapters", "bindings"]
    for p in sorted(bindings.iterdir()):
        if p.name.startswith("_"):
            continue
        if p.suffix == ".py":
            out.append(f"bindings.{p.stem}")
        elif (p / "spec.py").is_file():
            out.append(f"bindings.{p.name}")
            if (p / "adapter.py").is_file():
                out.append(f"adapters.{p.name}")
    return sorted(out)


def runtime_source(module: str) -> str:
    """The runtime module that the generated package's re-export ``module`` (one of
    :func:`runtime_modules`) re-exports: ``adapters.<x>`` is the binding's
    ``xrgen_runtime.bindings.<x>.adapter``, every other module its namesake."""
    kind, _, name = module.partition(".")
    if kind == "adapters" and name:
        return f"xrgen_runtime.bindings.{name}.adapter"
    return f"xrgen_runtime.{module}"


def runtime_requirements() -> tuple[str, tuple[str, ...]]:
    """``(requires-python, extras)`` of the installed xrgen-runtime."""
    from importlib import metadata

    dist = metadata.distribution("xrgen-runtime")
    return dist.metadata["Requires-Python"], tuple(dist.metadata.get_all("Provides-Extra") or ())


def scan() -> RuntimeInfo:
    """The installed xrgen-runtime's modules and requirements."""
    python, extras = runtime_requirements()
    return RuntimeInfo(tuple(runtime_modules()), python, extras)
