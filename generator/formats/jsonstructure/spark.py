"""Spark types of JSON Structure payloads, and how the Spark decoder reads them from JSON.

Types (``SCHEMAS``): ``object`` -> ``struct`` (inherited properties first, nullable unless
required), ``array``/``set`` -> ``array``, ``map`` -> ``map<string, T>``, ``tuple`` -> ``struct``
of its elements, a tagged ``choice`` -> ``struct`` of its options, a ``choice`` with a selector
-> ``struct`` of the selector and every variant's properties; ``int8`` -> ``byte``, ``uint8``
and ``int16`` -> ``short``, ``uint16`` and ``int32``/``integer`` -> ``integer``, ``uint32`` and
``int64`` -> ``long``, ``uint64`` -> ``decimal(20,0)``, ``decimal`` -> ``decimal(p,s)``
(``string`` beyond 38 digits), ``float``/``float8`` -> ``float``, ``number``/``double`` ->
``double``, ``date`` -> ``date``, ``datetime`` -> ``timestamp``, ``binary`` -> ``binary``,
``boolean`` as named; ``int128``/``uint128``, ``uuid``, ``uri``, ``time``, ``duration``,
``jsonpointer``, enums of strings and ``null`` -> ``string``; ``any``, unions of types with no
common Spark type and recursive references -> ``string`` holding the JSON text.

Reading (``STRUCTURE_READS``): ``from_json`` parses each payload with a *wire* type (64-bit and
larger integers and decimals as ``string``, small integers one size wider, tuples as
``array<string>``) and a conversion tree turns it into the payload type with native
expressions (``try_cast``, ``transform``, range and pattern checks); a value outside its type
(``"12x"`` for an ``int64``, 300 for a ``uint8``, a uuid that is not one, an enum value not
listed, a tagged choice with two options, a tuple of the wrong length) marks the payload
invalid. The tree's nodes are JSON (see ``xrgen_runtime.spark.structure``).
"""

from __future__ import annotations

from typing import Any

from .._shared.spark import STRING, SparkType, array, field, map_of, struct
from .document import (
    StructureError,
    extends,
    properties,
    ref_of,
    required_sets,
    resolve,
    root,
    tuple_members,
)
from .models import decimal_digits

#: JSON Structure primitive -> (Spark type, wire type, checks of the conversion leaf)
_UUID_RE = (
    "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$"
)
_INT_RE = "^-?(0|[1-9][0-9]*)$"
_UINT_RE = "^(0|[1-9][0-9]*)$"
_POINTER_RE = "^#?(/([^~/]|~[01])*)*$"
_PRIMITIVES: dict[str, tuple[SparkType, SparkType, dict[str, Any] | None]] = {
    "string": (STRING, STRING, None),
    "uri": (STRING, STRING, None),
    "time": (STRING, STRING, None),
    "duration": (STRING, STRING, None),
    "null": (STRING, STRING, None),
    "uuid": (STRING, STRING, {"re": _UUID_RE}),
    "jsonpointer": (STRING, STRING, {"re": _POINTER_RE}),
    "boolean": ("boolean", "boolean", None),
    "number": ("double", "double", None),
    "double": ("double", "double", None),
    "float": ("float", "float", None),
    "float8": ("float", "float", None),
    "int8": ("byte", "short", {"lo": -(2**7), "hi": 2**7 - 1, "to": "byte"}),
    "uint8": ("short", "short", {"lo": 0, "hi": 2**8 - 1}),
    "int16": ("short", "short", None),
    "uint16": ("integer", "integer", {"lo": 0, "hi": 2**16 - 1}),
    "integer": ("integer", "integer", None),
    "int32": ("integer", "integer", None),
    "uint32": ("long", "long", {"lo": 0, "hi": 2**32 - 1}),
    "int64": ("long", STRING, {"re": _INT_RE, "to": "long"}),
    "uint64": (
        "decimal(20,0)",
        STRING,
        {"re": _UINT_RE, "text": str(2**64 - 1), "to": "decimal(20,0)"},
    ),
    "int128": (
        STRING,
        STRING,
        {"re": _INT_RE, "text": str(2**127 - 1), "neg": str(2**127)},
    ),
    "uint128": (STRING, STRING, {"re": _UINT_RE, "text": str(2**128 - 1)}),
    "date": ("date", "date", None),
    "datetime": ("timestamp", "timestamp", None),
}
#: references followed at most this deep before a type is taken as recursive (JSON text)
_MAX_REFS = 64


class StructureMapper:
    """The Spark type, wire type and conversion tree of one JSON Structure document."""

    def __init__(self, document: Any) -> None:
        self.document = document
        self.active: list[str] = []
        #: a reference to a declaration being mapped (its values are JSON text)
        self.recursive = False

    def root_type(self) -> SparkType:
        return self.read()[0]

    def read(self) -> tuple[SparkType, SparkType, Any]:
        """``(type, wire type, conversion)`` of the root type (conversion ``None``: the
        wire type is the type and every parsed value is valid)."""
        ptr, node = root(self.document)
        self.active.append(ptr)
        try:
            return self.map(node, ptr)
        finally:
            self.active.pop()

    def map(self, node: Any, ptr: str) -> tuple[SparkType, SparkType, Any]:
        if not isinstance(node, dict):
            raise StructureError(f"{ptr}: not a schema")
        tv = node.get("type", node if "$ref" in node else None)
        ref = ref_of(tv)
        if ref is not None:
            return self.ref(ref)
        if isinstance(tv, list):
            return self.union(tv, ptr)
        if not isinstance(tv, str):
            raise StructureError(f"{ptr}: no 'type'")
        if tv in _PRIMITIVES or tv in ("decimal", "binary"):
            dtype, wire, leaf = self.primitive(tv, node)
            checks = dict(leaf or {})
            if "const" in node:
                checks["in"] = [node["const"]]
            elif isinstance(node.get("enum"), list):
                checks["in"] = list(node["enum"])
            if checks.get("in") is not None and not all(
                isinstance(v, (str, int, float, bool)) for v in checks["in"]
            ):
                del checks["in"]
            return dtype, wire, ({"k": "leaf", **checks} if checks else None)
        if tv == "object":
            return self.object(node, ptr)
        if tv in ("array", "set"):
            dtype, wire, conv = self.map(node.get("items"), ptr + "/items")
            return (
                array(dtype),
                array(wire),
                ({"k": "array", "e": conv} if conv else None),
            )
        if tv == "map":
            dtype, wire, conv = self.map(node.get("values"), ptr + "/values")
            return (
                map_of(dtype),
                map_of(wire),
                ({"k": "map", "v": conv} if conv else None),
            )
        if tv == "tuple":
            return self.tuple_(node, ptr)
        if tv == "choice":
            return self.choice(node, ptr)
        if tv == "any":
            return STRING, STRING, None
        raise StructureError(f"{ptr}: unknown type {tv[:60]!r}")

    def primitive(
        self, kind: str, node: dict[str, Any]
    ) -> tuple[SparkType, SparkType, Any]:
        if kind == "decimal":
            p, s = decimal_digits(node)
            whole = p - s
            ints = f"(0|[1-9][0-9]{{0,{whole - 1}}})" if whole > 0 else "0"
            frac = f"(\\.[0-9]{{1,{s}}})?" if s else ""
            leaf = {"re": f"^-?{ints}{frac}$"}
            if p > 38:
                return STRING, STRING, leaf
            return f"decimal({p},{s})", STRING, {**leaf, "to": f"decimal({p},{s})"}
        if kind == "binary":
            encoding = node.get("contentEncoding", node.get("encoding", "base64"))
            return (
                ("binary", "binary", None)
                if encoding == "base64"
                else (STRING, STRING, None)
            )
        return _PRIMITIVES[kind]

    def ref(self, ref: str) -> tuple[SparkType, SparkType, Any]:
        ptr, decl = resolve(self.document, ref)
        if ptr in self.active or len(self.active) >= _MAX_REFS:
            self.recursive = True
            return STRING, STRING, None
        self.active.append(ptr)
        try:
            return self.map(decl, ptr)
        finally:
            self.active.pop()

    def members(
        self, node: dict[str, Any], ptr: str
    ) -> list[tuple[str, Any, str, bool]]:
        """(wire name, schema, pointer, required) of an object's properties, inherited ones
        first (``$extends`` in order; the first definition of a name wins)."""
        out: dict[str, tuple[str, Any, str, bool]] = {}
        for ref in extends(node):
            bptr, base = resolve(self.document, ref)
            if bptr in self.active:
                raise StructureError(f"{ptr}: $extends cycle through {ref!r}")
            self.active.append(bptr)
            try:
                for m in self.members(base, bptr):
                    out.setdefault(m[0], m)
            finally:
                self.active.pop()
        always, sets = required_sets(node)
        optional = {m for s in sets for m in s} - always
        for name, prop in properties(node).items():
            if name not in out:
                required = name in always and name not in optional
                out[name] = (name, prop, f"{ptr}/properties/{name}", required)
        return list(out.values())

    def fields(
        self, members: list[tuple[str, Any, str, bool]]
    ) -> tuple[SparkType, SparkType, Any]:
        typed, wired, convs = [], [], []
        for name, prop, where, required in members:
            dtype, wire, conv = self.map(prop, where)
            typed.append(field(name, dtype, not required))
            wired.append(field(name, wire, True))
            if conv is not None:
                convs.append([name, conv])
        return (
            struct(typed),
            struct(wired),
            ({"k": "struct", "f": convs} if convs else None),
        )

    def object(
        self, node: dict[str, Any], ptr: str
    ) -> tuple[SparkType, SparkType, Any]:
        return self.fields(self.members(node, ptr))

    def tuple_(
        self, node: dict[str, Any], ptr: str
    ) -> tuple[SparkType, SparkType, Any]:
        order, props = tuple_members(node, ptr)
        typed, elements = [], []
        for name in order:
            dtype, wire, conv = self.map(props[name], f"{ptr}/properties/{name}")
            typed.append(field(name, dtype, False))
            elements.append([name, wire, conv])
        return struct(typed), array(STRING), {"k": "tuple", "e": elements}

    def choice(
        self, node: dict[str, Any], ptr: str
    ) -> tuple[SparkType, SparkType, Any]:
        choices = node.get("choices")
        if not isinstance(choices, dict) or not choices:
            raise StructureError(f"{ptr}: a choice has 'choices'")
        selector = node.get("selector")
        if not isinstance(selector, str):
            members = [(k, v, f"{ptr}/choices/{k}", False) for k, v in choices.items()]
            dtype, wire, conv = self.fields(members)
            return dtype, wire, {"k": "one", "f": list(choices), "inner": conv}
        merged: dict[str, tuple[str, Any, str, bool]] = {
            selector: (selector, {"type": "string", "enum": list(choices)}, ptr, True)
        }
        for key, option in choices.items():
            ref = ref_of(option.get("type")) if isinstance(option, dict) else None
            if ref is None:
                raise StructureError(f"{ptr}: choice {key!r} refers to an object type")
            bptr, base = resolve(self.document, ref)
            for name, prop, where, _ in self.members(base, bptr):
                merged.setdefault(name, (name, prop, where, False))
        return self.fields(list(merged.values()))

    def union(self, members: list[Any], ptr: str) -> tuple[SparkType, SparkType, Any]:
        mapped = [
            self.map({"type": m}, f"{ptr}/type/{i}")
            for i, m in enumerate(members)
            if m != "null"
        ]
        kinds = {str(t) for t, _, _ in mapped}
        if len(kinds) == 1:
            return mapped[0]
        return STRING, STRING, None
