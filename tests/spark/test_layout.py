"""The decoder's columns are named in one module: no other module of ``xrgen_runtime.spark``
spells a ``_xr_`` name (docstrings aside)."""

from __future__ import annotations

import ast
from pathlib import Path

SPARK = Path(__file__).resolve().parents[2] / "runtime" / "xrgen_runtime" / "spark"


def _strings(tree: ast.AST) -> list[str]:
    """The string constants of ``tree`` that are not docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_columns_are_named_in_names_only() -> None:
    modules = sorted(SPARK.glob("*.py"))
    assert len(modules) > 10
    spelled = {
        path.name: [s for s in _strings(ast.parse(path.read_text())) if "_xr_" in s]
        for path in modules
        if path.name != "names.py"
    }
    assert {name: found for name, found in spelled.items() if found} == {}
    assert any("_xr_" in s for s in _strings(ast.parse((SPARK / "names.py").read_text())))
