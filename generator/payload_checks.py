"""Checks of the rendered ``models.py`` (``unresolved_names``): every name its annotations and
bases use, forward references in strings included, is defined in the module (XRG343
otherwise), and ``rust_regex_only`` takes out any ``regex_engine="python-re"`` (every pattern
passed the Rust engine, ``formats.jsonschema.payloads``, so it is never needed).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator

from .model import ir

#: a name in the generated models that nothing defines
XRG_UNRESOLVED_NAME = "XRG343"


_PYTHON_RE = re.compile(r'^[ \t]*regex_engine="python-re",[ \t]*\n', re.M)


def rust_regex_only(code: str) -> str:
    """``code`` without ``regex_engine="python-re"`` settings (datamodel-code-generator adds
    one when it guesses a pattern needs Python's ``re``; ``check_json_schema`` made sure none
    does)."""
    return _PYTHON_RE.sub("", code)


def unresolved_names(code: str, required: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """``(class, name)`` for every name the module's class bases and annotations use, forward
    references in strings included, that the module does not define or import; and
    ``(name, name)`` for each ``required`` name (the payloads' root models, which the rest of
    the package imports) that it does not define."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [("", "<syntax error>")]
    defined = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    missing = [(name, name) for name in required if name not in defined]
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        own = {
            t.id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name)
        }
        exprs: list[ast.expr] = [*node.bases, *(k.value for k in node.keywords)]
        exprs += [s.annotation for s in node.body if isinstance(s, ast.AnnAssign)]
        for name in _names(exprs):
            if name not in defined and name not in own:
                missing.append((node.name, name))
    return missing


def _names(exprs: list[ast.expr]) -> Iterator[str]:
    stack: list[ast.AST] = list(exprs)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            yield n.id
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            try:
                stack.append(ast.parse(n.value, mode="eval").body)
            except SyntaxError:
                continue
            continue
        if isinstance(n, ast.Subscript) and _last_name(n.value) == "Literal":
            continue  # Literal["a"]: values, not forward references
        if isinstance(n, ast.Subscript) and _last_name(n.value) == "Annotated":
            parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
            stack.append(n.value)
            stack.append(parts[0])  # the type; the rest is metadata
            stack.extend(p for p in parts[1:] if not _is_str(p))
            continue
        if isinstance(n, ast.Call):  # Field(...): only its arguments' names; strings at any
            # depth are data (``examples=['x']``, defaults), never forward references
            for arg in (*n.args, *(k.value for k in n.keywords)):
                yield from (x.id for x in ast.walk(arg) if isinstance(x, ast.Name))
            stack.append(n.func)
            continue
        stack.extend(ast.iter_child_nodes(n))


def _last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def model_owner(payloads: tuple[ir.Payload, ...], cls: str) -> str:
    """The location of the payload a generated class belongs to (its root or a nested
    class named after it), else ``"models"``."""
    best = None
    for p in payloads:
        if cls.startswith(p.model_name) and (best is None or len(p.model_name) > len(best.model_name)):
            best = p
    return best.location if best is not None else "models"
