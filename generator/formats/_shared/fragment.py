"""A member of a JSON Schema document as a payload schema of its own.

A catalog may point into a schema document: ``<schema>#/definitions/X`` (a URI fragment) or
xrcg's ``<schema>:messages/X`` (a JSON pointer after ``:``). The ``$ref``s inside that member
are written against the whole document (``#/definitions/Base``, ``#/messages/Base``, ``#``),
so the member alone does not resolve them. :func:`fragment` builds a document whose root is
the member and in which every such ``$ref`` resolves:

- the document's ``definitions`` and ``$defs`` stay where they are (references into them are
  unchanged);
- every other node that the member refers to, directly or through the nodes it refers to, is
  copied into the document's definitions container (``$defs`` when the document has one,
  else ``definitions``) under the last token of its pointer (made unique), and the ``$ref``s
  to it or into it are rewritten to the copy; the member itself is one of them unless it is
  already a definition;
- the root is ``{"$ref": "#/<container>/<name>"}`` with the member's name as ``title``.

A ``$ref`` that does not resolve in the document, or that is not local (another document, an
anchor), is left as written: the formats report it as they report any unresolved ``$ref``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pointers import Pointer, node_at, pointer_tokens

__all__ = ["dangling_refs", "fragment", "node_at", "pointer_tokens", "refs"]

#: keywords whose values are definitions containers (kept at the root of the result)
_CONTAINERS = ("definitions", "$defs")
#: keywords whose values are data, never schemas (a ``$ref`` key there is not a reference)
_DATA = frozenset({"enum", "const", "default", "examples", "example"})

def _pointer(tokens: Pointer) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


class _Bundle:
    """The references of one member into its document, and where they point in the result."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        root_id = document.get("$id", document.get("id"))
        self.base = root_id.split("#", 1)[0] if isinstance(root_id, str) else ""
        #: the definitions container that copies go to
        self.container = "$defs" if isinstance(document.get("$defs"), dict) else "definitions"
        #: copied node pointer -> its name in the container
        self.names: dict[Pointer, str] = {}

    def target(self, ref: str) -> Pointer | None:
        """The pointer a ``$ref`` names in the document (``None``: not a local node)."""
        if self.base and ref.startswith(self.base):
            ref = ref[len(self.base) :] or "#"
        if ref == "#":
            return ()
        if not ref.startswith("#/"):
            return None
        tokens = pointer_tokens(ref[2:])
        return tokens if node_at(self.document, tokens) is not None else None

    def kept(self, tokens: Pointer) -> bool:
        """Whether ``tokens`` is inside a definitions container (kept in place)."""
        return (
            len(tokens) >= 2
            and tokens[0] in _CONTAINERS
            and isinstance(self.document.get(tokens[0]), dict)
        )

    def collect(self, start: Pointer) -> None:
        """Name every node to copy: ``start`` and the nodes that it and the kept definitions
        refer to, transitively."""
        todo = [start]
        for name in _CONTAINERS:
            defs = self.document.get(name)
            if isinstance(defs, dict):
                todo += [(name, key) for key in defs]
        walked: set[Pointer] = set()
        wanted: set[Pointer] = set()
        while todo:
            tokens = todo.pop()
            if tokens in walked:
                continue
            walked.add(tokens)
            if not self.kept(tokens):
                wanted.add(tokens)
            for ref in refs(node_at(self.document, tokens)):
                found = self.target(ref)
                if found is not None:
                    todo.append(found)
        self._name(wanted)

    def _name(self, wanted: set[Pointer]) -> None:
        """Names for the outermost wanted nodes (a node inside another is reached through it)."""
        # the document root holds everything: copied only when it is referred to itself
        outer = sorted(
            t
            for t in wanted
            if not any(o and len(o) < len(t) and t[: len(o)] == o for o in wanted)
        )
        taken = set(self.document.get(self.container) or {})
        for tokens in outer:
            stem = tokens[-1] if tokens else str(self.document.get("title") or "Document")
            name, n = stem, 1
            while name in taken:
                n += 1
                name = f"{stem}_{n}"
            taken.add(name)
            self.names[tokens] = name

    def rewrite(self, ref: str) -> str:
        """``ref`` as it resolves in the result."""
        tokens = self.target(ref)
        if tokens is None or self.kept(tokens):
            return ref
        best: Pointer | None = None
        for copied in self.names:
            if copied and tokens[: len(copied)] == copied and (best is None or len(copied) > len(best)):
                best = copied
        if best is None:
            best = ()  # only the copied document root holds it
        rest = tokens[len(best) :]
        return "#" + _pointer((self.container, self.names[best], *rest))

    def copy(self, node: Any) -> Any:
        """``node`` with its ``$ref``s rewritten (data keywords copied as they are)."""
        if isinstance(node, list):
            return [self.copy(v) for v in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = self.rewrite(value)
            elif key in _DATA:
                out[key] = value
            else:
                out[key] = self.copy(value)
        return out


def refs(node: Any) -> list[str]:
    """The ``$ref`` strings in ``node`` (data keywords skipped)."""
    found: list[str] = []
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                if key == "$ref" and isinstance(value, str):
                    found.append(value)
                elif key not in _DATA:
                    todo.append(value)
    return found


def dangling_refs(document: Any) -> list[tuple[Pointer, str]]:
    """``(location, $ref)`` of every local ``$ref`` of ``document`` (``#``, ``#/...``, or the
    root ``$id`` followed by one) whose target does not exist, in document order. References
    under a subschema with its own ``$id`` resolve against it and are not judged here."""
    if not isinstance(document, dict):
        return []
    root_id = document.get("$id", document.get("id"))
    base = root_id.split("#", 1)[0] if isinstance(root_id, str) and root_id else None
    found: list[tuple[Pointer, str]] = []
    todo: list[tuple[Pointer, Any]] = [((), document)]
    while todo:
        path, item = todo.pop()
        if isinstance(item, list):
            todo.extend(((*path, str(i)), v) for i, v in reversed(list(enumerate(item))))
            continue
        if not isinstance(item, dict):
            continue
        if path and isinstance(item.get("$id"), str):
            continue  # another resolution scope
        ref = item.get("$ref")
        if isinstance(ref, str):
            local = ref[len(base) :] if base and ref.startswith(base) else ref
            local = local or "#"
            if (local == "#" or local.startswith("#/")) and (
                node_at(document, pointer_tokens(local[2:])) is None
            ):
                found.append((path, ref))
        todo.extend(
            ((*path, key), value)
            for key, value in reversed(list(item.items()))
            if key not in _DATA and key != "$ref"
        )
    return found


def fragment(document: Any, pointer: str) -> dict[str, Any] | None:
    """A JSON Schema whose root is the member at ``pointer`` (without ``#/``) of ``document``,
    with every ``$ref`` of the document that it needs resolving (module docstring); ``None``
    when ``document`` has no such member."""
    tokens = pointer_tokens(pointer)
    if not tokens or not isinstance(document, dict):
        return None
    if not isinstance(node_at(document, tokens), (dict, bool)):
        return None
    bundle = _Bundle(document)
    bundle.collect(tokens)
    out: dict[str, Any] = {k: document[k] for k in ("$schema",) if k in document}
    for name in _CONTAINERS:
        defs = document.get(name)
        if isinstance(defs, dict):
            out[name] = {k: bundle.copy(v) for k, v in defs.items()}
    if bundle.names:
        container = out.setdefault(bundle.container, {})
        for copied, name in bundle.names.items():
            container[name] = bundle.copy(node_at(document, copied))
    out.update({"$ref": bundle.rewrite("#" + _pointer(tokens)), "title": tokens[-1]})
    return out


@dataclass(frozen=True, slots=True)
class Selected:
    """The part of a schema document that a reference selects.

    ``schema``: the part (``None``: nothing is there, and ``problem`` says so); ``pointer``:
    where the part lies in the document, appended to the schema's location (``None``: the
    document's location stands). From ``select_type``, a ``problem`` is a warning: ``schema``
    is then the whole document."""

    schema: Any
    pointer: str | None = None
    problem: str | None = None


def deep_link(document: Any, pointer: str) -> Selected:
    """The member ``pointer`` (a JSON pointer without ``#/``) of ``document`` as a schema of its
    own (``fragment``)."""
    body = fragment(document, pointer)
    if body is None:
        return Selected(None, problem=f"the schema has no '#/{pointer}'")
    return Selected(body, pointer)
