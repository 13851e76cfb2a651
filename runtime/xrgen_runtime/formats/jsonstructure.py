"""Model field types and base classes of JSON Structure payloads (no extra dependency).

JSON Structure (xRegistry format ``JsonStructure/<draft>``) gives each value a precise type and
a fixed JSON representation: ``int64``, ``uint64``, ``int128``, ``uint128`` and ``decimal``
travel as JSON strings (``"-12"``, ``"3.14"``), ``binary`` as base64 text, ``datetime`` as
RFC 3339 text with an offset, ``duration`` as ISO 8601 text. The model field types here hold
the Python value (``int``, ``Decimal``, ``bytes``, ``datetime``, ``timedelta``) and read and
write exactly that representation:

- reading JSON (a consumer: ``validate_json``) accepts only the representation the
  specification gives (a JSON number for an ``int64`` is refused, as is a ``datetime`` without
  offset);
- reading Python values (a producer: ``create``) also accepts the representation's text, so a
  dict parsed from JSON validates too; a naive ``datetime`` is taken as UTC;
- writing JSON gives the representation; bounds are checked either way (``Int64Text`` holds
  -2**63 to 2**63-1, ``DecimalText(10, 2)`` at most 10 digits, 2 after the point).

Base classes of generated models: :class:`TaggedChoice` (a ``choice`` without selector: an
object with exactly one of its members), :class:`ChoiceVariant` (a member of a ``choice`` with
a ``selector``: the selector is always written), :class:`RequiredSets` (``required`` as a list
of alternative sets: exactly one set is present).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema, to_json

from . import oneof_schema

__all__ = [
    "BinaryText",
    "ChoiceVariant",
    "DateTimeText",
    "DecimalText",
    "DurationText",
    "Int128Text",
    "Int16",
    "Int64Text",
    "Int8",
    "JsonPointer",
    "RequiredSets",
    "TaggedChoice",
    "TimeText",
    "TupleArray",
    "UInt128Text",
    "UInt16",
    "UInt64Text",
    "UInt8",
    "UniqueItems",
    "UriText",
]

#: JSON numbers of the small integer types (``int32``/``uint32`` are ``xrgen_runtime.formats``')
Int8 = Annotated[int, Field(ge=-(2**7), le=2**7 - 1)]
UInt8 = Annotated[int, Field(ge=0, le=2**8 - 1)]
Int16 = Annotated[int, Field(ge=-(2**15), le=2**15 - 1)]
UInt16 = Annotated[int, Field(ge=0, le=2**16 - 1)]

_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
_DECIMAL_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?\Z")
#: RFC 6901 (also in its URI fragment form, ``#/a/b``): ``/`` tokens, ``~`` only as ``~0``/``~1``
_POINTER = r"^#?(/([^~/]|~[01])*)*$"


def _text_in_json(kind: str, info: core_schema.ValidationInfo, value: Any) -> None:
    if info.mode == "json" and not isinstance(value, str):
        raise ValueError(f"a JSON Structure {kind} is a JSON string")


@dataclass(frozen=True, slots=True)
class _IntegerText:
    """An integer written as a JSON string, within ``[low, high]``."""

    kind: str
    low: int
    high: int
    #: digits of the synthesized examples' pattern (always within the bounds)
    digits: int

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            _text_in_json(self.kind, info, value)
            if isinstance(value, str):
                if not _INT_TEXT.match(value) or len(value) > 64:
                    raise ValueError(f"{value[:50]!r} is not {self.kind} text")
                return int(value)
            return value

        inner = core_schema.int_schema(ge=self.low, le=self.high)
        return core_schema.with_info_before_validator_function(
            before,
            inner,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _int_out, info_arg=True
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        sign = "-?" if self.low < 0 else ""
        return {
            "type": "string",
            "pattern": f"^{sign}(0|[1-9][0-9]{{0,{self.digits - 1}}})$",
        }


def _int_out(value: int, info: core_schema.SerializationInfo) -> Any:
    return str(value) if info.mode_is_json() else value


#: integer types written as JSON strings (model field types: ``int`` values)
Int64Text = Annotated[int, _IntegerText("int64", -(2**63), 2**63 - 1, 18)]
UInt64Text = Annotated[int, _IntegerText("uint64", 0, 2**64 - 1, 19)]
Int128Text = Annotated[int, _IntegerText("int128", -(2**127), 2**127 - 1, 38)]
UInt128Text = Annotated[int, _IntegerText("uint128", 0, 2**128 - 1, 38)]


@dataclass(frozen=True, slots=True)
class DecimalText:
    """A ``Decimal`` written as a JSON string, at most ``precision`` digits of which
    ``scale`` after the point (``Annotated[Decimal, DecimalText(10, 2)]``)."""

    precision: int = 34
    scale: int = 7

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            _text_in_json("decimal", info, value)
            if isinstance(value, str) and (
                len(value) > 200 or not _DECIMAL_TEXT.match(value)
            ):
                raise ValueError(f"{value[:50]!r} is not decimal text")
            return Decimal(value) if isinstance(value, str) else value

        inner = core_schema.decimal_schema(
            max_digits=self.precision,
            decimal_places=self.scale,
            allow_inf_nan=False,
            strict=False,
        )
        return core_schema.with_info_before_validator_function(
            before,
            inner,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _decimal_out, info_arg=True
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        whole = max(0, min(self.precision - self.scale, 15))
        ints = f"(0|[1-9][0-9]{{0,{whole - 1}}})" if whole else "0"
        frac = f"(\\.[0-9]{{1,{min(self.scale, 15)}}})?" if self.scale else ""
        return {"type": "string", "pattern": f"^-?{ints}{frac}$"}


def _decimal_out(value: Decimal, info: core_schema.SerializationInfo) -> Any:
    if not info.mode_is_json():
        return value
    text = format(value, "f")
    return text


_DECODERS: dict[str, Callable[[str], bytes]] = {
    "base64": lambda s: base64.b64decode(s, validate=True),
    "base64url": lambda s: base64.urlsafe_b64decode(s.encode("ascii")),
    "base16": lambda s: base64.b16decode(s, casefold=True),
    "base32": lambda s: base64.b32decode(s),
    "base32hex": lambda s: base64.b32hexdecode(s),
}
_ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "base64": base64.b64encode,
    "base64url": base64.urlsafe_b64encode,
    "base16": base64.b16encode,
    "base32": base64.b32encode,
    "base32hex": base64.b32hexencode,
}


@dataclass(frozen=True, slots=True)
class BinaryText:
    """``bytes`` written as text in ``encoding`` (``contentEncoding``: base64, the default,
    base64url, base16, base32, base32hex). A ``str`` given in Python is that text too.
    """

    encoding: str = "base64"

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        decode = _DECODERS.get(self.encoding, _DECODERS["base64"])
        encode = _ENCODERS.get(self.encoding, _ENCODERS["base64"])

        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            _text_in_json("binary", info, value)
            if isinstance(value, str):
                try:
                    return decode(value)
                except (binascii.Error, ValueError):
                    raise ValueError(f"not {self.encoding} text") from None
            return value

        def out(value: bytes, info: core_schema.SerializationInfo) -> Any:
            return encode(value).decode("ascii") if info.mode_is_json() else value

        return core_schema.with_info_before_validator_function(
            before,
            core_schema.bytes_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(
                out, info_arg=True
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "contentEncoding": self.encoding, "format": "base64"}


_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)
_DURATION: TypeAdapter[timedelta] = TypeAdapter(timedelta)


def _lax(adapter: TypeAdapter[Any], value: Any, kind: str) -> Any:
    """``value`` read by ``adapter`` without strictness when it is text (the call that
    validates the model may be strict, which refuses text for these types)."""
    if not isinstance(value, str):
        return value
    try:
        return adapter.validate_python(value)
    except ValidationError:
        raise ValueError(f"{value[:50]!r} is not {kind} text") from None


class _DateTimeText:
    """A ``datetime`` with an offset: JSON text must carry one; a naive Python value is UTC."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def after(value: datetime, info: core_schema.ValidationInfo) -> datetime:
            if value.tzinfo is None:
                if info.mode == "json":
                    raise ValueError(
                        "a JSON Structure datetime has an offset (RFC 3339)"
                    )
                return value.replace(tzinfo=timezone.utc)
            return value

        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            _text_in_json("datetime", info, value)
            return _lax(_DATETIME, value, "datetime")

        return core_schema.with_info_before_validator_function(
            before,
            core_schema.with_info_after_validator_function(
                after, core_schema.datetime_schema(strict=False)
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "date-time"}


class _DurationText:
    """A ``timedelta`` written as ISO 8601 duration text (``P1DT2H``)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            _text_in_json("duration", info, value)
            return _lax(_DURATION, value, "duration")

        return core_schema.with_info_before_validator_function(
            before, core_schema.timedelta_schema(strict=False)
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "duration"}


#: a date and time with offset (``datetime``; model field type)
DateTimeText = Annotated[datetime, _DateTimeText()]
#: a duration (``timedelta``; model field type)
DurationText = Annotated[timedelta, _DurationText()]
#: a JSON Pointer (RFC 6901)
JsonPointer = Annotated[str, Field(pattern=_POINTER)]
#: a time of day (``time``; examples are synthesized without offset, as ``HH:MM:SS``)
TimeText = Annotated[
    time,
    WithJsonSchema(
        {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$"}
    ),
]
#: a URI reference (``str``; examples are synthesized as absolute URIs)
UriText = Annotated[str, WithJsonSchema({"type": "string", "format": "uri"})]


class _UniqueItems:
    """A ``set``: a list whose items are distinct (compared by their JSON form)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def after(value: list[Any]) -> list[Any]:
            seen: set[bytes] = set()
            for item in value:
                key = to_json(item)
                if key in seen:
                    raise ValueError("a set holds each item once")
                seen.add(key)
            return value

        return core_schema.no_info_after_validator_function(after, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler(schema)
        out["uniqueItems"] = True
        return out


#: the annotation of a ``set``'s list: ``Annotated[list[T], UniqueItems]``
UniqueItems = _UniqueItems()


class _TupleArray:
    """A ``tuple`` (a ``NamedTuple`` in the model) is a JSON array: pydantic would also read
    a JSON object of its members."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def before(value: Any, info: core_schema.ValidationInfo) -> Any:
            if info.mode == "json" and not isinstance(value, list):
                raise ValueError("a JSON Structure tuple is a JSON array")
            return value

        return core_schema.with_info_before_validator_function(before, handler(source))


#: the annotation of a ``tuple``'s ``NamedTuple``: ``Annotated[Point, TupleArray]``
TupleArray = _TupleArray()


def _exactly_one_of(
    cls: type[BaseModel], schema: JsonSchemaValue, sets: list[list[str]]
) -> JsonSchemaValue:
    """``schema`` (an object's) stating that exactly one of ``sets`` (field names) is
    present: ``oneOf`` of their ``required`` lists, and the members not in every set
    pairwise exclusive (the clause ``formats.oneof_schema`` writes), as the example
    synthesizers of ``xrgen_runtime.testing`` read them."""

    fields = cls.model_fields
    wire = [[fields[n].alias or n if n in fields else n for n in s] for s in sets]
    common = set(wire[0]).intersection(*wire[1:]) if wire else set()
    apart = [m for s in wire for m in s if m not in common]
    out = dict(schema)
    out["oneOf"] = [{"required": list(s)} for s in wire]
    out.update(oneof_schema({"sets": list(dict.fromkeys(apart))}))
    return out


class TaggedChoice(BaseModel):
    """A ``choice`` without selector: a JSON object with exactly one member, named after the
    chosen type (every member is optional in the model; exactly one must be given)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _one_member(self) -> TaggedChoice:
        given = self.model_fields_set
        if len(given) != 1:
            names = ", ".join(f.alias or n for n, f in type(self).model_fields.items())
            raise ValueError(
                f"a choice has exactly one of {names} ({len(given)} given)"
            )
        return self

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler.resolve_ref_schema(handler(schema))
        return _exactly_one_of(cls, out, [[n] for n in cls.model_fields])


class ChoiceVariant(BaseModel):
    """A member type of a ``choice`` with a ``selector``: the selector field (named by
    ``xrgen_selector``) has the member's name as its default and is always written."""

    xrgen_selector: ClassVar[str] = ""

    def model_post_init(self, context: Any, /) -> None:
        if self.xrgen_selector:
            self.model_fields_set.add(self.xrgen_selector)


class RequiredSets(BaseModel):
    """An object whose ``required`` lists alternative sets of members: exactly one set is
    fully present (``xrgen_required_sets`` holds the sets by field name)."""

    xrgen_required_sets: ClassVar[tuple[tuple[str, ...], ...]] = ()

    @model_validator(mode="after")
    def _one_set(self) -> RequiredSets:
        given = self.model_fields_set
        complete = [s for s in self.xrgen_required_sets if given.issuperset(s)]
        if self.xrgen_required_sets and len(complete) != 1:
            sets = "; ".join(", ".join(s) for s in self.xrgen_required_sets)
            raise ValueError(
                f"exactly one set of required members is present: {sets}"
                f" ({len(complete)} are)"
            )
        return self

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler.resolve_ref_schema(handler(schema))
        return _exactly_one_of(cls, out, [list(s) for s in cls.xrgen_required_sets])
