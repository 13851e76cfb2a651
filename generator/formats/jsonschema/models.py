"""JSON Schema payloads -> pydantic models.

Models: every distinct schema *shape* becomes an entry of a synthetic root document's ``$defs``
under a placeholder name (``Xrgp<i>R``), its own ``definitions``/``$defs`` are hoisted next to
it (``Xrgp<i>R<Def>``) and its local ``$ref``s are rewritten to the new locations; ONE
datamodel-code-generator call renders them all. Afterwards the placeholders are renamed token by
token (never inside strings) to the payloads' model names, so dcg's collision handling can never
rename a root class. Schemas that differ only in their root ``title``/``$id``/``$schema``/
``description`` are generated once; the other payloads become subclasses of the first one.
"""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
import urllib.parse
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...model import ir
from ...naming import Scope, pascal
from .._shared.models import Diag, Imports, PayloadModels, claim_class, permissive, subclass
from .._shared.pointers import node_at, pointer_tokens
from .codes import XRG_JSON_UNMAPPED, XRG_JSON_WARNING, XRG_REF_UNSUPPORTED
from .payloads import nfkc_aliases

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
_DCG_ADVICE = re.compile(r";? *[Uu]se --[a-z-]+ to [^.;]*[.;]?")


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


class JsonBatch(PayloadModels):
    """All JSON Schema payloads of a module through one datamodel-code-generator call."""

    def __init__(
        self,
        payloads: Sequence[ir.Payload],
        imports: Imports,
        scope: Scope,
        diags: list[Diag],
    ) -> None:
        super().__init__(payloads, imports, scope, diags)
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
                # a target the schema lacks was reported in the catalog's pointers (XRG157)
                return ref if node_at(schema, pointer_tokens(ref[2:])) is not None else None
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
        text = _DCG_ADVICE.sub("", text)  # options of datamodel-code-generator, not xrgen's
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
                blocks.append(permissive(first.model_name, self.imports, first.schema))
            for p in s.payloads[1:]:
                desc = p.schema.get("description") if isinstance(p.schema, dict) else None
                blocks.append(subclass(p.model_name, first.model_name, desc))
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
        for row in _overriding_fields(classes):
            lines[row] += "  # type: ignore[assignment, unused-ignore]"
        kept = [ln for i, ln in enumerate(lines) if i not in drop]
        while kept and (not kept[0].strip() or kept[0].lstrip().startswith("#")):
            kept.pop(0)
        body = "\n".join(kept).strip() + "\n"
        body = _rename_tokens(body, rename)
        return (body.rstrip() + ("\n\n\n" + "\n\n\n".join(wrappers) if wrappers else "")).strip()

    def _claim(self, name: str, where: str) -> str:
        return claim_class(self.scope, name, where, self.diags)

    def _enum_wrapper(self, name: str, enum_name: str) -> str:
        root = self.imports.use("pydantic", "RootModel")
        return f"class {name}({root}[{enum_name}]):\n    root: {enum_name}"


def _shape_at(shapes: list[_Shape], index: int) -> _Shape:
    """The shape with ``index`` (shapes are numbered in order of first appearance)."""
    return next(s for s in shapes if s.index == index)


def _overriding_fields(classes: list[ast.ClassDef]) -> list[int]:
    """The (0-based) lines of fields that a model redeclares from a base model of the module:
    an ``allOf`` that narrows a member (an ``enum`` of fewer values) makes dcg subclass the
    base with the field's new type, which mypy reports as an incompatible override."""
    fields = {
        c.name: {
            t.target.id
            for t in c.body
            if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)
        }
        for c in classes
    }
    bases = {
        c.name: [b.id for b in c.bases if isinstance(b, ast.Name) and b.id in fields]
        for c in classes
    }

    def inherited(name: str, seen: frozenset[str]) -> set[str]:
        found: set[str] = set()
        for base in bases.get(name, ()):
            if base not in seen:
                found |= fields[base] | inherited(base, seen | {base})
        return found

    rows: list[int] = []
    for c in classes:
        up = inherited(c.name, frozenset({c.name}))
        rows += [
            t.lineno - 1
            for t in c.body
            if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name) and t.target.id in up
        ]
    return rows


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
