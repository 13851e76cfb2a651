"""``python -m xrgen_runtime run MODULE:APP --endpoint ID`` (``serving._cli``)."""

from __future__ import annotations

import sys

from .serving._cli import main

if __name__ == "__main__":
    sys.exit(main())
