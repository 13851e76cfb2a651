"""Shared pieces of the payload-model generators of every format: the import collector, the
permissive fallback model, docstrings and shape subclasses."""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...literals import docstring, py_str
from ...naming import Scope, snake

if TYPE_CHECKING:
    from ...model import ir

#: location, code, message
Diag = tuple[str, str, str]

#: a generated nested class name was taken; the class got ``_2``
XRG_NAME_TAKEN = "XRG301"


#: names the module may import; nested (non-root) classes never take them
ALWAYS_RESERVED = frozenset(
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
    | {"RootModel", "UUID", "date", "datetime", "time", "TimestampMillis", "TimeMillis", "Float32"}
    | {"Int32", "Int64", "UInt32", "UInt64"}
)


class PayloadModels:
    """What every format's model renderer holds: its payloads, the module's imports and names,
    and the diagnostics it adds."""

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


class Imports:
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
        third = sorted(m for m in by_module if m.split(".")[0] in ("pydantic", "xrgen_runtime"))
        std = sorted(m for m in by_module if m != "__future__" and m not in third)
        lines = ["from __future__ import annotations", ""]
        lines += [f"from {m} import {', '.join(by_module[m])}" for m in std]
        if third:
            lines += [""] + [f"from {m} import {', '.join(by_module[m])}" for m in third]
        return "\n".join(lines)


def permissive(name: str, imports: Imports, schema: Any) -> str:
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


def model_docstring(text: Any, indent: str = "    ") -> str:
    """``literals.docstring``, checked to be exactly one string literal (else a repr string)."""
    if not isinstance(text, str):
        return ""
    doc = docstring(text, indent)
    try:
        ok = not doc or isinstance(ast.literal_eval(doc), str)
    except (SyntaxError, ValueError):
        ok = False
    return doc if ok else py_str(" ".join(text.split()))


def subclass(name: str, base: str, description: Any) -> str:
    """A payload whose schema has the shape of another one: a cheap subclass."""
    doc = model_docstring(description)
    return f"class {name}({base}):\n    {doc or 'pass'}"


def claim_class(scope: Scope, name: str, where: str, diags: list[Diag]) -> str:
    """``name`` made unique in ``scope``; a collision is reported (XRG301)."""
    unique, collided = scope.claim(name)
    if collided:
        msg = f"model class name {name!r} is taken; using {unique!r}"
        diags.append((where, XRG_NAME_TAKEN, msg))
    return unique


def model_head(name: str, imports: Imports, config: str = "") -> tuple[list[str], Scope]:
    """The first lines of a payload model class ``name`` (aliases usable by field name; more
    ``ConfigDict`` arguments in ``config``) and the scope its field names are claimed in
    (BaseModel's attributes and imports reserved)."""
    base = imports.use("pydantic", "BaseModel")
    cfg = imports.use("pydantic", "ConfigDict")
    extra = f", {config}" if config else ""
    lines = [
        f"class {name}({base}):",
        f"    model_config = {cfg}(populate_by_name=True, protected_namespaces=(){extra})",
    ]
    return lines, Scope(_BASEMODEL_ATTRS | {"model_config"} | ALWAYS_RESERVED)


_BASEMODEL_ATTRS = frozenset(
    n for n in dir(__import__("pydantic").BaseModel) if not n.startswith("__")
)


#: names an enum member may not take
RESERVED_MEMBERS = frozenset({"mro", "name", "value"})


def enum_member(symbol: Any) -> str:
    """A Python name for an enum symbol (keywords get ``_``)."""
    text = str(symbol)
    if text.isidentifier() and not keyword.iskeyword(text) and not text.startswith("_"):
        return text
    return snake(text) if not text.isidentifier() or text.startswith("_") else text + "_"


def declared_name(schema: Any, keys: tuple[str, ...]) -> str | None:
    """The first non-blank string among ``keys`` of a schema object, without its dotted
    namespace; ``None`` when there is none."""
    if not isinstance(schema, dict):
        return None
    for key in keys:
        v = schema.get(key)
        if isinstance(v, str) and v.strip():
            return v.rsplit(".", 1)[-1]
    return None
