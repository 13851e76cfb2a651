"""Payload models: ``ir.Payload`` schemas -> the source of the generated ``models.py``.

JSON Schema goes through datamodel-code-generator (dcg) in ONE call per module: every distinct
schema *shape* becomes an entry of a synthetic root document's ``$defs`` under a placeholder
name (``Xrgp<i>R``), its own ``definitions``/``$defs`` are hoisted next to it
(``Xrgp<i>R<Def>``) and its local ``$ref``s are rewritten to the new locations. Afterwards the
placeholders are renamed token by token (never inside strings) to the payloads' model names, so
dcg's collision handling can never rename a root class. Schemas that differ only in their root
``title``/``$id``/``$schema``/``description`` are generated once; the other payloads become
subclasses of the first one.

Avro is mapped by our own code straight to pydantic v2 source (records, enums, fixed, arrays,
maps, unions, logical types, defaults, named type reuse).

Nothing here raises on a bad schema: it is reported as a diagnostic (``XRG3xx``) and the payload
gets a permissive model.
"""

from __future__ import annotations

import ast
import io
import json
import keyword
import re
import tokenize
import urllib.parse
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import ir
from .literals import docstring, py_str, py_value
from .naming import Scope, pascal, snake
from .payload_checks import nfkc_aliases

#: location, code, message
Diag = tuple[str, str, str]

#: a generated nested class name was taken; the class got ``_2``
XRG_NAME_TAKEN = "XRG301"
#: a JSON Schema could not be mapped: the payload gets a permissive model
XRG_JSON_UNMAPPED = "XRG320"
#: a ``$ref`` that cannot be resolved locally (remote, relative file, anchor): typed ``Any``
XRG_REF_UNSUPPORTED = "XRG321"
#: an Avro schema could not be mapped: the payload gets a permissive model
XRG_AVRO_UNMAPPED = "XRG322"
#: datamodel-code-generator warned about a schema (unknown format, ...)
XRG_JSON_WARNING = "XRG323"


@dataclass(frozen=True, slots=True)
class ModelsSource:
    """The body of ``models.py`` (imports and classes, below the header) and its names."""

    code: str
    #: payload key -> root class name (always the payload's ``model_name``)
    classes: dict[str, str]
    #: (location, code, message) for schemas that could not be mapped exactly
    diagnostics: list[Diag] = field(default_factory=list)


def render_models(payloads: Sequence[ir.Payload]) -> ModelsSource:
    """Render the pydantic v2 models of ``payloads`` (in catalog order) as one module body."""
    roots = {p.model_name for p in payloads}
    imports = _Imports(roots)
    diags: list[Diag] = []
    json_payloads = [p for p in payloads if p.format == "json"]
    avro_payloads = [p for p in payloads if p.format == "avro"]
    other = [p for p in payloads if p.format not in ("json", "avro")]
    for p in other:
        diags.append(
            (
                p.location,
                XRG_JSON_UNMAPPED,
                f"schema format {p.format!r} is not modeled; permissive model",
            )
        )
    scope = Scope(frozenset(roots) | _ALWAYS_RESERVED)
    json_code = _JsonBatch(json_payloads, imports, scope, diags).render()
    avro_code = _AvroModule(avro_payloads, imports, scope, diags).render()
    fallback = [_permissive(p.model_name, imports, None) for p in other]
    blocks = [b for b in (json_code, avro_code, *fallback) if b.strip()]
    body = "\n\n\n".join(blocks)
    code = imports.render(body) + "\n\n\n" + body + "\n" if blocks else ""
    return ModelsSource(code, {p.key: p.model_name for p in payloads}, diags)


# --------------------------------------------------------------------------- imports


#: names the module may import; nested (non-root) classes never take them
_ALWAYS_RESERVED = frozenset(
    {
        "annotations",
        "Annotated",
        "Any",
        "BaseModel",
        "ConfigDict",
        "Decimal",
        "Enum",
        "Field",
    }
    | {"RootModel", "UUID", "date", "datetime", "time"}
)


class _Imports:
    """``from module import name`` lines; a name that a root model takes is imported as ``_name``."""

    def __init__(self, roots: set[str]) -> None:
        self._roots = roots
        self._names: set[tuple[str, str, str]] = set()

    def use(self, module: str, name: str, local: str | None = None) -> str:
        """Register an import and return the local name to use in code."""
        local = local or name
        if local in self._roots:
            local = "_" + local
        self._names.add((module, name, local))
        return local

    def render(self, body: str) -> str:
        """The import block for the names ``body`` uses."""
        by_module: dict[str, list[str]] = {}
        for module, name, local in sorted(self._names):
            if not re.search(rf"\b{re.escape(local)}\b", body):
                continue
            by_module.setdefault(module, []).append(name if local == name else f"{name} as {local}")
        std = sorted(m for m in by_module if m not in ("__future__", "pydantic"))
        lines = ["from __future__ import annotations", ""]
        lines += [f"from {m} import {', '.join(by_module[m])}" for m in std]
        if "pydantic" in by_module:
            lines += ["", f"from pydantic import {', '.join(by_module['pydantic'])}"]
        return "\n".join(lines)


def _permissive(name: str, imports: _Imports, schema: Any) -> str:
    """A model that accepts what the (unmappable) schema might describe."""
    doc = '    """Permissive model: the payload schema could not be mapped (see diagnostics)."""\n'
    objectish = isinstance(schema, dict) and (
        schema.get("type") in ("object", "record", "error")
        or "properties" in schema
        or "fields" in schema
    )
    if objectish:
        cfg = imports.use("pydantic", "ConfigDict")
        return (
            f"class {name}({imports.use('pydantic', 'BaseModel')}):\n{doc}\n"
            f'    model_config = {cfg}(extra="allow")'
        )
    any_ = imports.use("typing", "Any")
    return f"class {name}({imports.use('pydantic', 'RootModel')}[{any_}]):\n{doc}\n    root: {any_}"


def _docstring(text: Any, indent: str = "    ") -> str:
    """``literals.docstring``, checked to be exactly one string literal (else a repr string)."""
    if not isinstance(text, str):
        return ""
    doc = docstring(text, indent)
    try:
        ok = not doc or isinstance(ast.literal_eval(doc), str)
    except (SyntaxError, ValueError):
        ok = False
    return doc if ok else py_str(" ".join(text.split()))


def _subclass(name: str, base: str, description: Any) -> str:
    """A payload whose schema has the shape of another one: a cheap subclass."""
    doc = _docstring(description)
    return f"class {name}({base}):\n    {doc or 'pass'}"


# --------------------------------------------------------------------------- JSON Schema

#: root keywords that do not change the shape of a schema
_ROOT_META = ("title", "$id", "id", "$schema", "description", "$comment")
#: keywords whose value is a map name -> schema (property order is kept, others sorted)
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "definitions", "$defs", "dependentSchemas"}
)
_ORDERED_MAPS = frozenset({"properties", "patternProperties"})
#: keywords whose value is a schema
_SCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
    }
    | {"unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema"}
)
#: keywords whose value is a list of schemas
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
#: formats whose pydantic types need optional packages (email-validator): typed ``str``
_PLAIN_FORMATS = frozenset({"email", "idn-email"})
_PLACEHOLDER = re.compile(r"Xrgp(\d+)R(\w*)\Z")
_ANY_PLACEHOLDER = re.compile(r"Xrgp(\d+)R")
_DCG_ROOT = "XrgenDocumentRoot"


def _unescape(token: str) -> str:
    return urllib.parse.unquote(token).replace("~1", "/").replace("~0", "~")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


RefFn = Callable[[str], "str | None"]


def _walk(schema: Any, ref: RefFn) -> Any:
    """A copy of ``schema`` with keys sorted (except property order), ``$ref``s mapped by
    ``ref`` (``None`` drops the ``$ref``: typed ``Any``) and email formats plain."""
    if not isinstance(schema, dict):
        return schema if isinstance(schema, bool) else {}
    out: dict[str, Any] = {}
    for key in sorted(schema):
        value = schema[key]
        if key in ("$ref", "$recursiveRef", "$dynamicRef") and isinstance(value, str):
            new = ref(value)
            if new is not None:
                out["$ref"] = new
        elif key == "format" and value in _PLAIN_FORMATS:
            continue
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            names = value if key in _ORDERED_MAPS else sorted(value)
            out[key] = {n: _walk(value[n], ref) for n in names}
        elif key in _SCHEMA_LIST and isinstance(value, list):
            out[key] = [_walk(v, ref) for v in value]
        elif key in _SCHEMA_ONE or (key == "dependencies" and isinstance(value, dict)):
            if key == "dependencies":
                out[key] = {
                    n: _walk(v, ref) if isinstance(v, dict) else v for n, v in sorted(value.items())
                }
            else:
                out[key] = _walk(value, ref)
        else:
            out[key] = value
    return out


@dataclass(slots=True)
class _Shape:
    """A distinct JSON Schema shape: the payloads sharing it, the first one generates it."""

    index: int
    schema: dict[str, Any]
    payloads: list[ir.Payload]
    permissive: bool = False


class _JsonBatch:
    """All JSON Schema payloads of a module through one datamodel-code-generator call."""

    def __init__(
        self,
        payloads: Sequence[ir.Payload],
        imports: _Imports,
        scope: Scope,
        diags: list[Diag],
    ) -> None:
        self.payloads = payloads
        self.imports = imports
        self.scope = scope
        self.diags = diags
        #: wire name -> Python field name, for names Python reads differently (NFKC)
        self.aliases: dict[str, str] = {}

    # -- normalization ---------------------------------------------------------
    def _normalize(self, p: ir.Payload) -> dict[str, Any]:
        """Schema without root meta keywords, ``$id``-absolute refs made local, refs checked."""
        schema = p.schema if isinstance(p.schema, dict) else {}
        if not isinstance(p.schema, (dict, bool)):
            self.diags.append(
                (
                    p.location,
                    XRG_JSON_UNMAPPED,
                    "payload schema is not a JSON object; typed Any",
                )
            )
        root_id = schema.get("$id", schema.get("id"))
        base = root_id.split("#", 1)[0] if isinstance(root_id, str) else None
        bad: list[str] = []

        def local(ref: str) -> str | None:
            if base and ref.startswith(base):
                ref = ref[len(base) :] or "#"
            if ref == "#" or ref.startswith("#/"):
                return ref
            bad.append(ref)
            return None

        body = {k: v for k, v in schema.items() if k not in _ROOT_META}
        out = _walk(body, local)
        for ref in sorted(set(bad)):
            self.diags.append(
                (
                    p.location,
                    XRG_REF_UNSUPPORTED,
                    f"$ref {ref!r} is not a local JSON pointer; typed Any",
                )
            )
        return out if isinstance(out, dict) else {}

    def _shapes(self) -> list[_Shape]:
        shapes: dict[str, _Shape] = {}
        for p in self.payloads:
            norm = self._normalize(p)
            key = json.dumps(norm, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            shape = shapes.get(key)
            if shape is None:
                shapes[key] = _Shape(len(shapes), norm, [p])
            else:
                shape.payloads.append(p)
        return list(shapes.values())

    @staticmethod
    def _place(shape: _Shape, description: Any) -> dict[str, Any]:
        """The ``$defs`` entries of one shape: its root placeholder plus hoisted definitions."""
        root_ph = f"Xrgp{shape.index}R"
        schema = dict(shape.schema)
        defs: dict[str, Any] = {}
        for kw in ("definitions", "$defs"):
            found = schema.pop(kw, None)
            if isinstance(found, dict):
                defs.update({n: s for n, s in found.items() if n not in defs})
        local_names = Scope()
        hoisted = {n: root_ph + local_names.claim(pascal(n))[0] for n in defs}
        alias_root = None
        target = schema.get("$ref")
        if set(schema) == {"$ref"} and isinstance(target, str):
            parts = [_unescape(t) for t in target[1:].split("/")[1:]]
            if len(parts) == 2 and parts[0] in ("definitions", "$defs") and parts[1] in defs:
                alias_root = parts[1]
                hoisted[alias_root] = root_ph

        def relocate(ref: str) -> str:
            parts = [_unescape(t) for t in ref[1:].split("/")[1:]]
            if len(parts) >= 2 and parts[0] in ("definitions", "$defs") and parts[1] in hoisted:
                new = ["$defs", hoisted[parts[1]], *parts[2:]]
            else:
                new = ["$defs", root_ph, *parts]
            return "#" + "".join("/" + _escape(t) for t in new)

        if alias_root is not None:
            schema = dict(defs[alias_root]) if isinstance(defs[alias_root], dict) else {}
        placed = {root_ph: _walk(schema, relocate)}
        if isinstance(description, str) and "description" not in placed[root_ph]:
            placed[root_ph]["description"] = description
        for name, sub in defs.items():
            if name != alias_root:
                placed[hoisted[name]] = _walk(sub, relocate)
        return placed

    # -- dcg -----------------------------------------------------------------------
    @staticmethod
    def _dcg(defs: dict[str, Any], aliases: dict[str, str]) -> tuple[str, list[str]]:
        from datamodel_code_generator import generate
        from datamodel_code_generator.enums import DataModelType, InputFileType
        from datamodel_code_generator.format import DatetimeClassType, PythonVersion

        doc = {"$defs": defs}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = generate(
                json.dumps(doc),
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_310,
                formatters=[],
                snake_case_field=True,
                allow_population_by_field_name=True,
                use_annotated=True,
                field_constraints=True,
                use_schema_description=True,
                use_union_operator=True,
                use_standard_collections=True,
                use_double_quotes=True,
                disable_timestamp=True,
                parent_scoped_naming=True,
                class_name=_DCG_ROOT,
                allow_remote_refs=False,
                output_datetime_class=DatetimeClassType.Datetime,
                aliases=aliases or None,
            )
        return str(out), sorted({str(w.message) for w in caught})

    def _generate(self, shapes: list[_Shape]) -> str:
        """One dcg call for every mappable shape; failing shapes are found and made permissive."""
        defs: dict[str, Any] = {}
        for s in shapes:
            defs.update(
                self._place(
                    s,
                    (
                        s.payloads[0].schema.get("description")
                        if isinstance(s.payloads[0].schema, dict)
                        else None
                    ),
                )
            )
        if not defs:
            return ""
        try:
            out, notes = self._dcg(defs, self.aliases)
        except Exception:  # noqa: BLE001 - dcg raises many types; isolate the culprit below
            for s in shapes:
                try:
                    self._dcg(self._place(s, None), self.aliases)
                except Exception as exc:  # noqa: BLE001
                    s.permissive = True
                    self._unmapped(s, exc, shapes)
            good = [s for s in shapes if not s.permissive]
            if len(good) == len(shapes):
                raise
            return self._generate(good)
        for note in notes:
            self._note(note, shapes)
        return out

    def _unmapped(self, shape: _Shape, exc: Exception, shapes: list[_Shape]) -> None:
        names = {f"Xrgp{s.index}R": s.payloads[0].model_name for s in shapes}
        text = " ".join(str(exc).split())
        text = _ANY_PLACEHOLDER.sub(lambda m: names.get(m.group(0), m.group(0)), text)
        if len(text) > 300:
            text = text[:297] + "..."
        msg = f"JSON Schema could not be mapped ({type(exc).__name__}: {text}); permissive model"
        self.diags.append((shape.payloads[0].location, XRG_JSON_UNMAPPED, msg))

    def _note(self, note: str, shapes: list[_Shape]) -> None:
        """A dcg warning as a diagnostic, at the payload it names (placeholders translated)."""
        found = _ANY_PLACEHOLDER.search(note)
        owner = _shape_at(shapes, int(found.group(1))).payloads[0] if found else None
        if owner is None and len(shapes) == 1:
            owner = shapes[0].payloads[0]
        names = {f"Xrgp{s.index}R": s.payloads[0].model_name for s in shapes}
        text = _ANY_PLACEHOLDER.sub(lambda m: names.get(m.group(0), m.group(0)), note)
        where = owner.location if owner else "models"
        self.diags.append((where, XRG_JSON_WARNING, f"datamodel-code-generator: {text}"))

    # -- post-processing -------------------------------------------------------------
    def render(self) -> str:
        shapes = self._shapes()
        mapped = [s for s in shapes if not s.permissive]
        self.aliases, renamed = nfkc_aliases([(s.payloads[0].location, s.schema) for s in mapped])
        self.diags.extend(renamed)
        try:
            out = self._generate(mapped) if mapped else ""
        except Exception as exc:  # noqa: BLE001 - never crash the generator
            for s in mapped:
                s.permissive = True
                self._unmapped(s, exc, shapes)
            out = ""
        blocks = [self._postprocess(out, shapes)] if out else []
        for s in shapes:
            first = s.payloads[0]
            if s.permissive:
                blocks.append(_permissive(first.model_name, self.imports, first.schema))
            for p in s.payloads[1:]:
                desc = p.schema.get("description") if isinstance(p.schema, dict) else None
                blocks.append(_subclass(p.model_name, first.model_name, desc))
        return "\n\n\n".join(b for b in blocks if b)

    def _postprocess(self, out: str, shapes: list[_Shape]) -> str:
        tree = ast.parse(out)
        lines = out.splitlines()
        drop: set[int] = set()
        imported: dict[str, tuple[str, str]] = {}
        classes: list[ast.ClassDef] = []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    imported[a.asname or a.name] = (node.module, a.name)
            elif isinstance(node, ast.ClassDef):
                classes.append(node)
            if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                isinstance(node, ast.ClassDef) and node.name == _DCG_ROOT
            ):
                start = min(
                    [
                        node.lineno,
                        *(d.lineno for d in getattr(node, "decorator_list", [])),
                    ]
                )
                drop.update(range(start - 1, node.end_lineno or node.lineno))
        rename: dict[str, str] = {}
        for local, (module, name) in imported.items():
            if module != "__future__":
                rename[local] = self.imports.use(module, name, local)
                if rename[local] not in self.scope:
                    self.scope.claim(rename[local])
        roots = {f"Xrgp{s.index}R": s.payloads[0].model_name for s in shapes if not s.permissive}
        wrappers: list[str] = []
        for node in classes:
            if node.name == _DCG_ROOT:
                continue
            m = _PLACEHOLDER.match(node.name)
            if m and node.name in roots and _is_enum(node):
                stem = roots[node.name]
                rename[node.name] = self._claim(
                    stem + "Enum",
                    _shape_at(shapes, int(m.group(1))).payloads[0].location,
                )
                wrappers.append(self._enum_wrapper(stem, rename[node.name]))
            elif m and node.name in roots:
                rename[node.name] = roots[node.name]
            elif m:
                index = int(m.group(1))
                owner = _shape_at(shapes, index).payloads[0]
                rest = _ANY_PLACEHOLDER.sub("", m.group(2))
                rename[node.name] = self._claim(owner.model_name + rest, owner.location)
            else:
                rename[node.name] = self._claim(node.name, "models")
        kept = [ln for i, ln in enumerate(lines) if i not in drop]
        while kept and (not kept[0].strip() or kept[0].lstrip().startswith("#")):
            kept.pop(0)
        body = "\n".join(kept).strip() + "\n"
        body = _rename_tokens(body, rename)
        return (body.rstrip() + ("\n\n\n" + "\n\n\n".join(wrappers) if wrappers else "")).strip()

    def _claim(self, name: str, where: str) -> str:
        unique, collided = self.scope.claim(name)
        if collided:
            self.diags.append(
                (
                    where,
                    XRG_NAME_TAKEN,
                    f"model class name {name!r} is taken; using {unique!r}",
                )
            )
        return unique

    def _enum_wrapper(self, name: str, enum_name: str) -> str:
        root = self.imports.use("pydantic", "RootModel")
        return f"class {name}({root}[{enum_name}]):\n    root: {enum_name}"


def _shape_at(shapes: list[_Shape], index: int) -> _Shape:
    """The shape with ``index`` (shapes are numbered in order of first appearance)."""
    return next(s for s in shapes if s.index == index)


def _is_enum(node: ast.ClassDef) -> bool:
    return any(
        isinstance(b, ast.Name) and b.id in ("Enum", "StrEnum", "IntEnum") for b in node.bases
    )


def _rename_tokens(code: str, mapping: dict[str, str]) -> str:
    """Rename NAME tokens of ``code``, and strings that are exactly one name (forward
    references); never other text inside strings or comments."""
    if not any(k != v for k, v in mapping.items()):
        return code
    lines = code.splitlines(keepends=True)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if (
            tok.type == tokenize.NAME
            and tok.string in mapping
            and mapping[tok.string] != tok.string
        ):
            row, col = tok.start
            edits.setdefault(row - 1, []).append((col, tok.end[1], mapping[tok.string]))
        elif tok.type == tokenize.STRING and tok.string[1:-1] in mapping:
            # a forward reference ("Xrgp0RB"): the whole string is one generated class name
            row, col = tok.start
            new = tok.string[0] + mapping[tok.string[1:-1]] + tok.string[-1]
            edits.setdefault(row - 1, []).append((col, tok.end[1], new))
    for row, changes in edits.items():
        line = lines[row]
        for start, end, new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        lines[row] = line
    return "".join(lines)


# --------------------------------------------------------------------------- Avro

_AVRO_PRIMITIVES = {
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
_AVRO_LOGICAL = {
    "timestamp-millis": ("datetime", "datetime"),
    "timestamp-micros": ("datetime", "datetime"),
    "timestamp-nanos": ("datetime", "datetime"),
    "local-timestamp-millis": ("datetime", "datetime"),
    "local-timestamp-micros": ("datetime", "datetime"),
    "local-timestamp-nanos": ("datetime", "datetime"),
    "date": ("datetime", "date"),
    "time-millis": ("datetime", "time"),
    "time-micros": ("datetime", "time"),
    "uuid": ("uuid", "UUID"),
    "decimal": ("decimal", "Decimal"),
}
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
            if schema in _AVRO_PRIMITIVES:
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
        if isinstance(kind, (dict, list)) or (
            isinstance(kind, str) and kind not in _AVRO_PRIMITIVES
        ):
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
        imports: _Imports,
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
                self.blocks.append(_permissive(p.model_name, self.imports, p.schema))
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
                _subclass(
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
        unique, collided = self.scope.claim(name)
        if collided:
            self.diags.append(
                (
                    where,
                    XRG_NAME_TAKEN,
                    f"model class name {name!r} is taken; using {unique!r}",
                )
            )
        return unique

    # -- classes ------------------------------------------------------------------
    def _named(self, node: _Named, parsed: _AvroSchema) -> str:
        doc = _docstring(node.flat.get("doc"))
        head = [f"    {doc}"] if doc else []
        if node.kind == "enum":
            enum = self.imports.use("enum", "Enum")
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
            return schema if schema in _AVRO_PRIMITIVES else parsed.named[schema].kind
        if isinstance(schema, dict):
            return str(schema.get("type"))
        return "union"

    # -- types ----------------------------------------------------------------------
    def _type(self, schema: Any, parsed: _AvroSchema, expand_fixed: bool = False) -> str:
        if isinstance(schema, list):
            return self._union(schema, parsed)
        if isinstance(schema, str):
            if schema in _AVRO_PRIMITIVES:
                return _AVRO_PRIMITIVES[schema]
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
        if logical in _AVRO_LOGICAL and _logical_fits(logical, kind):
            return self._logical(logical, schema)
        return _AVRO_PRIMITIVES[kind]

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
        module, name = _AVRO_LOGICAL[logical]
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
