"""Payload wire formats: one codec per format, selected by the event's content type.

A generated package registers, for each payload model whose messages travel in a format other
than JSON, the codec of that format (``register(model, codec)``, in its ``_defs.py``). The
binding codecs and the dispatcher then turn a model into bytes and bytes into a model through
``encode_payload`` and ``decode_payload``:

- the content type selects the wire format (``wire_format``): ``json`` for absent, ``*/json``
  and ``*/*+json``; ``avro`` for ``avro/binary``, ``application/avro``,
  ``application/vnd.apache.avro+binary`` and their spellings; ``protobuf`` for
  ``application/protobuf`` and ``application/x-protobuf``; ``xml`` for ``*/xml`` and
  ``*/*+xml``; parameters and case are ignored;
- JSON needs no registration (every pydantic model has its JSON form); the others need the
  model's registered codec of that format (``codec_for``), else the payload cannot be written
  (``ValueError``) or read (the dispatcher dead-letters it).

Codecs (``PayloadCodec``) have ``format``, ``binary`` (bytes that are not text: the JSON event
format carries them as ``data_base64``), ``encode(model, event)`` and ``decode(data, event)``
(raises ``ValueError`` for bytes that are not a valid payload, including model validation).
Adding a format means a module here with its codec, a ``wire_format`` entry and a generator
module in ``xrgen/formats``. JSON Structure payloads are JSON: ``jsonstructure`` holds no codec,
only the model field types that read and write JSON Structure's representation.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Annotated, Any, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, Field

if TYPE_CHECKING:
    from .._definitions import MessageDef
    from .._event import Event

__all__ = [
    "Float32",
    "Int32",
    "Int64",
    "UInt32",
    "UInt64",
    "AVRO_MEDIA_TYPES",
    "PROTOBUF_MEDIA_TYPES",
    "PayloadCodec",
    "codec_for",
    "decode_payload",
    "check_oneofs",
    "encode_payload",
    "oneof_schema",
    "plain_content_type",
    "register",
    "wire_format",
]

_Model = TypeVar("_Model", bound=BaseModel)


def _float32(value: float) -> float:
    """``value`` rounded to the nearest IEEE 754 single-precision number."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        raise ValueError(f"{value!r} does not fit a 32-bit float") from None


#: model field types that hold exactly what a binary format holds (Avro int/long/float,
#: Protobuf int32/int64/uint32/uint64/float)
Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
UInt32 = Annotated[int, Field(ge=0, le=2**32 - 1)]
UInt64 = Annotated[int, Field(ge=0, le=2**64 - 1)]
Float32 = Annotated[float, AfterValidator(_float32)]


def check_oneofs(model: _Model, groups: Mapping[str, Sequence[str]]) -> _Model:
    """``model``, or ``ValueError`` when it sets (not ``None``) more than one member of a
    group: ``groups`` maps a Protobuf ``oneof`` name to its members' field names (the model
    validator of a generated model with ``oneof`` groups)."""
    for name, members in groups.items():
        given = [m for m in members if getattr(model, m) is not None]
        if len(given) > 1:
            raise ValueError(
                f"oneof {name!r} takes at most one of {', '.join(members)}; "
                f"{', '.join(given)} are set"
            )
    return model


def oneof_schema(groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The JSON Schema clause (``json_schema_extra`` of a model) that refuses an object
    setting (not ``null``) two members of one group: ``groups`` maps a ``oneof`` name to
    its members' JSON names. ``{"not": {"anyOf": [one schema per pair of members]}}``, each
    pair schema requiring both members and neither ``null``."""
    pairs = [
        {
            "required": [a, b],
            "properties": {a: {"not": {"type": "null"}}, b: {"not": {"type": "null"}}},
        }
        for members in groups.values()
        for a, b in combinations(members, 2)
    ]
    return {"not": {"anyOf": pairs}} if pairs else {}


class PayloadCodec(Protocol):
    """What a format codec offers (see the module doc)."""

    #: "avro", "protobuf", "xml"
    format: str
    #: the payload bytes are binary (structured mode: ``data_base64``), not text
    binary: bool

    def encode(self, model: BaseModel, event: Event[Any] | None = None) -> bytes: ...

    def decode(self, data: bytes, event: Event[Any] | None = None) -> BaseModel: ...


#: media types of Avro binary and of Protobuf (lower case, without parameters)
AVRO_MEDIA_TYPES = frozenset(
    {
        "avro/binary",
        "application/avro",
        "application/avro-binary",
        "application/x-avro-binary",
        "application/vnd.apache.avro+binary",
        "application/vnd.apache.avro.binary",
    }
)
PROTOBUF_MEDIA_TYPES = frozenset(
    {
        "application/protobuf",
        "application/x-protobuf",
        "application/vnd.google.protobuf",
        "application/x-google-protobuf",
    }
)
_FORMATS: dict[str | None, str | None] = {None: "json", "application/json": "json"}
#: model class -> format -> codec
_CODECS: dict[type, dict[str, PayloadCodec]] = {}


def wire_format(content_type: str | None) -> str | None:
    """``"json"``, ``"avro"``, ``"protobuf"``, ``"xml"`` or ``None`` (opaque) for a content
    type (see the module doc)."""
    try:
        return _FORMATS[content_type]
    except (KeyError, TypeError):
        pass
    if not isinstance(content_type, str):
        return None
    media = content_type.split(";", 1)[0].strip().lower()
    result: str | None = None
    if "/" in media:
        if media.endswith("/json") or media.endswith("+json"):
            result = "json"
        elif media in AVRO_MEDIA_TYPES:
            result = "avro"
        elif media in PROTOBUF_MEDIA_TYPES:
            result = "protobuf"
        elif media.endswith("/xml") or media.endswith("+xml"):
            result = "xml"
    if len(_FORMATS) < 1024:
        _FORMATS[content_type] = result
    return result


def plain_content_type(definition: MessageDef) -> str | None:
    """The content type of the payload of ``definition``'s messages when they are plain
    protocol messages (no envelope) with a payload model in a format other than JSON: their
    wire carries no ``datacontenttype``, so producers and dispatchers take it from the
    definition (``Event.content_type``). ``None`` for CloudEvents, JSON and opaque payloads.
    """
    ct = definition.datacontenttype
    if definition.envelope or definition.model is None or ct is None:
        return None
    return ct if wire_format(ct) != "json" else None


def register(model: type[BaseModel], codec: PayloadCodec) -> None:
    """Use ``codec`` for ``model`` payloads whose content type is ``codec.format``."""
    _CODECS.setdefault(model, {})[codec.format] = codec


def codec_for(model: type, fmt: str) -> PayloadCodec | None:
    """The codec registered for ``model`` (or a base class) in format ``fmt``, or ``None``."""
    for cls in model.__mro__:
        found = _CODECS.get(cls)
        if found is not None and fmt in found:
            return found[fmt]
    return None


def encode_payload(
    model: BaseModel, content_type: str | None, event: Event[Any] | None = None
) -> tuple[bytes, PayloadCodec] | None:
    """``(bytes, codec)`` of ``model`` in the format of ``content_type``; ``None`` when that
    format is JSON (the caller writes the model's JSON). ``ValueError`` when the format is
    neither JSON nor one the model has a codec for."""
    fmt = wire_format(content_type)
    if fmt == "json":
        return None
    codec = codec_for(type(model), fmt) if fmt is not None else None
    if codec is None:
        raise ValueError(
            f"cannot write a {type(model).__name__} payload as {content_type!r}: "
            "no codec of that format is registered for the model"
        )
    return codec.encode(model, event), codec


def decode_payload(
    model: type[BaseModel],
    data: bytes,
    content_type: str | None,
    event: Event[Any] | None = None,
) -> BaseModel:
    """The ``model`` instance that ``data`` encodes in the format of ``content_type`` (not
    JSON); ``ValueError`` when it does not decode or validate, or the format is unknown.
    """
    fmt = wire_format(content_type)
    codec = codec_for(model, fmt) if fmt is not None else None
    if codec is None:
        raise ValueError(
            f"content type {content_type!r} is not JSON nor a format {model.__name__} has a codec for"
        )
    return codec.decode(data, event)
