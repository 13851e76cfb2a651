"""JSON payloads: a pydantic model's JSON document (wire names, fields the caller set).

Every model has this form without registration; the binding codecs and the dispatcher use the
same calls inline on their hot paths (``_event.model_json``, ``validate_json(strict=True)``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from .._event import Event, model_json

__all__ = ["JsonCodec"]


class JsonCodec:
    """The JSON codec of one payload model."""

    format = "json"
    binary = False

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def encode(self, model: BaseModel, event: Event[Any] | None = None) -> bytes:
        return model_json(model)

    def decode(self, data: bytes, event: Event[Any] | None = None) -> BaseModel:
        try:
            return self.model.model_validate_json(data, strict=True)
        except ValidationError as exc:
            raise ValueError(str(exc)) from None
