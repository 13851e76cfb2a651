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

from typing import Any

from typing_extensions import TypeVar

from ._produce import Emitter, pick

__all__ = ["Emitter", "Held", "pick"]

Held = TypeVar("Held", default=Any)
