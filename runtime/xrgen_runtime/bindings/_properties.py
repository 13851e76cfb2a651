"""The CloudEvents mapping of the bindings whose attributes travel as entries of a
case-sensitive string map: ``<prefix><name>`` with the canonical string value, the content
type in an entry of its own (the Pulsar and RocketMQ drafts). Each codec keeps its routing
fields and its message and binding types; this is the rest of its ``encode`` and ``decode``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from .._attributes import check_decoded, check_event
from .._errors import DecodeError
from .._event import Event
from ..formats import wire_format
from . import Binding, jsonformat
from ._common import (
    _MODES,
    BINARY,
    CE_JSON,
    STRUCTURED,
    HeaderNames,
    WireNames,
    binary_payload,
    canonical,
    collect,
    content_mode,
    foreign,
)

__all__ = ["PropertyMap"]

M = TypeVar("M")


class PropertyMap(Generic[M]):
    """Attributes as ``prefix + name`` entries of a string map; the content type in entry
    ``content`` (read also under ``aliases``); ``no_data``: the payload of an event without
    data (RocketMQ refuses empty bodies), read back as no data; ``binding(message, other)``:
    the binding of a received message ``M`` whose entries that are not CloudEvents ones are
    ``other``."""

    __slots__ = ("content", "names", "entries", "no_data", "skip", "binding")

    def __init__(
        self,
        prefix: str,
        content: str,
        *aliases: str,
        binding: Callable[[M, dict[str, str]], Binding],
        no_data: bytes = b"",
    ) -> None:
        self.binding = binding
        self.content = content
        self.names = WireNames(prefix)
        self.entries = HeaderNames(prefix, (content, *aliases), fold=False)
        self.no_data = no_data
        #: the attribute left to the ``content`` entry; none when that entry is the
        #: attribute's own (Pulsar's ``CE-datacontenttype``), written in attribute order
        self.skip = "" if content == prefix + "datacontenttype" else "datacontenttype"

    def encode(
        self, event: Event[Any], binary: bool, properties: Mapping[str, str] | None
    ) -> tuple[bytes, dict[str, str]]:
        """The payload and the entries of a CloudEvent; the binding's own ``properties``
        come first, without entries that would be CloudEvents ones. ``ValueError`` for an
        event without the required attributes."""
        attributes = event.attributes
        check_event(attributes)
        out = dict(foreign(properties.items(), self.entries)) if properties else {}
        if not binary:
            out[self.content] = CE_JSON
            return jsonformat.encode(event), out
        data, content_type = binary_payload(event)
        names = self.names
        wire = names.out
        skip = self.skip
        for n, v in attributes.items():
            if n != skip:
                out[wire.get(n) or names.add(n)] = canonical(v)
        if content_type is not None:
            out[self.content] = content_type
        return (self.no_data if data is None else data), out

    def decode(
        self, message: M, properties: Mapping[str, str], payload: bytes
    ) -> Event[Any]:
        """The event of ``message``, whose entries and payload these are. Raises
        ``DecodeError``."""
        attributes, content_type, other = collect(
            properties.items(), self.entries, False
        )
        # ``content_mode`` without the call for an absent or known content type
        mode = BINARY if content_type is None else _MODES.get(content_type)
        if mode is None:
            mode = content_mode(content_type)
        made = self.binding(message, dict(other))
        if mode == STRUCTURED:
            return jsonformat.from_parsed(jsonformat.parse(payload), made)
        if mode != BINARY:
            raise DecodeError("unsupported-format", "batch mode is HTTP only")
        if not attributes and content_type is None:
            return Event({}, payload or None, made)
        if content_type is not None:
            if "datacontenttype" in attributes:
                raise DecodeError("duplicate-attribute", "datacontenttype")
            attributes["datacontenttype"] = content_type
        data = payload or None
        # the no-data marker (RocketMQ's 0x00) is a whole datum in Avro (a record of one empty
        # string)
        if data == self.no_data and wire_format(content_type) != "avro":
            data = None
        return Event(check_decoded(attributes), data, made)
