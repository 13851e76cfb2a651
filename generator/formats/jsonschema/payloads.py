"""Checks of JSON Schema payloads that keep a generated package importable and its validation
linear-time, before models are rendered (``check_json_schema``, the format's
``check_payload``):

- every ``pattern`` (and ``patternProperties`` key) must compile with pydantic-core's Rust
  ``regex`` engine, which runs in linear time. A pattern it cannot run (lookaround,
  backreference) is an error (XRG340): pydantic would otherwise fall back to Python's
  backtracking ``re`` for the whole model, and one message can then stall a consumer for
  minutes. A pattern that is not a regular expression at all is XRG341.
- a ``$ref``/``allOf`` cycle (or through a one-member ``anyOf``/``oneOf``) with no object or
  array in between (``A = B``, ``B = A``) has no finite values and makes classes that cannot be
  defined: XRG342, naming the cycle.

And the Python names of property names that Python reads as another name (``nfkc_aliases``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostics, pointer
from ...model import ir
from .._shared.fragment import node_at, refs

#: a pattern pydantic's Rust regex engine cannot run (lookaround, backreference)
XRG_PATTERN_NOT_LINEAR = "XRG340"
#: a pattern that is not a valid regular expression
XRG_PATTERN_INVALID = "XRG341"
#: a $ref / allOf cycle with no object or array in between
XRG_REF_CYCLE = "XRG342"

#: keywords whose values are data, not schemas (a "pattern" key inside them is not a regex)
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})


@functools.lru_cache(maxsize=4096)
def pattern_problem(pattern: str) -> tuple[str, str] | None:
    """``(code, reason)`` when pydantic-core's Rust engine cannot compile ``pattern``."""
    from pydantic_core import SchemaError, SchemaValidator
    from pydantic_core import core_schema as cs

    try:
        SchemaValidator(cs.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except SchemaError as e:
        reason = _regex_reason(str(e))
        try:
            re.compile(pattern)
        except (re.error, RecursionError, OverflowError, ValueError):
            return XRG_PATTERN_INVALID, reason
        return XRG_PATTERN_NOT_LINEAR, reason
    return None


def _regex_reason(text: str) -> str:
    """The one-line cause of a pydantic-core regex SchemaError."""
    found = re.search(r"error: (.*)", text)
    if found:
        return found.group(1).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else text


def _patterns(schema: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, pattern)`` for every regex of a JSON Schema document."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            for i, v in enumerate(node):
                stack.append((v, (*path, str(i))))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            if key in _DATA_KEYWORDS:
                continue
            if key == "pattern" and isinstance(value, str):
                yield pointer(*path, key), value
            elif key == "patternProperties" and isinstance(value, dict):
                for regex, sub in value.items():
                    yield pointer(*path, key, regex), regex
                    stack.append((sub, (*path, key, regex)))
            elif isinstance(value, (dict, list)):
                stack.append((value, (*path, key)))


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _local_target(schema: Any, ref: str) -> tuple[str, Any] | None:
    """``(pointer, node)`` a local ``#/...`` reference names, else ``None``."""
    if not ref.startswith("#"):
        return None
    tokens = [_unescape(t) for t in ref[1:].split("/")[1:]] if ref != "#" else []
    node = node_at(schema, tuple(tokens))
    return None if node is None else (pointer(*tokens), node)


def _unguarded_refs(schema: Any, node: Any) -> list[tuple[str, Any]]:
    """The schemas ``node`` is made of directly: its ``$ref`` and its ``allOf`` members'
    references, and those of a one-member ``anyOf``/``oneOf`` (no object property or array
    item in between)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, dict):
            continue
        ref = n.get("$ref")
        if isinstance(ref, str):
            target = _local_target(schema, ref)
            if target is not None:
                out.append(target)
        members = n.get("allOf")
        if isinstance(members, list):
            stack.extend(members)
        for choice in ("anyOf", "oneOf"):  # a choice of one is that one
            members = n.get(choice)
            if isinstance(members, list) and len(members) == 1:
                stack.extend(members)
    return out


def ref_cycle(schema: Any) -> list[str] | None:
    """Pointers of a ``$ref``/``allOf`` cycle of ``schema``, the first one repeated at the
    end, or ``None``. Iterative depth-first search over the schemas references reach."""
    starts: list[tuple[str, Any]] = [("", schema), *_all_ref_targets(schema)]
    seen: set[str] = set()
    for start in starts:
        if start[0] in seen:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        stack: list[tuple[str, Any, bool]] = [(start[0], start[1], False)]
        while stack:
            ptr, node, leaving = stack.pop()
            if leaving:
                path.pop()
                del on_path[ptr]
                seen.add(ptr)
                continue
            if ptr in on_path:
                return [*path[on_path[ptr] :], ptr]
            if ptr in seen:
                continue
            on_path[ptr] = len(path)
            path.append(ptr)
            stack.append((ptr, node, True))
            for target in _unguarded_refs(schema, node):
                stack.append((target[0], target[1], False))
    return None


def _all_ref_targets(schema: Any) -> list[tuple[str, Any]]:
    found = (_local_target(schema, ref) for ref in refs(schema))
    return [target for target in found if target is not None]


def check_json_schema(p: ir.Payload, diags: Diagnostics) -> None:
    """XRG340-342 for a JSON Schema payload (see the module docstring)."""
    if isinstance(p.schema, dict):
        text = json.dumps(p.schema)  # C speed: most schemas have no patterns and no $ref
        file, _, base = p.location.partition("#")
        for ptr, regex in _patterns(p.schema) if '"pattern' in text else ():
            problem = pattern_problem(regex)
            if problem is None:
                continue
            code, reason = problem
            what = (
                "uses what a linear-time regex engine cannot run (lookaround or "
                "backreference); validating it would backtrack"
                if code == XRG_PATTERN_NOT_LINEAR
                else "is not a valid regular expression"
            )
            diags.error(code, file, base + ptr, f"pattern {regex!r} {what}: {reason}")
        cycle = ref_cycle(p.schema) if '"$ref"' in text else None
        if cycle is not None:
            shown = " -> ".join("#" + c for c in cycle)
            diags.error(
                XRG_REF_CYCLE,
                file,
                base + cycle[0],
                f"$ref cycle with no object or array in between ({shown}): the type is "
                "infinite and has no values",
            )


# ---------------------------------------------------------------- NFKC property names


def _property_names(schema: Any) -> Iterator[tuple[str, str]]:
    """``(pointer of the properties object, name)`` for every property of a schema."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            stack.extend((v, (*path, str(i))) for i, v in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            for name in props:
                yield pointer(*path, "properties"), name
        stack.extend(
            (v, (*path, k)) for k, v in node.items() if k not in _DATA_KEYWORDS
        )


def nfkc_aliases(
    schemas: list[tuple[str, Any]],
) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Python field names for property names that Python would read as another name.

    Python reads identifiers in NFKC form (``ﬁle`` is ``file``), so a field named ``ﬁle``
    in the source would be ``file``: it would lose its wire name, or collide with a property
    ``file``. Each such property gets an NFKC name of its own (``file``, or ``file_2`` when
    some property is called ``file``) and keeps its wire name as the alias.

    ``schemas``: ``(location, schema)``. Returns the alias map for datamodel-code-generator
    (wire name -> Python name) and ``(location, code, message)`` warnings for collisions."""
    import unicodedata

    found: list[tuple[str, str, str]] = []  # location, pointer, name
    taken: set[str] = set()
    for location, schema in schemas:
        if json.dumps(schema, ensure_ascii=False).isascii():  # ASCII is NFKC (the usual case)
            continue
        for ptr, name in _property_names(schema):
            taken.add(name)
            if unicodedata.normalize("NFKC", name) != name:
                found.append((location, ptr, name))
    aliases: dict[str, str] = {}
    warnings: list[tuple[str, str, str]] = []
    for location, ptr, name in found:
        if name not in aliases:
            base = unicodedata.normalize("NFKC", name)
            candidate, n = base, 1
            while candidate in taken:
                n += 1
                candidate = f"{base}_{n}"
            taken.add(candidate)
            aliases[name] = candidate
        if aliases[name] != unicodedata.normalize("NFKC", name):
            warnings.append(
                (
                    location + ptr + "/" + name.replace("~", "~0").replace("/", "~1"),
                    "XRG301",
                    f"property {name!r} reads as {unicodedata.normalize('NFKC', name)!r} in "
                    f"Python (NFKC), which is taken; the field is {aliases[name]!r} with the "
                    f"alias {name!r}",
                )
            )
    return aliases, warnings
