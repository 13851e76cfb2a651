"""Avro payloads: spellings, content types, checks, pydantic models and Spark types.

Models: our own mapping straight to pydantic v2 source (records, enums, fixed, arrays, maps,
unions, logical types, defaults, named type reuse). Field types hold what the wire holds:
``Int32``/``Int64``/``Float32``, ``TimestampMillis``/``TimestampMicros`` (UTC when no zone is
given), and the zone-less ``LocalTimestampMillis``/
``LocalTimestampMicros``/``TimeMillis``/``TimeMicros`` of ``xrgen_runtime.formats.avro``; a
``decimal`` is a ``Decimal`` with ``max_digits``/``decimal_places``. The wire bytes are Avro binary of the
catalog's writer schema when the content type is Avro (``avro/binary`` is inferred when the
catalog declares none) and JSON when it declares a JSON content type; the runtime codec is
``xrgen_runtime.formats.avro``.

Spark types, rules (mirroring Spark's ``SchemaConverters``): ``record`` -> ``struct``; ``enum`` ->
``string``; ``array`` / ``map`` -> ``array`` / ``map<string, T>``; ``fixed`` / ``bytes`` ->
``binary``; ``int`` -> ``integer``; ``long``, ``float``, ``double``, ``boolean``, ``string``
as named; ``null`` -> nullable ``string``; unions with ``null`` -> the other type, nullable;
``[int, long]`` -> ``long``; ``[float, double]`` -> ``double``; other unions -> ``struct`` of
nullable ``member0``, ``member1``, ...; logical types ``timestamp-millis``/``-micros`` ->
``timestamp``, ``local-timestamp-*`` -> ``timestamp_ntz``, ``date`` -> ``date``, ``decimal``
-> ``decimal(p,s)``, ``uuid`` -> ``string``. Named types are resolved by full name; a recursive
reference becomes ``string``.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xrgen_runtime.formats import AVRO_MEDIA_TYPES

from .. import ir
from ..literals import py_str, py_value
from ..naming import Scope, pascal, snake
from ._models import (
    Diag,
    Imports,
    claim_class,
    model_docstring,
    permissive,
    subclass,
)
from ._spark import STRING, SparkType, array, field, map_of, struct

#: the format family id (``ir.Payload.format``)
NAME = "avro"
SPELLINGS = frozenset({"avro", "apache-avro", "avsc"})
#: payload models are generated (others keep their data as bytes)
MODELED = True
TITLE = "Avro schema"
#: the content type inferred when the catalog declares none (the media type Avro's own
#: specification and the CloudEvents Kafka examples use for Avro binary)
CONTENT_TYPE = "avro/binary"
#: media types read as Avro binary (parameters and case ignored)
MEDIA_TYPES = AVRO_MEDIA_TYPES
#: framings of Avro binary on the wire (see ``xrgen_runtime.formats.avro``)
FRAMINGS = ("plain", "single-object", "confluent")

#: an Avro schema could not be mapped: the payload gets a permissive model
XRG_AVRO_UNMAPPED = "XRG322"

Data = dict[str, Any]


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes Avro binary."""
    if content_type is None:
        return False
    return content_type.split(";", 1)[0].strip().lower() in MEDIA_TYPES


def guess(schema: Any) -> bool:
    """An unlabelled schema that looks like Avro: a named type or a union."""
    if isinstance(schema, dict):
        return schema.get("type") in ("record", "enum", "fixed") and "name" in schema
    return isinstance(schema, list)


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every Avro payload; identical named types are emitted once."""
    return _AvroModule(payloads, imports, scope, diags).render()


def spark_type(schema: Any) -> SparkType:
    """The Spark type of values of the Avro schema ``schema`` (see module rules)."""
    return _AvroMapper().map(schema, "")[0]


def runtime_codec(
    payload: ir.Payload, messages: Sequence[ir.Message], options: Any
) -> tuple[str, str] | None:
    """``(class name in xrgen_runtime.formats.avro, constructor expression)`` of the codec of
    ``payload`` when some of ``messages`` carry it as Avro binary, else ``None``."""
    from . import wire_format

    avro_messages = [m for m in messages if wire_format(NAME, m.datacontenttype) == NAME]
    if not avro_messages:
        return None
    default = options.avro_framing
    overrides = dict(options.avro_framing_messages)
    by_type = {
        m.ce_type: overrides[m.id]
        for m in avro_messages
        if m.ce_type is not None and overrides.get(m.id, default) != default
    }
    model = f"models.{payload.model_name}"
    schema = json.dumps(payload.schema, separators=(",", ":"), sort_keys=False, ensure_ascii=False)
    args = [model, py_str(schema)]
    if default != "plain":
        args.append(f"framing={py_str(default)}")
    if by_type:
        args.append(f"framing_by_type={py_value(dict(sorted(by_type.items())))}")
    return "AvroCodec", f"AvroCodec({', '.join(args)})"


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """Structural checks of an embedded Avro schema (XRG151)."""
    for p, msg in avro_problems(schema):
        diags.error("XRG151", file, ptr + p, f"invalid Avro schema: {msg}")


def named_type(schema: Any, name: str) -> Any:
    """The Avro named type ``name`` (short or full name) inside ``schema``, or None."""
    if isinstance(schema, dict):
        full = ".".join(
            x for x in (schema.get("namespace"), schema.get("name")) if isinstance(x, str)
        )
        if name in (schema.get("name"), full):
            return schema
        children: list[Any] = list(schema.get("fields") or []) + [
            schema.get("type"),
            schema.get("items"),
            schema.get("values"),
        ]
        for child in children:
            found = named_type(child, name)
            if found is not None:
                return found
    elif isinstance(schema, list):
        for child in schema:
            found = named_type(child, name)
            if found is not None:
                return found
    return None


# --------------------------------------------------------------------------- models

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


class _AvroModule:
    """Avro payloads -> pydantic source; identical named types are emitted once."""

    def __init__(
        self,
        payloads: Sequence[ir.Payload],
        imports: Imports,
        scope: Scope,
        diags: list[Diag],
    ) -> None:
        self.payloads = payloads
        self.imports = imports
        self.scope = scope
        self.diags = diags
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
            members = Scope(_RESERVED_MEMBERS)
            lines = [
                f"    {members.claim(_member(s))[0]} = {py_str(str(s))}"
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


_RESERVED_MEMBERS = frozenset({"mro", "name", "value"})


def _member(symbol: Any) -> str:
    """A Python name for an enum symbol (Avro symbols are identifiers; keywords get ``_``)."""
    text = str(symbol)
    if text.isidentifier() and not keyword.iskeyword(text) and not text.startswith("_"):
        return text
    return snake(text) if not text.isidentifier() or text.startswith("_") else text + "_"


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


# --------------------------------------------------------------------------- checks

_PRIMITIVE_NAMES = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)
_AVRO_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_AVRO_NAMESPACE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def avro_problems(schema: Any) -> list[tuple[str, str]]:
    """Structural problems of an Avro schema as (pointer suffix, message) pairs: records need
    ``fields`` with names and types, enums ``symbols``, arrays ``items``, maps ``values``,
    fixed a ``size``; names follow the Avro name rules; named types are defined before use."""
    out: list[tuple[str, str]] = []
    _avro(schema, "", "", set(), out)
    return out


def _avro(s: Any, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> None:
    if isinstance(s, str):
        if s not in _PRIMITIVE_NAMES and s not in named and (ns + "." + s) not in named:
            out.append((ptr, f"unknown type '{s}'"))
        return
    if isinstance(s, list):
        for i, branch in enumerate(s):
            if isinstance(branch, list):
                out.append((ptr + f"/{i}", "a union must not directly contain a union"))
            else:
                _avro(branch, ptr + f"/{i}", ns, named, out)
        return
    if not isinstance(s, dict):
        out.append((ptr, "expected a type name, an object or a union array"))
        return
    kind = s.get("type")
    if kind in ("record", "error", "enum", "fixed"):
        ns = _avro_define(s, ptr, ns, named, out)
    if kind in ("record", "error"):
        _avro_fields(s, ptr, ns, named, out)
    elif kind == "enum":
        symbols = s.get("symbols")
        if not isinstance(symbols, list) or not all(
            isinstance(x, str) and _AVRO_NAME.match(x) for x in symbols
        ):
            out.append((ptr + "/symbols", "enum 'symbols' must be an array of Avro names"))
        elif len(set(symbols)) != len(symbols):
            out.append((ptr + "/symbols", "enum symbols must be unique"))
    elif kind == "array":
        _avro_child(s, "items", ptr, ns, named, out)
    elif kind == "map":
        _avro_child(s, "values", ptr, ns, named, out)
    elif kind == "fixed":
        size = s.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            out.append((ptr + "/size", "fixed 'size' must be a non-negative integer"))
    elif kind in _PRIMITIVE_NAMES:
        return
    elif kind is None:
        out.append((ptr, "missing 'type'"))
    else:
        _avro(kind, ptr + "/type", ns, named, out)


def _avro_define(s: Data, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> str:
    name = s.get("name")
    space = s.get("namespace")
    if isinstance(space, str) and space and not _AVRO_NAMESPACE.match(space):
        out.append((ptr + "/namespace", f"invalid namespace '{space}'"))
    if not isinstance(name, str) or not _AVRO_NAMESPACE.match(name):
        out.append((ptr + "/name", f"named type needs a valid 'name', not {name!r}"))
        return ns
    if "." in name:
        ns, _, short = name.rpartition(".")
    else:
        ns = space if isinstance(space, str) else ns
        short = name
    named.update({short, f"{ns}.{short}" if ns else short})
    return ns


def _avro_fields(s: Data, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]) -> None:
    fields = s.get("fields")
    if not isinstance(fields, list):
        out.append((ptr + "/fields", "a record needs a 'fields' array"))
        return
    seen: set[str] = set()
    for i, f in enumerate(fields):
        fptr = ptr + f"/fields/{i}"
        if not isinstance(f, dict):
            out.append((fptr, "a field must be an object"))
            continue
        fname = f.get("name")
        if not isinstance(fname, str) or not _AVRO_NAME.match(fname):
            out.append((fptr + "/name", f"invalid field name {fname!r}"))
        elif fname in seen:
            out.append((fptr + "/name", f"duplicate field name '{fname}'"))
        else:
            seen.add(fname)
        if "type" not in f:
            out.append((fptr, "a field needs a 'type'"))
        else:
            _avro(f["type"], fptr + "/type", ns, named, out)


def _avro_child(
    s: Data, key: str, ptr: str, ns: str, named: set[str], out: list[tuple[str, str]]
) -> None:
    if key not in s:
        out.append((ptr, f"'{s.get('type')}' needs '{key}'"))
    else:
        _avro(s[key], ptr + "/" + key, ns, named, out)


# --------------------------------------------------------------------------- Spark

_SPARK_PRIMITIVES = {
    "boolean": "boolean",
    "int": "integer",
    "long": "long",
    "float": "float",
    "double": "double",
    "bytes": "binary",
    "string": STRING,
    "null": STRING,
}
_SPARK_LOGICAL = {
    "timestamp-millis": "timestamp",
    "timestamp-micros": "timestamp",
    "local-timestamp-millis": "timestamp_ntz",
    "local-timestamp-micros": "timestamp_ntz",
    "date": "date",
    "uuid": STRING,
}


class _AvroMapper:
    def __init__(self) -> None:
        self.named: dict[str, Any] = {}
        self.expanding: set[str] = set()

    def map(self, schema: Any, namespace: str) -> tuple[SparkType, bool]:
        """(Spark type, nullable) of ``schema`` in the enclosing ``namespace``."""
        if isinstance(schema, list):
            return self._map_union(schema, namespace)
        if isinstance(schema, str):
            if schema in _SPARK_PRIMITIVES:
                return _SPARK_PRIMITIVES[schema], schema == "null"
            return self._map_named_ref(schema, namespace)
        if not isinstance(schema, Mapping):
            return STRING, True
        logical = schema.get("logicalType")
        if logical == "decimal":
            return (
                f"decimal({int(schema.get('precision', 38))},{int(schema.get('scale', 0))})",
                False,
            )
        if logical in _SPARK_LOGICAL:
            return _SPARK_LOGICAL[logical], False
        kind = schema.get("type")
        if kind == "record" or kind == "error":
            return self._map_record(schema, namespace), False
        if kind == "enum":
            self._register(schema, namespace, STRING)
            return STRING, False
        if kind == "fixed":
            self._register(schema, namespace, "binary")
            return "binary", False
        if kind == "array":
            element, null = self.map(schema.get("items"), namespace)
            return array(element, null), False
        if kind == "map":
            value, null = self.map(schema.get("values"), namespace)
            return map_of(value, null), False
        return self.map(kind, namespace)

    def _full_name(self, schema: Mapping[str, Any], namespace: str) -> tuple[str, str]:
        name = str(schema.get("name", ""))
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = schema.get("namespace", namespace) or ""
        return (f"{space}.{name}" if space else name), space

    def _register(self, schema: Mapping[str, Any], namespace: str, dtype: SparkType) -> None:
        full, _ = self._full_name(schema, namespace)
        self.named[full] = dtype

    def _map_named_ref(self, name: str, namespace: str) -> tuple[SparkType, bool]:
        for candidate in (f"{namespace}.{name}" if namespace else name, name):
            if candidate in self.expanding:
                return STRING, True
            if candidate in self.named:
                return self.named[candidate], False
        return STRING, True

    def _map_record(self, schema: Mapping[str, Any], namespace: str) -> SparkType:
        full, space = self._full_name(schema, namespace)
        self.expanding.add(full)
        try:
            fields = []
            for f in schema.get("fields", []):
                dtype, null = self.map(f.get("type"), space)
                fields.append(field(str(f["name"]), dtype, null))
            result = struct(fields)
        finally:
            self.expanding.discard(full)
        self.named[full] = result
        return result

    def _map_union(self, members: list[Any], namespace: str) -> tuple[SparkType, bool]:
        non_null = [m for m in members if m != "null"]
        nullable = len(non_null) < len(members)
        if len(non_null) == 1:
            dtype, null = self.map(non_null[0], namespace)
            return dtype, nullable or null
        if not non_null:
            return STRING, True
        if all(isinstance(m, str) for m in non_null):
            kinds = set(non_null)
            if kinds == {"int", "long"}:
                return "long", nullable
            if kinds == {"float", "double"}:
                return "double", nullable
        fields = [
            field(f"member{i}", self.map(m, namespace)[0], True) for i, m in enumerate(non_null)
        ]
        return struct(fields), nullable
