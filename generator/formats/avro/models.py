"""Avro schemas -> pydantic v2 source: records, enums, fixed, arrays, maps, unions, logical
types, defaults, named type reuse (the rules are in ``avro``'s module docstring)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...literals import py_str, py_value
from ...model import ir
from ...naming import Scope, pascal, snake
from .._shared.models import (
    RESERVED_MEMBERS,
    Diag,
    Imports,
    PayloadModels,
    claim_class,
    enum_member,
    model_docstring,
    permissive,
    subclass,
)

#: an Avro schema could not be mapped: the payload gets a permissive model
XRG_AVRO_UNMAPPED = "XRG322"

_PY_PRIMITIVES = {
    "null": "None",
    "boolean": "bool",
    "int": "int",
    "long": "int",
    "float": "float",
    "double": "float",
    "bytes": "bytes",
    "string": "str",
}
#: logical type -> (module, class)
_PY_LOGICAL = {
    "timestamp-millis": ("xrgen_runtime.formats.avro", "TimestampMillis"),
    "timestamp-micros": ("xrgen_runtime.formats.avro", "TimestampMicros"),
    "timestamp-nanos": ("xrgen_runtime.formats.avro", "TimestampMicros"),
    "local-timestamp-millis": ("xrgen_runtime.formats.avro", "LocalTimestampMillis"),
    "local-timestamp-micros": ("xrgen_runtime.formats.avro", "LocalTimestampMicros"),
    "local-timestamp-nanos": ("xrgen_runtime.formats.avro", "LocalTimestampMicros"),
    "date": ("datetime", "date"),
    "time-millis": ("xrgen_runtime.formats.avro", "TimeMillis"),
    "time-micros": ("xrgen_runtime.formats.avro", "TimeMicros"),
    "uuid": ("uuid", "UUID"),
    "decimal": ("decimal", "Decimal"),
}
#: Avro primitives whose model type holds exactly what the wire holds (xrgen_runtime.formats)
_RUNTIME_TYPES = {"int": "Int32", "long": "Int64", "float": "Float32"}
_NAMED = ("record", "error", "enum", "fixed")
_BASEMODEL_ATTRS = frozenset(
    n for n in dir(__import__("pydantic").BaseModel) if not n.startswith("__")
)
_MODULE_LOWER = frozenset({"date", "datetime", "time"})


class AvroError(ValueError):
    """An Avro schema that cannot be mapped."""


@dataclass(slots=True)
class _Named:
    fullname: str
    kind: str
    #: the definition with nested named types replaced by their full names
    flat: dict[str, Any]
    deps: set[str]
    cls: str = ""


class _AvroSchema:
    """One Avro payload schema: its named types, flattened, in definition order."""

    def __init__(self, schema: Any) -> None:
        self.named: dict[str, _Named] = {}
        self.root = self._collect(schema, "", None)

    def _collect(self, schema: Any, ns: str, owner: set[str] | None) -> Any:
        if isinstance(schema, str):
            if schema in _PY_PRIMITIVES:
                return schema
            full = self._resolve(schema, ns)
            if owner is not None:
                owner.add(full)
            return full
        if isinstance(schema, list):
            if not schema:
                raise AvroError("empty union")
            return [self._collect(s, ns, owner) for s in schema]
        if not isinstance(schema, dict) or "type" not in schema:
            raise AvroError(f"not an Avro schema: {json.dumps(schema)[:80]}")
        kind = schema["type"]
        if kind in _NAMED:
            full = self._define(schema, ns)
            if owner is not None:
                owner.add(full)
            return full
        if kind == "array":
            return {**schema, "items": self._collect(schema.get("items"), ns, owner)}
        if kind == "map":
            return {**schema, "values": self._collect(schema.get("values"), ns, owner)}
        if isinstance(kind, (dict, list)) or (isinstance(kind, str) and kind not in _PY_PRIMITIVES):
            return self._collect(kind, ns, owner)
        return schema

    def _resolve(self, name: str, ns: str) -> str:
        for candidate in (f"{ns}.{name}" if ns and "." not in name else name, name):
            if candidate in self.named:
                return candidate
        raise AvroError(f"unknown Avro type {name!r}")

    def _define(self, schema: dict[str, Any], ns: str) -> str:
        name = schema.get("name")
        if not isinstance(name, str) or not name:
            raise AvroError(f"named type without a name: {json.dumps(schema)[:80]}")
        if "." in name:
            space, _, short = name.rpartition(".")
        else:
            space, short = schema.get("namespace", ns) or "", name
        full = f"{space}.{short}" if space else short
        if full in self.named:
            raise AvroError(f"Avro type {full!r} is defined twice")
        flat = {k: v for k, v in schema.items() if k not in ("namespace", "fields", "aliases")}
        flat["name"] = full
        node = _Named(full, schema["type"], flat, set())
        self.named[full] = node
        if schema["type"] in ("record", "error"):
            fields = schema.get("fields")
            if not isinstance(fields, list):
                raise AvroError(f"record {full!r} has no fields list")
            flat["fields"] = [self._field(f, space, node.deps, full) for f in fields]
        elif schema["type"] == "enum" and not isinstance(schema.get("symbols"), list):
            raise AvroError(f"enum {full!r} has no symbols list")
        elif schema["type"] == "fixed" and not isinstance(schema.get("size"), int):
            raise AvroError(f"fixed {full!r} has no size")
        return full

    def _field(self, f: Any, ns: str, deps: set[str], record: str) -> dict[str, Any]:
        if not isinstance(f, dict) or not isinstance(f.get("name"), str) or "type" not in f:
            raise AvroError(f"bad field in record {record!r}: {json.dumps(f)[:80]}")
        return {
            **{k: v for k, v in f.items() if k != "aliases"},
            "type": self._collect(f["type"], ns, deps),
        }

    def closure(self, full: str) -> str:
        """A signature of a named type with everything it references (for cross-payload reuse)."""
        seen: set[str] = set()
        stack = [full]
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack.extend(self.named[n].deps)
        return json.dumps([[n, self.named[n].flat] for n in sorted(seen)], sort_keys=True)


class AvroModule(PayloadModels):
    """Avro payloads -> pydantic source; identical named types are emitted once."""

    def __init__(
        self,
        payloads: Sequence[ir.Payload],
        imports: Imports,
        scope: Scope,
        diags: list[Diag],
    ) -> None:
        super().__init__(payloads, imports, scope, diags)
        self.by_signature: dict[str, str] = {}
        self.blocks: list[str] = []

    def render(self) -> str:
        for p in self.payloads:
            mark = len(self.blocks)
            try:
                self._payload(p)
            except (AvroError, TypeError, ValueError, KeyError) as exc:
                del self.blocks[mark:]
                msg = f"Avro schema could not be mapped ({exc}); permissive model"
                self.diags.append((p.location, XRG_AVRO_UNMAPPED, msg))
                self.blocks.append(permissive(p.model_name, self.imports, p.schema))
        return "\n\n\n".join(self.blocks)

    def _payload(self, p: ir.Payload) -> None:
        parsed = _AvroSchema(p.schema)
        root = parsed.root
        root_record = (
            isinstance(root, str)
            and root in parsed.named
            and parsed.named[root].kind in ("record", "error")
        )
        pending: list[_Named] = []
        for node in parsed.named.values():
            sig = parsed.closure(node.fullname)
            known = self.by_signature.get(sig)
            if known is not None:
                node.cls = known
            elif node.fullname == root and root_record:
                node.cls = p.model_name
                self.by_signature[sig] = node.cls
                pending.append(node)
            else:
                node.cls = self._claim(pascal(node.fullname.rpartition(".")[2]), p.location)
                self.by_signature[sig] = node.cls
                pending.append(node)
        for node in _post_order(parsed, root, pending):
            self.blocks.append(self._named(node, parsed))
        if root_record and parsed.named[root].cls != p.model_name:
            self.blocks.append(
                subclass(
                    p.model_name,
                    parsed.named[root].cls,
                    parsed.named[root].flat.get("doc"),
                )
            )
        elif not root_record:
            rm = self.imports.use("pydantic", "RootModel")
            t = self._type(root, parsed)
            self.blocks.append(f"class {p.model_name}({rm}[{t}]):\n    root: {t}")

    def _claim(self, name: str, where: str) -> str:
        return claim_class(self.scope, name, where, self.diags)

    # -- classes ------------------------------------------------------------------
    def _named(self, node: _Named, parsed: _AvroSchema) -> str:
        doc = model_docstring(node.flat.get("doc"))
        head = [f"    {doc}"] if doc else []
        if node.kind == "enum":
            enum = "str, " + self.imports.use("enum", "Enum")
            members = Scope(RESERVED_MEMBERS)
            lines = [
                f"    {members.claim(enum_member(s))[0]} = {py_str(str(s))}"
                for s in node.flat["symbols"]
            ]
            return "\n".join([f"class {node.cls}({enum}):", *head, *(lines or ["    pass"])])
        if node.kind == "fixed":
            rm = self.imports.use("pydantic", "RootModel")
            t = self._type(node.fullname, parsed, expand_fixed=True)
            return "\n".join([f"class {node.cls}({rm}[{t}]):", *head, f"    root: {t}"])
        base = self.imports.use("pydantic", "BaseModel")
        cfg = self.imports.use("pydantic", "ConfigDict")
        lines = [f"class {node.cls}({base}):", *head]
        lines.append(f"    model_config = {cfg}(populate_by_name=True, protected_namespaces=())")
        names = Scope(_BASEMODEL_ATTRS | _MODULE_LOWER | {"model_config"})
        for f in node.flat["fields"]:
            lines.append("    " + self._field(f, parsed, names))
        return "\n".join(lines)

    def _field(self, f: dict[str, Any], parsed: _AvroSchema, names: Scope) -> str:
        wire = f["name"]
        py = snake(wire)
        py, _ = names.claim(py + "_" if py in names else py)
        t = self._type(f["type"], parsed)
        args: list[str] = []
        simple_default = None
        if "default" in f:
            literal = self._default(f["type"], f["default"], parsed)
            if _is_plain(f["type"], f["default"]):
                simple_default = literal
            else:
                args += [f"default={literal}", "validate_default=True"]
        if py != wire:
            args.append(f"alias={py_str(wire)}")
        if isinstance(f.get("doc"), str):
            args.append(f"description={py_str(f['doc'])}")
        if args:
            if simple_default is not None:
                args.insert(0, f"default={simple_default}")
            return f"{py}: {t} = {self.imports.use('pydantic', 'Field')}({', '.join(args)})"
        return f"{py}: {t}" + (f" = {simple_default}" if simple_default is not None else "")

    def _default(self, schema: Any, value: Any, parsed: _AvroSchema) -> str:
        branch = schema[0] if isinstance(schema, list) and schema else schema
        kind = self._kind(branch, parsed)
        if kind in ("bytes", "fixed") and isinstance(value, str):
            return repr(value.encode("latin-1"))
        return py_value(value)

    def _kind(self, schema: Any, parsed: _AvroSchema) -> str:
        if isinstance(schema, str):
            return schema if schema in _PY_PRIMITIVES else parsed.named[schema].kind
        if isinstance(schema, dict):
            return str(schema.get("type"))
        return "union"

    # -- types ----------------------------------------------------------------------
    def _type(self, schema: Any, parsed: _AvroSchema, expand_fixed: bool = False) -> str:
        if isinstance(schema, list):
            return self._union(schema, parsed)
        if isinstance(schema, str):
            if schema in _RUNTIME_TYPES:
                return self.imports.use("xrgen_runtime.formats", _RUNTIME_TYPES[schema])
            if schema in _PY_PRIMITIVES:
                return _PY_PRIMITIVES[schema]
            node = parsed.named[schema]
            if node.kind == "fixed" and (expand_fixed or node.flat.get("logicalType") == "decimal"):
                return self._fixed(node.flat)
            return node.cls
        kind = schema.get("type")
        logical = schema.get("logicalType")
        if kind == "array":
            return f"list[{self._type(schema['items'], parsed)}]"
        if kind == "map":
            return f"dict[str, {self._type(schema['values'], parsed)}]"
        if logical in _PY_LOGICAL and _logical_fits(logical, kind):
            return self._logical(logical, schema)
        return self._type(kind, parsed) if kind in _RUNTIME_TYPES else _PY_PRIMITIVES[kind]

    def _union(self, branches: list[Any], parsed: _AvroSchema) -> str:
        out: list[str] = []
        for b in branches:
            t = self._type(b, parsed)
            if t not in out:
                out.append(t)
        if "None" in out:
            out = [t for t in out if t != "None"] + ["None"]
        return " | ".join(out)

    def _logical(self, logical: str, schema: dict[str, Any]) -> str:
        module, name = _PY_LOGICAL[logical]
        t = self.imports.use(module, name)
        if logical == "decimal" and isinstance(schema.get("precision"), int):
            scale = schema.get("scale", 0)
            field_ = self.imports.use("pydantic", "Field")
            ann = self.imports.use("typing", "Annotated")
            return f"{ann}[{t}, {field_}(max_digits={schema['precision']}, decimal_places={int(scale)})]"
        return t

    def _fixed(self, flat: dict[str, Any]) -> str:
        if flat.get("logicalType") == "decimal":
            return self._logical("decimal", flat)
        size = int(flat["size"])
        field_ = self.imports.use("pydantic", "Field")
        ann = self.imports.use("typing", "Annotated")
        return f"{ann}[bytes, {field_}(min_length={size}, max_length={size})]"


def _post_order(parsed: _AvroSchema, root: Any, pending: list[_Named]) -> list[_Named]:
    """``pending`` named types, each after the types it references (cycles broken)."""
    todo = {n.fullname for n in pending}
    out: list[_Named] = []
    seen: set[str] = set()

    def visit(full: str) -> None:
        if full in seen:
            return
        seen.add(full)
        for dep in sorted(parsed.named[full].deps):
            visit(dep)
        if full in todo:
            out.append(parsed.named[full])

    for full in ([root] if isinstance(root, str) and root in parsed.named else []) + [
        n.fullname for n in pending
    ]:
        visit(full)
    return out


def _logical_fits(logical: str, kind: Any) -> bool:
    """Avro ignores a logical type on the wrong base type; so do we."""
    if logical == "decimal":
        return bool(kind in ("bytes", "fixed"))
    if logical == "uuid":
        return bool(kind in ("string", "fixed"))
    if logical in ("date", "time-millis"):
        return bool(kind == "int")
    return bool(kind == "long")


def _is_plain(schema: Any, value: Any) -> bool:
    """True when ``value`` can stand as a plain ``= literal`` default for ``schema``."""
    branch = schema[0] if isinstance(schema, list) and schema else schema
    if value is None:
        return True
    if isinstance(branch, str) and branch in (
        "boolean",
        "int",
        "long",
        "float",
        "double",
        "string",
    ):
        return True
    return False
