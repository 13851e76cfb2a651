"""What a handler receives from a matched definition: the payload validated into the
definition's model (strictly, JSON semantics; Avro, Protobuf and XML through the model's
codec), or bytes for opaque payloads, in a new ``Event`` whose declared attributes are typed.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import to_json

from ._attributes import coerce_attribute
from ._cloudevents import KIND_TYPES
from ._definitions import MessageDef
from ._event import Event
from ._media import is_json_content_type
from .formats import decode_payload, plain_content_type, wire_format

__all__ = ["Invalid", "PayloadReader"]


class Invalid(Exception):
    """Payload validation failed (internal control flow)."""


class PayloadReader:
    """Reads the handler's ``data`` and builds the handler's event for one definition (the
    base of ``_match.CompiledDef``)."""

    __slots__ = ("id", "model", "validator", "typed", "plain_type")

    def __init__(self, defn: MessageDef) -> None:
        self.id = defn.id
        self.model = defn.model
        #: a plain definition's payload content type when it is not JSON (its wire messages
        #: carry no ``datacontenttype``): the format the payload is read in
        self.plain_type = plain_content_type(defn)
        self.validator: Any = None
        if defn.model is not None:
            if not defn.model.__pydantic_complete__:
                defn.model.model_rebuild()
            self.validator = defn.model.__pydantic_validator__
        #: declared attributes whose canonical Python type is not str (extensions arrive as
        #: strings on most bindings and are typed again for the handler)
        self.typed = tuple(
            (a.name, a.kind) for a in defn.attributes if a.kind in KIND_TYPES
        )

    def handler_event(
        self, event: Event[Any], data: object, own: bool = False
    ) -> Event[Any]:
        """The event the handler gets: validated ``data``, declared attributes typed.

        ``own``: ``event`` was decoded by the dispatcher and nobody else holds it, so it
        becomes the handler's event (no second ``Event`` per message); else a new one.
        """
        attrs = event.attributes
        if self.typed and any(isinstance(attrs.get(n), str) for n, _ in self.typed):
            attrs = dict(attrs)
            for name, kind in self.typed:
                value = attrs.get(name)
                if isinstance(value, str):
                    attrs[name] = coerce_attribute(name, value, kind)
        if not own:
            return Event(attrs, data, event.binding, self.plain_type)
        if attrs is not event.attributes:
            event.attributes = attrs
        event.data = data
        if event.content_type is not self.plain_type:
            event.content_type = self.plain_type
        return event

    def payload(self, event: Event[Any]) -> object:
        """The handler's ``data``: a validated model instance, or bytes for opaque payloads."""
        data = event.data
        validator = self.validator
        if validator is None:
            if data is None or isinstance(data, bytes):
                return data
            if isinstance(data, str):
                return data.encode("utf-8")
            return to_json(data)
        ct = event.attributes.get("datacontenttype")
        if ct is None:
            ct = self.plain_type
        # the usual content type needs no parsing
        if (
            ct != "application/json"
            and isinstance(ct, str)
            and not is_json_content_type(ct)
        ):
            return self.payload_in_format(event, ct)
        if data is None:
            raise Invalid(f"{self.id}: event has no data")
        try:
            if isinstance(data, bytes):
                return validator.validate_json(data, strict=True)
            return validator.validate_json(to_json(data), strict=True)
        except ValidationError as invalid:  # one name per class (mypyc types it)
            raise Invalid(f"{self.id}: {invalid}") from None
        except Exception as exc:  # a model validator raising something unusual
            raise Invalid(f"{self.id}: {exc!r}") from None

    def payload_in_format(self, event: Event[Any], content_type: str) -> object:
        """The payload of a content type other than JSON, through the model's codec of that
        format (``xrgen_runtime.formats``): Avro, Protobuf, XML."""
        data = event.data
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif data is not None and not isinstance(data, bytes):
            raise Invalid(
                f"{self.id}: {content_type!r} data must be bytes (data_base64)"
            )
        if data is None:
            if wire_format(content_type) != "protobuf":
                raise Invalid(f"{self.id}: event has no data")
            data = b""  # the encoding of a Protobuf message with every field at its default
        model = self.model
        assert model is not None  # a validator exists
        try:
            return decode_payload(model, data, content_type, event)
        except ValueError as invalid:  # one name per class (mypyc types it)
            raise Invalid(f"{self.id}: {invalid}") from None
        except Exception as exc:  # a codec or model validator raising something unusual
            raise Invalid(f"{self.id}: {exc!r}") from None
