"""Build of xrgen-runtime: the metadata is in pyproject.toml; this file only adds the
extension modules.

The modules on the path from a wire message to a handler (codecs, attribute checks, matching,
payload validation, dispatch) and on the producer's path are compiled with mypyc: the same
source, type-checked, as C extensions. Where no C compiler works (or with
``XRGEN_RUNTIME_PURE=1``) the build gives the plain Python package, which behaves the same;
``xrgen_runtime.compiled()`` says which one is installed.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

#: the compiled modules (paths under xrgen_runtime/); every other module stays Python: the
#: adapters (they wait on the network), the Spark decoders, the generator-facing definitions,
#: ``_event`` (its generic ``Event`` crashes mypyc's garbage-collector support) and ``_ids``
#: (tests replace ``os.urandom`` under it)
COMPILED = [
    "_attributes.py",
    "_cloudevents.py",
    "_dispatch.py",
    "_errors.py",
    "_limits.py",
    "_match.py",
    "_media.py",
    "_outcome.py",
    "_patterns.py",
    "_payload.py",
    "_produce.py",
    "_time.py",
    "_uritemplate.py",
    "bindings/_common.py",
    "bindings/_properties.py",
    "bindings/_shape.py",
    "bindings/jsonformat.py",
    *(
        f"bindings/{b}/codec.py"
        for b in ("amqp", "http", "kafka", "mqtt", "nats", "pulsar", "rocketmq")
    ),
]


class _OptionalBuildExt(build_ext):
    """Build every extension, or none of them (the package is then plain Python): the
    compiled modules share one library, so a partial set would not import."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the plain package works
            print(
                f"xrgen-runtime: building the compiled modules failed ({exc}); "
                "installing the plain Python modules",
                file=sys.stderr,
            )
            for built in self.get_outputs():
                if os.path.exists(built):
                    os.unlink(built)
            self.extensions = []


def _extensions() -> list[object]:
    if os.environ.get("XRGEN_RUNTIME_PURE", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    old = os.getcwd()
    os.chdir(here)  # mypyc names modules by their paths
    try:
        return list(
            mypycify(
                [os.path.join("xrgen_runtime", p) for p in COMPILED],
                opt_level="3",
                debug_level="0",
                group_name="xrgen_runtime._native",
            )
        )
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error: plain package
        print(f"xrgen-runtime: mypyc failed ({exc!r}); plain modules", file=sys.stderr)
        return []
    finally:
        os.chdir(old)


# setuptools runs this file as __main__; scripts/compile_runtime.py imports it for COMPILED
if __name__ == "__main__":
    setup(ext_modules=_extensions(), cmdclass={"build_ext": _OptionalBuildExt})
