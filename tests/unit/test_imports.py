"""No import circles in generator/ or runtime/xrgen_runtime.

The graph is read from the source with ``ast``: a node per module (a package is its
``__init__``), an edge for every import statement that names another module of the two trees,
wherever it stands (module level or inside a function: an import moved into a function still ties
the two modules), except under ``if TYPE_CHECKING`` (a name for annotations only, never imported
at run time). ``from pkg import name`` is an edge to the
submodule ``pkg.name`` when there is one, else to ``pkg``. Importing a submodule does not count as
importing its parent package.

A circle is a strongly connected component of two or more modules. ``KNOWN`` pins circles that
stand (none today); a new circle, or a known one that grows, fails, and so does a pinned circle
that is gone (take it off the list).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ((ROOT, "generator"), (ROOT / "runtime", "xrgen_runtime"))

#: circles that stand; each must only shrink
KNOWN: frozenset[frozenset[str]] = frozenset()


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for both trees."""
    found: dict[str, Path] = {}
    for base, package in TREES:
        for file in sorted((base / package).rglob("*.py")):
            parts = list(file.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = file
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The module of the trees that ``name`` (a module or a name in one) belongs to."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, file: Path, known: dict[str, Path]
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if (target := _owner(alias.name, known)) is not None:
                yield target
        return
    source = node.module or ""
    if node.level:
        package = module.split(".") if file.name == "__init__.py" else module.split(".")[:-1]
        source = ".".join(package[: len(package) - node.level + 1] + ([source] if source else []))
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        target = submodule if submodule in known else _owner(source, known)
        if target is not None:
            yield target


def graph() -> dict[str, set[str]]:
    """Module -> the modules of the trees it imports."""
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for module, file in known.items():
        tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for inner in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in typing_only:
                edges[module].update(t for t in _targets(node, module, file, known) if t != module)
    return edges


def circles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of two modules or more (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _ties(circle: frozenset[str], edges: dict[str, set[str]]) -> str:
    return "; ".join(f"{a} -> {b}" for a in sorted(circle) for b in sorted(edges[a] & circle))


def test_no_new_import_circle() -> None:
    edges = graph()
    new = [c for c in circles(edges) if c not in KNOWN]
    assert not new, "import circles:\n" + "\n".join(_ties(c, edges) for c in new)


def test_known_circles_still_stand() -> None:
    gone = KNOWN - set(circles(graph()))
    assert not gone, "take these off KNOWN:\n" + "\n".join(", ".join(sorted(c)) for c in gone)


def test_generator_has_no_known_circle() -> None:
    assert not [c for c in KNOWN if any(m.startswith("generator.") for m in c)]


def test_the_check_sees_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [frozenset({"a", "b", "c"})]
