"""YAML documents -> JSON data within ``Limits``: a safe loader that keeps timestamps as
strings, alias bombs and self-referring aliases refused, tags that are not JSON data refused,
duplicate keys refused, non-string keys read as their text (warning XRG119)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import yaml

from ..diagnostics import Diagnostics, pointer
from ..limits import MAX_INT_DIGITS, Limits
from .errors import (
    XRG_ALIASES,
    XRG_DUPLICATE_KEY,
    XRG_KEY_NOT_STRING,
    XRG_NOT_JSON,
    XRG_TOO_DEEP,
    XRG_TOO_LARGE,
    SourceError,
)

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_YAML = "tag:yaml.org,2002:"
#: the YAML tags that are JSON data (timestamps stay strings: the resolver is removed below)
_YAML_SCALARS = frozenset(_YAML + t for t in ("str", "int", "float", "bool", "null"))


class _StrTimestampLoader(_BaseLoader):  # type: ignore[misc]
    """Safe YAML loader that keeps timestamps as strings (catalogs are JSON data)."""


_StrTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _YAML + "timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _YamlBuilder:
    """JSON data from a composed YAML node graph, within ``Limits``.

    PyYAML's constructor shares the object of an anchor between its aliases, so an alias bomb
    stays small until something walks it; this builder counts what the aliases expand to and
    stops past ``max_alias_nodes``, refuses an alias inside its own anchor, tags that are not
    JSON data (``!!set``, ``!!binary``, ``!!python/...``), NaN/Infinity, over-long integers and
    duplicate keys, and reads a non-string key as its text (warning)."""

    def __init__(self, loader: Any, limits: Limits) -> None:
        self.loader = loader
        self.limits = limits
        self.sizes: dict[int, int] = {}
        self.distinct = 0
        self.warnings: list[tuple[str, str]] = []

    def check_aliases(self, root: yaml.Node) -> None:
        """Count the nodes of the document as aliases expand it (memoized per node, so the
        count itself is linear in the document); refuse recursion and bombs."""
        sizes = self.sizes
        state: dict[int, int] = {}  # 1 on the path, 2 done
        stack: list[tuple[yaml.Node, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            key = id(node)
            if done:
                total = 1
                for child in _children(node):
                    total += sizes[id(child)]
                sizes[key] = total
                state[key] = 2
                if total - self.distinct > self.limits.max_alias_nodes:
                    self._bomb(node)
                continue
            st = state.get(key)
            if st == 2:
                continue
            if st == 1:
                raise SourceError(
                    XRG_ALIASES,
                    f"a YAML alias refers to its own anchor{_mark(node)}: the document is infinite",
                )
            state[key] = 1
            self.distinct += 1
            stack.append((node, True))
            for child in _children(node):
                cst = state.get(id(child))
                if cst == 1:
                    raise SourceError(
                        XRG_ALIASES,
                        f"a YAML alias refers to its own anchor{_mark(child)}: "
                        "the document is infinite",
                    )
                if cst is None:
                    stack.append((child, False))
        if sizes[id(root)] - self.distinct > self.limits.max_alias_nodes:
            self._bomb(root)

    def _bomb(self, node: yaml.Node) -> None:
        raise SourceError(
            XRG_ALIASES,
            f"YAML aliases expand the document by more than {self.limits.max_alias_nodes} "
            f"nodes{_mark(node)}",
        )

    def build(self, node: yaml.Node, path: tuple[str, ...], depth: int) -> Any:
        if depth > self.limits.max_depth:
            raise SourceError(
                XRG_TOO_DEEP,
                f"arrays and objects nested deeper than {self.limits.max_depth} levels",
                pointer(*path),
            )
        tag = node.tag
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        if isinstance(node, yaml.SequenceNode) and tag == _YAML + "seq":
            return [self.build(v, (*path, str(i)), depth + 1) for i, v in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode) and tag == _YAML + "map":
            return self._mapping(node, path, depth)
        raise SourceError(
            XRG_NOT_JSON, f"YAML tag {tag} is not JSON data{_mark(node)}", pointer(*path)
        )

    def _mapping(self, node: yaml.MappingNode, path: tuple[str, ...], depth: int) -> Any:
        own = [(k, v) for k, v in node.value if k.tag != _YAML + "merge"]
        merged: dict[str, Any] = {}
        if len(own) != len(node.value):  # merge keys (<<: *base): own keys override them
            self.loader.flatten_mapping(node)
            own_ids = {id(k) for k, _ in own}
            inherited = [(k, v) for k, v in node.value if id(k) not in own_ids]
            merged = self._pairs(inherited, path, depth, duplicates=False)
        return merged | self._pairs(own, path, depth, duplicates=True)

    def _pairs(
        self,
        pairs: list[tuple[yaml.Node, yaml.Node]],
        path: tuple[str, ...],
        depth: int,
        duplicates: bool,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for knode, vnode in pairs:
            if not isinstance(knode, yaml.ScalarNode):
                raise SourceError(
                    XRG_NOT_JSON, f"a YAML key is not a scalar{_mark(knode)}", pointer(*path)
                )
            key = knode.value
            if knode.tag != _YAML + "str" and key != _yaml_key(self._key_value(knode)):
                self.warnings.append(
                    (
                        pointer(*path, key),
                        f"YAML key {key} is a {knode.tag.rsplit(':', 1)[-1]}, not a string; read as "
                        f"the string {key!r} as written, not {_yaml_key(self._key_value(knode))!r}"
                        " (quote it to say so)",
                    )
                )
            if duplicates and key in out:
                raise SourceError(
                    XRG_DUPLICATE_KEY,
                    f"duplicate key {key!r}{_mark(knode)}: an object may hold each key once",
                    pointer(*path, key),
                )
            if len(key) > self.limits.max_string_chars:
                raise SourceError(
                    XRG_TOO_LARGE,
                    f"a key longer than {self.limits.max_string_chars} characters",
                    pointer(*path),
                )
            out[key] = self.build(vnode, (*path, key), depth + 1)
        return out

    def _key_value(self, node: yaml.ScalarNode) -> Any:
        try:
            return self._scalar(node, ())
        except SourceError:
            return None

    def _scalar(self, node: yaml.ScalarNode, path: tuple[str, ...]) -> Any:
        tag = node.tag
        if tag not in _YAML_SCALARS:
            raise SourceError(
                XRG_NOT_JSON, f"YAML tag {tag} is not JSON data{_mark(node)}", pointer(*path)
            )
        text = node.value
        if tag == _YAML + "str":
            if len(text) > self.limits.max_string_chars:
                raise SourceError(
                    XRG_TOO_LARGE,
                    f"a string longer than {self.limits.max_string_chars} characters",
                    pointer(*path),
                )
            return text
        if tag == _YAML + "int" and sum(c.isdigit() for c in text) > MAX_INT_DIGITS:
            raise SourceError(
                XRG_NOT_JSON,
                f"an integer has more than {MAX_INT_DIGITS} digits{_mark(node)}",
                pointer(*path),
            )
        value = self.loader.construct_object(node)
        if isinstance(value, float) and not math.isfinite(value):
            raise SourceError(
                XRG_NOT_JSON, f"{text} is not a JSON number{_mark(node)}", pointer(*path)
            )
        return value


def _yaml_key(k: Any) -> str:
    """How a non-string YAML key reads as a string by its value (``1.00`` -> ``1.0``)."""
    if isinstance(k, bool):
        return "true" if k else "false"
    return "null" if k is None else str(k)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield k
            yield v


def _tab_at(text: str, index: int) -> bool:
    """Whether the character PyYAML stopped at (or the indentation before it) is a tab."""
    line_start = text.rfind("\n", 0, index) + 1
    return "\t" in text[line_start : index + 1]


def _mark(node: yaml.Node) -> str:
    mark = node.start_mark
    return f" (line {mark.line + 1}:{mark.column + 1})" if mark is not None else ""


def parse_yaml(text: str, limits: Limits, diags: Diagnostics | None, file: str) -> Any:
    loader = _StrTimestampLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}:{mark.column + 1}" if mark is not None else ""
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            if mark is not None and _tab_at(text, mark.index):
                problem = "a tab character, which YAML does not allow in indentation: indent with spaces"
            raise SourceError("XRG101", f"invalid YAML{where}: {problem}") from None
        except RecursionError:  # the pure-Python composer (no libyaml)
            raise SourceError(
                XRG_TOO_DEEP, f"arrays and objects nested deeper than {limits.max_depth} levels"
            ) from None
        if node is None:
            raise SourceError("XRG101", "the document is empty (only comments or blank lines)")
        builder = _YamlBuilder(loader, limits)
        if "&" in text:  # without an anchor there is no alias, no bomb, no recursion
            builder.check_aliases(node)
        try:
            data = builder.build(node, (), 1)
        except yaml.YAMLError as e:  # a constructor's complaint, e.g. a merge key on a list
            problem = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise SourceError(XRG_NOT_JSON, f"invalid YAML{_mark(node)}: {problem}") from None
    finally:
        loader.dispose()
    if diags is not None:
        for ptr, message in builder.warnings:
            diags.warning(XRG_KEY_NOT_STRING, file, ptr, message)
    return data

