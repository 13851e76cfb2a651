"""The runtime's modules import one another without a circle: neither at module level nor
through an import inside a function (``TYPE_CHECKING`` imports aside). A function-level
import that would close a circle fails here, so a lazy import is there for what it loads
(a client library, OpenTelemetry, hypothesis, the start-up cost of a generated package),
never to hide a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "runtime" / "xrgen_runtime"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package)."""
    found = {}
    for path in RUNTIME.rglob("*.py"):
        parts = list(path.relative_to(RUNTIME.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _imported(
    module: str, package: bool, node: ast.Import | ast.ImportFrom, modules: set[str]
) -> list[str]:
    """The runtime modules an import statement of ``module`` names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == RUNTIME.name]
    if node.level:
        base = module.split(".") if package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join([*base, *([node.module] if node.module else [])])
    elif (node.module or "").split(".")[0] == RUNTIME.name:
        target = node.module or ""
    else:
        return []
    return [target] + [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]


class _Imports(ast.NodeVisitor):
    """Every runtime module a module imports, in functions too, outside ``TYPE_CHECKING``."""

    def __init__(self, module: str, package: bool, modules: set[str]) -> None:
        self.module, self.package, self.modules = module, package, modules
        self.found: list[str] = []

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.orelse:
                self.visit(statement)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += _imported(self.module, self.package, node, self.modules)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found += _imported(self.module, self.package, node, self.modules)


def _graph() -> dict[str, set[str]]:
    """Module -> the modules importing it loads (a module's parent packages included)."""
    modules = _modules()
    names = set(modules)
    graph: dict[str, set[str]] = {}
    for module, (path, package) in modules.items():
        edges: set[str] = set()
        finder = _Imports(module, package, names)
        finder.visit(ast.parse(path.read_text()))
        for target in finder.found:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                name = ".".join(parts[:i])
                if name in names and name != module and not module.startswith(name + "."):
                    edges.add(name)
        graph[module] = edges
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_runtime_imports_without_a_circle() -> None:
    graph = _graph()
    assert len(graph) > 100 and graph[f"{RUNTIME.name}._dispatch"]  # the graph was read
    assert _circles(graph) == []


def test_a_circle_through_a_function_level_import_is_found() -> None:
    graph = _graph()
    model = f"{RUNTIME.name}.endpoints._model"
    resolve = f"{RUNTIME.name}.endpoints._resolve"
    assert resolve in graph[model]  # ``Endpoint.config`` imports it in the function
    graph[resolve] = graph[resolve] | {model}
    assert [model, resolve] in [[m for m in c if m in (model, resolve)] for c in _circles(graph)]
