"""``python -m xrgen_runtime._spark_check PACKAGE`` is ``python -m xrgen_runtime.spark.check
PACKAGE`` (:mod:`xrgen_runtime.spark.check`)."""

from __future__ import annotations

import sys

from .spark.check import main

if __name__ == "__main__":
    sys.exit(main())
