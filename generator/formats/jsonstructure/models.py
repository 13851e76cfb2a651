"""JSON Structure documents -> pydantic v2 source (the mapping table is in docs/formats.md).

One class per object, tuple (``NamedTuple``), tagged choice and string enum, declared where the
schema declares them (``definitions`` by pointer, inline ones by their property); ``$extends``
is Python inheritance; a choice with a ``selector`` is a discriminated union of one variant
class per choice. Field types hold JSON Structure's values exactly (``xrgen_runtime.formats.
jsonstructure``: ``int64`` as ``Int64Text``, ``decimal`` as ``Decimal`` with ``DecimalText``,
...). Declarations shared by several payloads of one document are emitted once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...literals import py_str, py_value
from ...model import ir
from ...naming import Scope, pascal, snake
from .._shared.models import (
    ALWAYS_RESERVED,
    RESERVED_MEMBERS,
    Diag,
    Imports,
    PayloadModels,
    claim_class,
    enum_member,
    model_docstring,
    permissive,
)
from .._shared.models import subclass as subclass_block
from .document import (
    PRIMITIVES,
    StructureError,
    extends,
    last_token,
    properties,
    ref_of,
    required_sets,
    resolve,
    root,
    tuple_members,
    validation_enabled,
)

#: a JSON Structure schema could not be mapped: the payload gets a permissive model
XRG_STRUCTURE_UNMAPPED = "XRG326"
#: a JSON Structure keyword that the generated model does not enforce
XRG_STRUCTURE_IGNORED = "XRG327"

_RT = "xrgen_runtime.formats.jsonstructure"
_FMT = "xrgen_runtime.formats"
#: primitive -> (module, name) of its model type (None: a builtin)
_PRIMITIVE_TYPES: dict[str, tuple[str | None, str]] = {
    "string": (None, "str"),
    "uri": (_RT, "UriText"),
    "number": (None, "float"),
    "double": (None, "float"),
    "float8": (None, "float"),
    "float": (_FMT, "Float32"),
    "boolean": (None, "bool"),
    "null": (None, "None"),
    "integer": (_FMT, "Int32"),
    "int32": (_FMT, "Int32"),
    "uint32": (_FMT, "UInt32"),
    "int8": (_RT, "Int8"),
    "uint8": (_RT, "UInt8"),
    "int16": (_RT, "Int16"),
    "uint16": (_RT, "UInt16"),
    "int64": (_RT, "Int64Text"),
    "uint64": (_RT, "UInt64Text"),
    "int128": (_RT, "Int128Text"),
    "uint128": (_RT, "UInt128Text"),
    "date": ("datetime", "date"),
    "time": (_RT, "TimeText"),
    "datetime": (_RT, "DateTimeText"),
    "duration": (_RT, "DurationText"),
    "uuid": ("uuid", "UUID"),
    "jsonpointer": (_RT, "JsonPointer"),
}
#: Validation-extension keywords -> pydantic ``Field`` argument, by the kind they apply to
_NUMBER_KEYWORDS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
}
_STRING_KEYWORDS = {"minLength": "min_length", "pattern": "pattern"}
_ARRAY_KEYWORDS = {"minItems": "min_length", "maxItems": "max_length"}
_PLAIN_NUMBERS = frozenset(
    {
        "number",
        "double",
        "float8",
        "integer",
        "int32",
        "uint32",
        "int8",
        "uint8",
        "int16",
    }
    | {"uint16"}
)
#: keywords of other extensions that the models do not enforce (reported once per schema)
_NOT_ENFORCED = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$offers")
#: names the models module may import; nested classes never take them
RESERVED = ALWAYS_RESERVED | frozenset(
    {
        "ClassVar", "Literal", "NamedTuple", "TaggedChoice", "ChoiceVariant", "RequiredSets",
        "Int8", "UInt8", "Int16", "UInt16", "Int64Text", "UInt64Text", "Int128Text",
        "UInt128Text", "DecimalText", "BinaryText", "DateTimeText", "DurationText",
        "JsonPointer", "UniqueItems", "TimeText", "UriText", "TupleArray",
    }
)  # fmt: skip
_BASEMODEL_ATTRS = frozenset(
    n for n in dir(__import__("pydantic").BaseModel) if not n.startswith("__")
)
_FIELD_RESERVED = (
    _BASEMODEL_ATTRS
    | RESERVED
    | {"model_config", "xrgen_selector", "xrgen_required_sets", "mro"}
)
_TUPLE_RESERVED = frozenset({"count", "index"}) | RESERVED


@dataclass(slots=True)
class _Doc:
    """One payload's document while it is mapped."""

    document: dict[str, Any]
    signature: str
    location: str
    validation: bool
    ignored: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Class:
    name: str
    #: wire name -> field name, inherited ones included (objects only)
    fields: dict[str, str]


class StructureModule(PayloadModels):
    """JSON Structure payloads -> pydantic source (see the module doc)."""

    def __init__(
        self,
        payloads: Sequence[ir.Payload],
        imports: Imports,
        scope: Scope,
        diags: list[Diag],
    ) -> None:
        super().__init__(payloads, imports, scope, diags)
        self.blocks: list[str] = []
        #: (document signature, pointer) -> class of a declaration or inline type
        self.classes: dict[tuple[str, str], _Class] = {}
        self.building: set[tuple[str, str]] = set()
        for name in sorted(RESERVED):
            if name not in scope:
                scope.claim(name)

    def render(self) -> str:
        for p in self.payloads:
            mark = len(self.blocks)
            known = dict(self.classes)
            try:
                self._payload(p)
            except (
                StructureError,
                RecursionError,
                TypeError,
                ValueError,
                KeyError,
            ) as exc:
                del self.blocks[mark:]
                self.classes = known
                self.building.clear()
                text = (
                    str(exc)
                    if not isinstance(exc, RecursionError)
                    else "nested too deeply"
                )
                msg = f"JSON Structure schema could not be mapped ({text}); permissive model"
                self.diags.append((p.location, XRG_STRUCTURE_UNMAPPED, msg))
                self.blocks.append(permissive(p.model_name, self.imports, p.schema))
        return "\n\n\n".join(self.blocks)

    # -- payloads ---------------------------------------------------------------------
    def _payload(self, p: ir.Payload) -> None:
        document = p.schema
        if not isinstance(document, dict):
            raise StructureError("a JSON Structure document is a JSON object")
        sig = json.dumps(
            {k: v for k, v in document.items() if k != "$root"},
            sort_keys=True,
            default=str,
        )
        doc = _Doc(document, sig, p.location, validation_enabled(document))
        for k in _NOT_ENFORCED:
            if k in document:
                doc.ignored.add(k)
        ptr, node = root(document)
        kind = node.get("type")
        if kind == "tuple":  # a NamedTuple is no pydantic model: the payload wraps it
            name = claim_class(
                self.scope, p.model_name + "Tuple", p.location, self.diags
            )
            self._declared(doc, ptr, node, name)
        if kind in ("object", "choice") and not node.get("selector"):
            known = self.classes.get((sig, ptr))
            if known is not None:
                self.blocks.append(
                    subclass_block(p.model_name, known.name, node.get("description"))
                )
            else:
                self._declared(doc, ptr, node, p.model_name)
        else:
            rm = self.imports.use("pydantic", "RootModel")
            t = self._type(doc, node, ptr, p.model_name + "Value")
            doc_text = model_docstring(node.get("description"))
            lines = [f"class {p.model_name}({rm}[{t}]):"]
            lines += [f"    {doc_text}"] if doc_text else []
            lines.append(f"    root: {t}")
            self.blocks.append("\n".join(lines))
        if doc.ignored:
            keys = ", ".join(sorted(doc.ignored))
            self.diags.append(
                (
                    p.location,
                    XRG_STRUCTURE_IGNORED,
                    f"JSON Structure keywords not enforced by the model: {keys}",
                )
            )

    # -- declarations -------------------------------------------------------------------
    def _declared(
        self, doc: _Doc, ptr: str, node: dict[str, Any], name: str | None = None
    ) -> _Class:
        """The class of the object, tuple or tagged choice declared at ``ptr``."""
        key = (doc.signature, ptr)
        known = self.classes.get(key)
        if known is not None:
            return known
        if name is None:
            stem = (
                node.get("name")
                if isinstance(node.get("name"), str)
                else last_token(ptr)
            )
            name = claim_class(
                self.scope, pascal(str(stem) or "Type"), doc.location, self.diags
            )
        cls = _Class(name, {})
        self.classes[key] = cls
        kind = node.get("type")
        if kind == "object":
            self.blocks.append(self._object(doc, ptr, node, cls))
        elif kind == "tuple":
            self.blocks.append(self._tuple(doc, ptr, node, cls))
        elif kind == "choice":
            self.blocks.append(self._tagged(doc, ptr, node, cls))
        else:
            raise StructureError(f"{ptr}: a {kind!r} is not a class")
        return cls

    def _object(self, doc: _Doc, ptr: str, node: dict[str, Any], cls: _Class) -> str:
        bases: list[str] = []
        for ref in extends(node):
            bptr, bnode = resolve(doc.document, ref)
            if bnode.get("type") != "object":
                raise StructureError(f"{ptr}: $extends {ref!r} is not an object type")
            if (doc.signature, bptr) in self.building:
                raise StructureError(f"{ptr}: $extends cycle through {ref!r}")
            base = self._declared(doc, bptr, bnode)
            bases.append(base.name)
            for wire, py in base.fields.items():
                cls.fields.setdefault(wire, py)
        always, sets = required_sets(node)
        config = ["populate_by_name=True", "protected_namespaces=()"]
        extra = node.get("additionalProperties")
        extra_type = None
        if node.get("abstract") is True or extra is True:
            config.append('extra="allow"')
        elif extra is False:
            config.append('extra="forbid"')
        elif isinstance(extra, dict):
            config.append('extra="allow"')
            extra_type = self._type(
                doc, extra, ptr + "/additionalProperties", cls.name + "Extra"
            )
        if sets:
            bases.append(self.imports.use(_RT, "RequiredSets"))
        if not bases:
            bases.append(self.imports.use("pydantic", "BaseModel"))
        self.building.add((doc.signature, ptr))
        names = Scope(_FIELD_RESERVED | set(cls.fields.values()))
        body: list[str] = []
        cfg = self.imports.use("pydantic", "ConfigDict")
        body.append(f"model_config = {cfg}({', '.join(config)})")
        optional_in_sets = {m for s in sets for m in s} - always
        for wire, prop in properties(node).items():
            if not isinstance(prop, dict):
                raise StructureError(f"{ptr}: property {wire!r} is not a schema")
            py = cls.fields.get(wire) or _claim_field(names, wire)
            cls.fields[wire] = py
            required = wire in always and wire not in optional_in_sets
            where = f"{ptr}/properties/{wire}"
            body.append(self._field(doc, wire, py, prop, where, required))
        if extra_type is not None:
            fld = self.imports.use("pydantic", "Field")
            body.append(
                f"__pydantic_extra__: dict[str, {extra_type}] = {fld}(init=False)"
            )
        if sets:
            cv = self.imports.use("typing", "ClassVar")
            literal = py_value(
                tuple(tuple(cls.fields.get(m, snake(m)) for m in s) for s in sets)
            )
            body.append(
                f"xrgen_required_sets: {cv}[tuple[tuple[str, ...], ...]] = {literal}"
            )
        self.building.discard((doc.signature, ptr))
        return _class_block(cls.name, bases, node.get("description"), body)

    def _field(
        self,
        doc: _Doc,
        wire: str,
        py: str,
        prop: dict[str, Any],
        where: str,
        required: bool,
    ) -> str:
        t = self._type(doc, prop, where, wire)
        args: list[str] = []
        if not required:
            if not t.endswith("| None") and t != "None":
                t += " | None"
            args.append("default=None")
        if py != wire:
            args.append(f"alias={py_str(wire)}")
        if isinstance(prop.get("description"), str):
            args.append(f"description={py_str(prop['description'])}")
        if not args:
            return f"{py}: {t}"
        if args == ["default=None"]:
            return f"{py}: {t} = None"
        return f"{py}: {t} = {self.imports.use('pydantic', 'Field')}({', '.join(args)})"

    def _tuple(self, doc: _Doc, ptr: str, node: dict[str, Any], cls: _Class) -> str:
        order, props = tuple_members(node, ptr)
        names = Scope(_TUPLE_RESERVED)
        body = []
        for wire in order:
            py = _claim_field(names, str(wire).lstrip("_") or "item")
            body.append(
                f"{py}: {self._type(doc, props[wire], f'{ptr}/properties/{wire}', wire)}"
            )
        return _class_block(
            cls.name,
            [self.imports.use("typing", "NamedTuple")],
            node.get("description"),
            body,
        )

    def _tagged(self, doc: _Doc, ptr: str, node: dict[str, Any], cls: _Class) -> str:
        choices = node.get("choices")
        if not isinstance(choices, dict) or not choices:
            raise StructureError(f"{ptr}: a choice has 'choices'")
        names = Scope(_FIELD_RESERVED)
        cfg = self.imports.use("pydantic", "ConfigDict")
        body = [f"model_config = {cfg}(populate_by_name=True, protected_namespaces=())"]
        for wire, option in choices.items():
            if not isinstance(option, dict):
                raise StructureError(f"{ptr}: choice {wire!r} is not a schema")
            py = _claim_field(names, wire)
            cls.fields[wire] = py
            body.append(
                self._field(doc, wire, py, option, f"{ptr}/choices/{wire}", False)
            )
        return _class_block(
            cls.name,
            [self.imports.use(_RT, "TaggedChoice")],
            node.get("description"),
            body,
        )

    def _inline_union(
        self, doc: _Doc, ptr: str, node: dict[str, Any], hint: str
    ) -> str:
        """A choice with a selector: a union of one variant class per choice, told apart by
        the selector member."""
        choices = node.get("choices")
        selector = node.get("selector")
        if (
            not isinstance(choices, dict)
            or not choices
            or not isinstance(selector, str)
        ):
            raise StructureError(f"{ptr}: a choice with a selector has 'choices'")
        stem = pascal(str(node.get("name") or hint))
        variants: list[str] = []
        py_selector = ""
        for key, option in choices.items():
            vkey = (doc.signature, f"{ptr}/choices/{key}")
            known = self.classes.get(vkey)
            if known is None:
                ref = ref_of(option.get("type")) if isinstance(option, dict) else None
                if ref is None:
                    raise StructureError(
                        f"{ptr}: choice {key!r} refers to an object type"
                    )
                bptr, bnode = resolve(doc.document, ref)
                if bnode.get("type") != "object":
                    raise StructureError(f"{ptr}: choice {key!r} is not an object type")
                base = self._declared(doc, bptr, bnode)
                vname = claim_class(
                    self.scope, stem + pascal(key), doc.location, self.diags
                )
                known = _Class(vname, dict(base.fields))
                self.classes[vkey] = known
                names = Scope(_FIELD_RESERVED | set(base.fields.values()))
                py = known.fields.get(selector) or _claim_field(names, selector)
                known.fields[selector] = py
                cv = self.imports.use("typing", "ClassVar")
                lit = f"{self.imports.use('typing', 'Literal')}[{py_str(str(key))}]"
                fld = self.imports.use("pydantic", "Field")
                args = [py_str(str(key))] + (
                    [f"alias={py_str(selector)}"] if py != selector else []
                )
                body = [
                    f"xrgen_selector: {cv}[str] = {py_str(py)}",
                    f"{py}: {lit} = {fld}({', '.join(args)})",
                ]
                rt = self.imports.use(_RT, "ChoiceVariant")
                self.blocks.append(
                    _class_block(
                        vname, [base.name, rt], option.get("description"), body
                    )
                )
            variants.append(known.name)
            py_selector = known.fields[selector]
        ann = self.imports.use("typing", "Annotated")
        fld = self.imports.use("pydantic", "Field")
        union = " | ".join(variants)
        if len(variants) == 1:
            return union
        return f"{ann}[{union}, {fld}(discriminator={py_str(py_selector)})]"

    def _enum(self, doc: _Doc, ptr: str, node: dict[str, Any], hint: str) -> str:
        values = node.get("enum")
        assert isinstance(values, list)
        if not values:
            raise StructureError(f"{ptr}: an empty enum")
        if not all(isinstance(v, str) for v in values):
            return self._literal(values)
        key = (doc.signature, ptr)
        known = self.classes.get(key)
        if known is not None:
            return known.name
        stem = node.get("name") if isinstance(node.get("name"), str) else hint
        name = claim_class(self.scope, pascal(str(stem)), doc.location, self.diags)
        self.classes[key] = _Class(name, {})
        members = Scope(RESERVED_MEMBERS)
        lines = [
            f"{members.claim(enum_member(v))[0]} = {py_str(v)}"
            for v in dict.fromkeys(values)
        ]
        enum = "str, " + self.imports.use("enum", "Enum")
        self.blocks.append(_class_block(name, [enum], node.get("description"), lines))
        return name

    def _literal(self, values: list[Any]) -> str:
        if any(isinstance(v, (dict, list)) for v in values):
            raise StructureError("enum and const values are primitives")
        lit = self.imports.use("typing", "Literal")
        return f"{lit}[{', '.join(py_value(v) for v in dict.fromkeys(values))}]"

    # -- types ---------------------------------------------------------------------------
    def _type(self, doc: _Doc, node: Any, ptr: str, hint: str) -> str:
        """The annotation of values of the schema ``node`` (at ``ptr``)."""
        if not isinstance(node, dict):
            raise StructureError(f"{ptr}: not a schema")
        tv = node.get("type", node if "$ref" in node else None)
        ref = ref_of(tv)
        if ref is not None:
            return self._ref(doc, ref)
        if isinstance(tv, list):
            return self._union(doc, tv, ptr, hint)
        if not isinstance(tv, str):
            raise StructureError(f"{ptr}: no 'type'")
        if "const" in node:
            return self._literal([node["const"]])
        if isinstance(node.get("enum"), list):
            return self._enum(doc, ptr, node, hint)
        if tv in PRIMITIVES:
            return self._primitive(doc, tv, node)
        if tv == "object":
            return self._declared(doc, ptr, node).name
        if tv == "tuple":
            ann = self.imports.use("typing", "Annotated")
            name = self._declared(doc, ptr, node).name
            return f"{ann}[{name}, {self.imports.use(_RT, 'TupleArray')}]"
        if tv == "choice":
            if node.get("selector") is not None:
                return self._inline_union(doc, ptr, node, hint)
            return self._declared(doc, ptr, node).name
        if tv == "any":
            return self.imports.use("typing", "Any")
        if tv in ("array", "set"):
            item = self._type(doc, node.get("items"), ptr + "/items", hint + "Item")
            t = self._constrained(doc, f"list[{item}]", node, _ARRAY_KEYWORDS)
            if tv == "set" or (doc.validation and node.get("uniqueItems") is True):
                ann = self.imports.use("typing", "Annotated")
                return f"{ann}[{t}, {self.imports.use(_RT, 'UniqueItems')}]"
            return t
        if tv == "map":
            value = self._type(doc, node.get("values"), ptr + "/values", hint + "Value")
            return f"dict[str, {value}]"
        raise StructureError(f"{ptr}: unknown type {tv[:60]!r}")

    def _ref(self, doc: _Doc, ref: str) -> str:
        ptr, decl = resolve(doc.document, ref)
        if decl.get("abstract") is True:
            raise StructureError(f"{ref!r} is abstract and cannot be used as a type")
        return self._type(doc, decl, ptr, last_token(ptr) or "Type")

    def _union(self, doc: _Doc, members: list[Any], ptr: str, hint: str) -> str:
        out: list[str] = []
        for i, m in enumerate(members):
            t = self._type(doc, {"type": m}, f"{ptr}/type/{i}", hint)
            if t not in out:
                out.append(t)
        optional = "None" in out
        out = [t for t in out if t != "None"]
        if not out:
            return "None"
        t = out[0]
        if len(out) > 1:
            ann = self.imports.use("typing", "Annotated")
            fld = self.imports.use("pydantic", "Field")
            t = f"{ann}[{' | '.join(out)}, {fld}(union_mode=\"left_to_right\")]"
        return f"{t} | None" if optional else t

    def _primitive(self, doc: _Doc, kind: str, node: dict[str, Any]) -> str:
        if kind == "decimal":
            precision, scale = decimal_digits(node)
            ann = self.imports.use("typing", "Annotated")
            dec = self.imports.use("decimal", "Decimal")
            return f"{ann}[{dec}, {self.imports.use(_RT, 'DecimalText')}({precision}, {scale})]"
        if kind == "binary":
            encoding = node.get("contentEncoding", node.get("encoding", "base64"))
            ann = self.imports.use("typing", "Annotated")
            arg = "" if encoding == "base64" else py_str(str(encoding))
            return f"{ann}[bytes, {self.imports.use(_RT, 'BinaryText')}({arg})]"
        module, name = _PRIMITIVE_TYPES.get(kind, (None, "str"))
        t = name if module is None else self.imports.use(module, name)
        if kind == "string":
            keywords = dict(_STRING_KEYWORDS) if doc.validation else {}
            return self._constrained(
                doc, t, node, {"maxLength": "max_length", **keywords}
            )
        if kind in _PLAIN_NUMBERS:
            return self._constrained(doc, t, node, _NUMBER_KEYWORDS)
        if doc.validation:
            for k in (*_NUMBER_KEYWORDS, *_STRING_KEYWORDS):
                if k in node:
                    doc.ignored.add(k)
        return t

    def _constrained(
        self, doc: _Doc, t: str, node: dict[str, Any], keywords: dict[str, str]
    ) -> str:
        """``t`` with the ``Field`` constraints ``node`` states (``maxLength`` always; the
        Validation extension's keywords when the document enables it)."""
        args = []
        for k, arg in keywords.items():
            v = node.get(k)
            if v is None or (k != "maxLength" and not doc.validation):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise StructureError(f"{k} {v!r} is not a number or string")
            args.append(f"{arg}={py_value(v)}")
        if not args:
            return t
        ann = self.imports.use("typing", "Annotated")
        return f"{ann}[{t}, {self.imports.use('pydantic', 'Field')}({', '.join(args)})]"


def decimal_digits(node: dict[str, Any]) -> tuple[int, int]:
    """``(precision, scale)`` of a ``decimal`` (defaults 34 and 7, the scale at most the
    precision)."""
    precision = node.get("precision")
    scale = node.get("scale")
    p = (
        precision
        if isinstance(precision, int) and not isinstance(precision, bool)
        else 34
    )
    p = max(1, min(p, 1000))
    s = scale if isinstance(scale, int) and not isinstance(scale, bool) else min(7, p)
    return p, max(0, min(s, p))


def _claim_field(names: Scope, wire: str) -> str:
    py = snake(wire)
    return names.claim(py + "_" if py in names else py)[0]


def _class_block(name: str, bases: list[str], description: Any, body: list[str]) -> str:
    doc = model_docstring(description)
    lines = [f"class {name}({', '.join(bases)}):"]
    if doc:
        lines.append(f"    {doc}")
    lines += [f"    {line}" for line in body]
    if len(lines) == 1:
        lines.append("    pass")
    return "\n".join(lines)
