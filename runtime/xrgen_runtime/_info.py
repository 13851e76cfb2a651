"""``MessageInfo``: the entries of a generated package's ``MESSAGES`` mapping."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ._definitions import MessageDef
from ._event import Event

__all__ = ["MessageInfo"]


class MessageInfo:
    """Descriptor of one message definition, for generic tooling."""

    __slots__ = ("definition", "create")

    def __init__(
        self, definition: MessageDef, create: Callable[..., Event[Any]]
    ) -> None:
        self.definition = definition
        #: ``create(data, **placeholders)`` -> Event; every placeholder and required attribute
        #: is a required keyword (the group producer's constructor defaults do not apply)
        self.create = create

    @property
    def id(self) -> str:
        return self.definition.id

    @property
    def group(self) -> str:
        return self.definition.group

    @property
    def type(self) -> str | None:
        return self.definition.type

    @property
    def model(self) -> builtins.type[BaseModel] | None:
        return self.definition.model

    def __repr__(self) -> str:
        return f"MessageInfo({self.id!r})"
