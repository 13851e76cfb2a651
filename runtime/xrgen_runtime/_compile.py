"""What the compiled modules need from mypyc at build time, without a dependency at run time.

``mypyc_attr`` marks a class for mypyc (``allow_interpreted_subclasses=True``: Python classes,
such as a generated package's dispatcher, may subclass it). mypyc reads the decorator while it
compiles; when the module runs, compiled or not, it is the identity. This module itself is
never compiled (setup.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*attrs: str, **kwattrs: Any) -> Callable[[T], T]:
        def identity(x: T) -> T:
            return x

        return identity
