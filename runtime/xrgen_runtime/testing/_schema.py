"""What the example factory and the hypothesis strategy share: finding a message, the
keyword parameters of its producer method, the split of overrides, the JSON Schema subset
that pydantic's ``model_json_schema()`` emits, and example values of string formats."""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

from pydantic import BaseModel, RootModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from .._definitions import AttrDef, MessageDef
from .._event import Event


class MessageInfoLike(Protocol):
    """A generated package's ``MessageInfo`` (``MESSAGES[id]``)."""

    @property
    def definition(self) -> MessageDef: ...

    @property
    def create(self) -> Callable[..., Event[Any]]: ...


class ExampleError(ValueError):
    """No valid example could be built for a message (the reason says why)."""


#: an example value of each string ``format`` pydantic emits or a catalog's schema may use
FORMATS: dict[str, str] = {
    "date-time": "2024-05-06T07:08:09Z",
    "date": "2024-05-06",
    "time": "07:08:09Z",
    "duration": "PT1S",
    "uuid": "12345678-1234-4234-8234-123456789abc",
    "uuid1": "a8098c1a-f86e-11da-bd1a-00112444be1e",
    "uuid3": "6fa459ea-ee8a-3ca4-894e-db77e160355e",
    "uuid4": "12345678-1234-4234-8234-123456789abc",
    "uuid5": "886313e1-3b8a-5372-9b90-0c9aee199e5d",
    "email": "a@example.com",
    "idn-email": "a@example.com",
    "uri": "https://example.com/x",
    "iri": "https://example.com/x",
    "uri-reference": "/x",
    "iri-reference": "/x",
    "uri-template": "https://example.com/{x}",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "ipvanyaddress": "192.0.2.1",
    "ipvanyinterface": "192.0.2.1/24",
    "ipvanynetwork": "192.0.2.0/24",
    "json-pointer": "/x",
    "relative-json-pointer": "0/x",
    "regex": "x+",
    "base64": "ZXhhbXBsZQ==",
    "base64url": "ZXhhbXBsZQ==",
    "binary": "example",
    "password": "example",
    "multi-host-uri": "https://example.com/x",
}


#: decimals beyond this many whole digits are not synthesized (floats keep 15 significant ones)
_DECIMAL_WHOLE_DIGITS = 12


class SynthesisSchema(GenerateJsonSchema):
    """The JSON Schema the synthesizers read: pydantic's, but a ``Decimal`` is a JSON number
    that states its ``max_digits``/``decimal_places`` as bounds and ``multipleOf`` (pydantic
    emits ``number or string`` without them)."""

    def decimal_schema(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue:
        def number(key: str) -> float | None:
            value = schema.get(key)
            return float(value) if isinstance(value, Decimal | int | float) else None

        out = self.float_schema(
            core_schema.float_schema(
                multiple_of=number("multiple_of"),
                le=number("le"),
                ge=number("ge"),
                lt=number("lt"),
                gt=number("gt"),
            )
        )
        digits = schema.get("max_digits")
        places = schema.get("decimal_places")
        if places is None and digits is not None:
            places = 0
        if places is not None:
            out.setdefault("multipleOf", float(Decimal(1).scaleb(-places)))
        whole = (digits - (places or 0)) if digits is not None else None
        if whole is not None or "multipleOf" in out:
            whole = min(_DECIMAL_WHOLE_DIGITS, whole if whole is not None else 99)
            limit = float(Decimal(10) ** whole - Decimal(1).scaleb(-(places or 0)))
            out["maximum"] = min(out.get("maximum", limit), limit)
            out["minimum"] = max(out.get("minimum", -limit), -limit)
        return out


def payload_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of ``model`` the synthesizers read (see :class:`SynthesisSchema`)."""
    return model.model_json_schema(schema_generator=SynthesisSchema)


def multiple(n: int | float, step: int | float) -> int | float:
    """``n * step`` rounded to the decimal places of ``step`` (``3 * 0.1`` is ``0.3``)."""
    if isinstance(step, int):
        return n * step
    exponent = Decimal(repr(step)).as_tuple().exponent
    places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return round(n * step, places)


#: string formats whose example is plain text, so length bounds may reshape it
PLAIN_FORMATS = frozenset({"binary", "password"})


def messages_of(package_or_messages: Any) -> Mapping[str, MessageInfoLike]:
    """``MESSAGES`` of a generated package, or the mapping itself."""
    messages = getattr(package_or_messages, "MESSAGES", package_or_messages)
    if not isinstance(messages, Mapping):
        raise TypeError(
            "pass a generated package (with MESSAGES) or its MESSAGES mapping, "
            f"not {type(package_or_messages).__name__}"
        )
    return messages


def message(package_or_messages: Any, message_id: str) -> MessageInfoLike:
    messages = messages_of(package_or_messages)
    try:
        return messages[message_id]
    except KeyError:
        known = ", ".join(sorted(messages)[:20])
        raise KeyError(f"unknown message id {message_id!r}; known: {known}") from None


class Parameter:
    """A keyword parameter of a producer method: a placeholder or an extension attribute."""

    __slots__ = ("name", "kind", "attribute")

    def __init__(self, name: str, kind: str, attribute: AttrDef | None) -> None:
        self.name = name
        #: ``str``, ``int``, ``bool``, ``datetime`` or ``bytes``
        self.kind = kind
        #: the CloudEvents attribute it sets, when it is one
        self.attribute = attribute


_KINDS: dict[object, str] = {
    str: "str",
    int: "int",
    bool: "bool",
    datetime: "datetime",
    bytes: "bytes",
}
_ATTRIBUTE_KINDS = {
    "integer": "int",
    "boolean": "bool",
    "timestamp": "datetime",
    "binary": "bytes",
}


def _kind(annotation: object) -> str:
    """The value kind of a parameter annotation (``str | None`` -> ``str``)."""
    if isinstance(annotation, str):  # unresolved: read the text
        for kind in ("datetime", "bool", "int", "bytes"):
            if kind in annotation:
                return kind
        return "str"
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _kind(args[0]) if args else "str"
    return _KINDS.get(annotation, "str")


def parameters(info: MessageInfoLike) -> tuple[list[Parameter], set[str]]:
    """The keyword parameters of ``info.create`` to fill (all keyword-only ones but ``id``
    and ``time``), and the names of all its parameters."""
    create = info.create
    signature = inspect.signature(create)
    try:
        hints = typing.get_type_hints(create)
    except Exception:  # an annotation that does not resolve: read the texts
        hints = {}
    attributes = {a.name: a for a in info.definition.attributes}
    found: list[Parameter] = []
    for name, p in signature.parameters.items():
        if p.kind is not p.KEYWORD_ONLY or name in ("id", "time"):
            continue
        attribute = attributes.get(name) or attributes.get(name.rstrip("_"))
        kind = _kind(hints.get(name, p.annotation))
        if attribute is not None and attribute.kind in _ATTRIBUTE_KINDS:
            kind = _ATTRIBUTE_KINDS[attribute.kind]
        found.append(Parameter(name, kind, attribute))
    return found, set(signature.parameters)


def split_overrides(
    info: MessageInfoLike, names: set[str], overrides: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(arguments of create, payload fields)``: an override named like a parameter of
    ``create`` (``data``, a placeholder, an extension, ``id``, ``time``) is an argument, any
    other one a payload field (by field name or alias)."""
    arguments = {k: v for k, v in overrides.items() if k in names}
    fields = {k: v for k, v in overrides.items() if k not in names}
    model = info.definition.model
    if fields:
        if "data" in arguments:
            raise TypeError(f"payload fields {sorted(fields)} given with data=")
        if model is None or issubclass(model, RootModel):
            raise TypeError(
                f"{info.definition.id}: {sorted(fields)} are not parameters of its "
                "producer method and its payload has no fields; pass data="
            )
        fields = {wire_name(model, k): v for k, v in fields.items()}
    return arguments, fields


def wire_name(model: type[BaseModel], name: str) -> str:
    """The JSON member name of field ``name`` (its alias), or ``name`` itself."""
    f = model.model_fields.get(name)
    if f is not None and isinstance(f.alias, str):
        return f.alias
    if f is None and not any(x.alias == name for x in model.model_fields.values()):
        raise TypeError(f"{model.__name__} has no field {name!r}")
    return name


def resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with its local ``$ref`` replaced by the target (sibling keywords kept)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        return dict(schema)
    if not ref.startswith("#"):
        raise ExampleError(f"non-local $ref {ref!r}")
    target: Any = root
    for token in [t for t in ref[1:].split("/") if t]:
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, Mapping) or token not in target:
            raise ExampleError(f"unresolvable $ref {ref!r}")
        target = target[token]
    merged = dict(target)
    merged.update((k, v) for k, v in schema.items() if k != "$ref")
    return resolve(merged, root) if "$ref" in merged else merged


def merge_all_of(schema: Mapping[str, Any], root: Mapping[str, Any]) -> dict[str, Any]:
    """``allOf`` folded into one schema (properties and required lists united)."""
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema["allOf"]:
        part = resolve(part, root)
        if "allOf" in part:
            part = merge_all_of(part, root)
        for key, value in part.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def simple_type(schema: Mapping[str, Any]) -> str | None:
    """The schema's ``type`` (the first non-null one of a list), or what its keywords
    imply; ``None`` for a schema that accepts anything."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if kinds else "null"
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if "pattern" in schema or "format" in schema or "minLength" in schema:
        return "string"
    return None


def exclusive_groups(schema: Mapping[str, Any]) -> list[list[str]]:
    """Groups of members of an object schema of which at most one may be set, read from
    the clause ``xrgen_runtime.formats.oneof_schema`` writes (Protobuf ``oneof``):
    ``{"not": {"anyOf": [{"required": [a, b], ...}, ...]}}``."""
    clause = schema.get("not")
    options = clause.get("anyOf") if isinstance(clause, Mapping) else None
    if not isinstance(options, list):
        return []
    linked: dict[str, list[str]] = {}
    for option in options:
        pair = option.get("required") if isinstance(option, Mapping) else None
        if isinstance(pair, list) and len(pair) == 2:
            a, b = pair
            linked.setdefault(a, []).append(b)
            linked.setdefault(b, []).append(a)
    groups: list[list[str]] = []
    placed: set[str] = set()
    for first in linked:  # connected components, in order of first mention
        if first in placed:
            continue
        group, todo = [], [first]
        while todo:
            member = todo.pop(0)
            if member not in placed:
                placed.add(member)
                group.append(member)
                todo.extend(linked[member])
        groups.append(group)
    return groups


def bounds(
    schema: Mapping[str, Any], integer: bool
) -> tuple[float | None, float | None]:
    """``(low, high)`` inclusive bounds of a number schema (exclusive ones stepped in)."""
    low = schema.get("minimum")
    high = schema.get("maximum")
    step = 1 if integer else 1e-3
    if "exclusiveMinimum" in schema:
        e = schema["exclusiveMinimum"]
        low = e + step if low is None else max(low, e + step)
    if "exclusiveMaximum" in schema:
        e = schema["exclusiveMaximum"]
        high = e - step if high is None else min(high, e - step)
    return low, high
