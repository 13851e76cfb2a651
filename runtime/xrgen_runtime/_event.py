"""``Event``: a CloudEvent (or plain protocol message) with canonical attribute values, and
the bytes of its payload."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from pydantic_core import to_json

from ._cloudevents import AttrValue
from .bindings import Binding
from .formats import encode_payload

__all__ = ["Event", "data_bytes", "encode_data", "model_json"]

T = TypeVar("T")


class Event(Generic[T]):
    """A CloudEvent, or a plain protocol message when ``attributes`` is empty.

    ``attributes`` maps CloudEvents attribute names (``specversion``, ``id``, ``source``,
    ``type``, ``time``, ``datacontenttype``, extensions, ...) to canonical Python values
    (see ``AttrValue``). ``data`` is the payload: a pydantic model instance for produced or
    validated events; after ``decode`` it is ``bytes`` (binary mode, ``data_base64``) or the JSON
    value of a structured event's ``data`` member; ``None`` means no data. ``binding`` is the
    protocol metadata (topic, key, qos, headers, ...). ``content_type`` is the content type
    of a plain message's payload (a CloudEvent carries its own in ``attributes``): set on the
    events that producers and dispatchers build from a definition whose payload travels in a
    format other than JSON (Avro binary, Protobuf, XML), ``None`` otherwise.
    """

    __slots__ = ("attributes", "data", "binding", "content_type")

    def __init__(
        self,
        attributes: dict[str, AttrValue],
        data: T,
        binding: Binding | None = None,
        content_type: str | None = None,
    ) -> None:
        self.attributes = attributes
        self.data = data
        self.binding = binding
        self.content_type = content_type

    @property
    def type(self) -> str | None:
        v = self.attributes.get("type")
        return v if isinstance(v, str) else None

    @property
    def id(self) -> str | None:
        v = self.attributes.get("id")
        return v if isinstance(v, str) else None

    @property
    def source(self) -> str | None:
        v = self.attributes.get("source")
        return v if isinstance(v, str) else None

    @property
    def datacontenttype(self) -> str | None:
        """The ``datacontenttype`` attribute, or a plain message's ``content_type``."""
        v = self.attributes.get("datacontenttype")
        return v if isinstance(v, str) else self.content_type

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (
            self.attributes == other.attributes
            and self.data == other.data
            and self.binding == other.binding
            and self.content_type == other.content_type
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        plain = (
            "" if self.content_type is None else f", content_type={self.content_type!r}"
        )
        return (
            f"Event(attributes={self.attributes!r}, data={self.data!r}, "
            f"binding={self.binding!r}{plain})"
        )


def data_bytes(event: Event[Any]) -> bytes | None:
    """The payload of ``event`` as bytes, or ``None`` when it has no data.

    pydantic models serialize in the format of the event's ``datacontenttype`` (the
    attribute, or a plain message's ``content_type``; see ``xrgen_runtime.formats``): JSON
    with wire names and without fields the caller never set when it is JSON or absent, else
    the model's registered codec (Avro, Protobuf, XML);
    ``bytes`` pass through; ``str`` is UTF-8 encoded; other values are JSON.
    """
    data = event.data
    if isinstance(data, BaseModel):
        ct = event.attributes.get("datacontenttype")
        if ct is None:
            ct = event.content_type
        if ct is not None and ct != "application/json":
            encoded = encode_payload(data, ct if isinstance(ct, str) else None, event)
            if encoded is not None:
                return encoded[0]
        return model_json(data)
    return encode_data(data)[0]


def encode_data(data: object) -> tuple[bytes | None, bool]:
    """``(payload bytes or None, whether the codec serialized the payload as JSON)``.

    The flag is true for pydantic models and plain JSON values (dict, list, numbers, ...),
    whose implied content type is ``application/json``; it is false for ``bytes`` (opaque) and
    ``str`` (text, UTF-8 encoded).
    """
    if data is None:
        return None, False
    if type(data) is bytes:
        return data, False
    if isinstance(data, BaseModel):
        return model_json(data), True
    if isinstance(data, str):
        return data.encode(), False
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data), False
    return to_json(data), True


def model_json(model: BaseModel) -> bytes:
    """The JSON document of a pydantic model: wire names, only fields the caller set.

    Same output as ``model_dump_json(by_alias=True, exclude_unset=True)``, as bytes directly.
    """
    return model.__pydantic_serializer__.to_json(
        model, by_alias=True, exclude_unset=True
    )
