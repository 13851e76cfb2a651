"""Whether two JSON Schema payloads can accept the same value, and what a payload's schema
fixes about its values (the checks the Spark decoder reads to tell tied definitions apart).

The dispatcher gives an event that several definitions match on the wire to the first whose
payload model accepts it (``xrgen_runtime._dispatch``); XRG330 (``overlap``) stays silent only
for definitions whose payloads are :func:`disjoint`. The answer is conservative: ``True`` only
when no value can be valid against both, as the generated pydantic models validate (strict,
JSON input); any doubt is an overlap. A schema is read as a union of :class:`Shape`s:

- ``type`` (``integer`` and ``number`` are one family, ``number``), ``const`` / ``enum``
  (the values), ``required`` and ``properties``; ``nullable: true`` adds ``null``;
- ``allOf`` is the conjunction of its members (and of the schema's own keywords), ``anyOf``
  and ``oneOf`` the union of theirs; a ``$ref`` is its target, whatever stands beside it;
- everything else (``not``, ``if``, ``additionalProperties``, formats, bounds, patterns) is
  ignored: a shape is never narrower than its schema;
- a ``$ref`` that does not resolve in the document (another document, an anchor, a missing
  pointer) makes the whole payload unknown, as datamodel-code-generator then types it
  ``Any``; so does a shape that no value fits (the models may not see the contradiction);
  recursion and very large unions are read as "anything".

The models are wider than JSON Schema in two ways that count here: a ``Literal`` or an enum
member ``1`` (or ``0``) also takes ``true`` (``false``), as Python compares them equal, so
values compare with Python's ``==`` and ``true`` / ``false`` count as numbers too; and a
property that is not required is ``Optional``: ``null`` is accepted there.

Two shapes are disjoint when their types do not meet, when their values do not meet (or no
value of one has a type of the other), or when both are objects only and a property that one
of them requires has disjoint schemas in both (``null`` added where it is not required).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._shared.pointers import node_at, pointer_tokens

__all__ = ["ANY", "Shape", "Unknown", "disjoint", "read", "shapes_disjoint", "value_checks"]

#: the JSON types, ``integer`` folded into ``number``
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "string"})
#: unions larger than this are read as "anything"
_MAX_ALTERNATIVES = 64
_MAX_DEPTH = 32


class Unknown(Exception):
    """The schema cannot be read (an unresolved ``$ref``): any value may be valid."""


@dataclass(frozen=True)
class Shape:
    """What one alternative of a schema allows (``None``: no constraint)."""

    types: frozenset[str] | None = None
    values: tuple[Any, ...] | None = None
    required: frozenset[str] = frozenset()
    properties: Mapping[str, tuple[Shape, ...]] = field(default_factory=dict)


ANY: tuple[Shape, ...] = (Shape(),)
_NULL = Shape(types=frozenset({"null"}))


def _value_types(value: Any) -> frozenset[str]:
    """The JSON types of a value as the models compare it (``true`` is also ``1``)."""
    if value is None:
        return frozenset({"null"})
    if isinstance(value, bool):
        return frozenset({"boolean", "number"})
    if isinstance(value, (int, float)):
        return frozenset({"number", "boolean"}) if value in (0, 1) else frozenset({"number"})
    if isinstance(value, str):
        return frozenset({"string"})
    if isinstance(value, list):
        return frozenset({"array"})
    return frozenset({"object"})


def _declared_types(schema: Mapping[str, Any]) -> frozenset[str] | None:
    raw = schema.get("type")
    names = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else None
    if names is None:
        return None
    found = {"number" if n == "integer" else n for n in names if isinstance(n, str)}
    found &= _TYPES
    if schema.get("nullable") is True:
        found.add("null")
    return frozenset(found) if found else None


def _declared_values(schema: Mapping[str, Any]) -> tuple[Any, ...] | None:
    if "const" in schema:
        return (schema["const"],)
    values = schema.get("enum")
    if isinstance(values, list) and values:
        if schema.get("nullable") is True:
            values = [*values, None]
        return tuple(values)
    return None


def _meet(a: Shape, b: Shape) -> Shape | None:
    """The conjunction of two shapes (``None``: no value fits both)."""
    if a.types is None:
        types = b.types
    elif b.types is None:
        types = a.types
    else:
        types = a.types & b.types
    if a.values is None:
        values = b.values
    elif b.values is None:
        values = a.values
    else:
        values = tuple(v for v in a.values if any(_equal(v, w) for w in b.values))
    if values is not None and types is not None:
        values = tuple(v for v in values if _value_types(v) & types)
    if types == frozenset() or values == ():
        return None
    props = dict(a.properties)
    for name, shapes in b.properties.items():
        if name in props:
            met = _meet_all(props[name], shapes)
            if not met and name in a.required | b.required:
                return None
            # a property no value fits can still be absent: what the models then do with
            # it is not known
            props[name] = met or ANY
        else:
            props[name] = shapes
    return Shape(types, values, a.required | b.required, props)


def _meet_all(a: tuple[Shape, ...], b: tuple[Shape, ...]) -> tuple[Shape, ...]:
    """The conjunction of two unions (empty: no value fits both)."""
    if len(a) * len(b) > _MAX_ALTERNATIVES:
        return ANY
    out = [m for x, y in itertools.product(a, b) if (m := _meet(x, y)) is not None]
    return tuple(out)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - exotic values: assume they may be equal
        return True


class _Reader:
    """Reads the shapes of one schema document (``$ref``s resolve against ``root``)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        root_id = root.get("$id", root.get("id")) if isinstance(root, dict) else None
        self.base = root_id.split("#", 1)[0] if isinstance(root_id, str) else ""
        self.expanding: list[str] = []

    def shapes(self, schema: Any, depth: int = 0) -> tuple[Shape, ...]:
        if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return ANY
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return self._ref(ref, depth)
        own = Shape(
            _declared_types(schema),
            _declared_values(schema),
            frozenset(r for r in schema.get("required") or () if isinstance(r, str)),
            self._properties(schema, depth),
        )
        result: tuple[Shape, ...] = (own,)
        members = schema.get("allOf")
        if isinstance(members, list):
            for member in members:
                result = _meet_all(result, self.shapes(member, depth + 1))
        for key in ("anyOf", "oneOf"):
            members = schema.get(key)
            if isinstance(members, list) and members:
                union: list[Shape] = []
                for member in members:
                    union += self.shapes(member, depth + 1)
                if len(union) > _MAX_ALTERNATIVES:
                    return ANY
                result = _meet_all(result, tuple(union))
        if not result:
            raise Unknown("no value fits")
        return result

    def _properties(self, schema: Mapping[str, Any], depth: int) -> dict[str, tuple[Shape, ...]]:
        props = schema.get("properties")
        if not isinstance(props, Mapping):
            return {}
        return {str(n): self.shapes(s, depth + 1) for n, s in props.items()}

    def _ref(self, ref: str, depth: int) -> tuple[Shape, ...]:
        local = ref
        if self.base and ref.startswith(self.base):
            local = ref[len(self.base) :] or "#"
        if local != "#" and not local.startswith("#/"):
            raise Unknown(ref)
        target = node_at(self.root, pointer_tokens(local[2:]))
        if target is None:
            raise Unknown(ref)
        if local in self.expanding:
            return ANY  # recursion: read as anything
        self.expanding.append(local)
        try:
            return self.shapes(target, depth + 1)
        finally:
            self.expanding.pop()


def read(schema: Any) -> tuple[Shape, ...]:
    """The shapes of a payload schema (:data:`ANY` when it cannot be read)."""
    try:
        return _Reader(schema).shapes(schema)
    except (Unknown, RecursionError):
        return ANY


def disjoint(a: Any, b: Any) -> bool:
    """Whether no value can be valid against both JSON Schemas ``a`` and ``b`` (conservative:
    ``False`` when unsure)."""
    return shapes_disjoint(read(a), read(b))


def shapes_disjoint(a: tuple[Shape, ...], b: tuple[Shape, ...], depth: int = 0) -> bool:
    """:func:`disjoint` of two schemas already :func:`read`."""
    if depth > _MAX_DEPTH:
        return False
    return all(_disjoint(x, y, depth) for x in a for y in b)


def _disjoint(a: Shape, b: Shape, depth: int) -> bool:
    met = _meet(
        Shape(a.types, a.values),
        Shape(b.types, b.values),
    )
    if met is None:
        return True
    types = met.types
    if met.values is not None:
        kinds: frozenset[str] = frozenset().union(*(_value_types(v) for v in met.values))
        types = kinds if types is None else types & kinds
    if types != frozenset({"object"}):
        return False
    for name in sorted(a.required | b.required):
        if name in a.properties and name in b.properties:
            mine = a.properties[name] if name in a.required else (*a.properties[name], _NULL)
            theirs = b.properties[name] if name in b.required else (*b.properties[name], _NULL)
            if shapes_disjoint(mine, theirs, depth + 1):
                return True
    return False


def value_checks(schema: Any) -> tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]:
    """``(path, values)`` for every property that a value of ``schema`` must have, reached
    through required properties of objects, whose value must be one of ``values`` (its
    ``const`` / ``enum``; scalars only); empty when the schema is a union or cannot be read."""
    shapes = read(schema)
    if len(shapes) != 1:
        return ()
    out: list[tuple[tuple[str, ...], tuple[Any, ...]]] = []

    def visit(shape: Shape, path: tuple[str, ...]) -> None:
        for name in sorted(shape.required):
            found = shape.properties.get(name)
            if found is None or len(found) != 1 or len(path) >= _MAX_DEPTH:
                continue
            (sub,) = found
            values = sub.values
            if values is not None and all(_scalar(v) for v in values):
                out.append(((*path, name), values))
            elif sub.types == frozenset({"object"}):
                visit(sub, (*path, name))

    visit(shapes[0], ())
    return tuple(out)


def _scalar(value: Any) -> bool:
    """A string, boolean or finite number (what a check compares a column with)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int, bool))
