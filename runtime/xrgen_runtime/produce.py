"""Event construction for generated producers: what a generated ``producer.py`` imports.

``Emitter`` is built once per message definition and makes its events (constants, templates,
``id`` and ``time``, the payload model, the binding metadata); ``pick`` takes a placeholder
from a producer method's argument, else from the group producer's constructor.

``Held`` is the type parameter of a group producer whose constructor can hold placeholders,
inferred from the constructor call: ``Literal["none"]`` when it was built without them (its
methods require every placeholder, so a type checker reports a missing one),
``Literal["all"]`` when it holds all of them (they are optional in its methods),
``Literal["some"]`` otherwise (optional; one neither holds nor gets raises ``TypeError`` when
the event is made). A bare ``ShopOrdersProducer`` annotation takes any of them, unchecked.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from ._produce import Emitter, pick

__all__ = ["Emitter", "Held", "pick"]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    Held = TypeVar("Held", default=Any)
else:

    def _held() -> object:
        """The type variable at run time: with its default where typing_extensions (a
        dependency of pydantic) knows defaults (4.9 and later), a plain one before: only type
        checkers read the default."""
        try:
            from typing_extensions import TypeVar

            return TypeVar("Held", default=Any)
        except (ImportError, TypeError):
            return typing.TypeVar("Held")

    Held = _held()
