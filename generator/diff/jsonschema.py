"""JSON Schema rules: a schema is the set of payloads it accepts. Backward needs NEW to accept
everything OLD accepted (NEW consumers validate OLD producers' payloads), forward the reverse.
So a change that narrows (a property made required, a type narrowed, an enum value removed,
``additionalProperties`` closed, a bound tightened) breaks backward; one that widens breaks
forward; a change that does both (a type replaced) breaks both.

Local ``$ref``s are followed on both sides (changes are reported at NEW's target, once);
annotations (``title``, ``description``, ``examples``, ``default``, ``$comment``) never break.
Two pragmatic choices, as schema registries make them for open content models: an optional
property added or removed is compatible unless the side that receives it is closed
(``additionalProperties: false``), and a property's removal is reported on its own.
"""

from __future__ import annotations

import json
from typing import Any

from ..diagnostics import pointer_escape
from .changes import BACKWARD, BOTH, FORWARD, NEITHER, Finding

_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
#: validation keywords compared only for equality: any change is reported as breaking both ways
_UNANALYZED = (
    "not", "if", "then", "else", "patternProperties", "propertyNames", "dependencies",
    "dependentRequired", "dependentSchemas", "prefixItems", "additionalItems", "contains",
    "unevaluatedProperties", "unevaluatedItems", "contentSchema",
)  # fmt: skip
_EXACT = ("pattern", "format", "multipleOf", "contentEncoding", "contentMediaType")


def compare_json(old: Any, new: Any) -> list[Finding]:
    return _Walker(old, new).run()


def _types(node: dict[str, Any]) -> set[str] | None:
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    return None


def _required(node: dict[str, Any]) -> set[str]:
    req = node.get("required")
    return {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()


def _subset(a: set[str], b: set[str]) -> bool:
    return all(t in b or (t == "integer" and "number" in b) for t in a)


def _values(node: dict[str, Any]) -> list[Any] | None:
    if "const" in node:
        return [node["const"]]
    e = node.get("enum")
    return list(e) if isinstance(e, list) else None


def _key(v: Any) -> str:
    return json.dumps(v, sort_keys=True)


def _fmt(values: list[str]) -> str:
    return ", ".join(values)


class _Walker:
    def __init__(self, old: Any, new: Any) -> None:
        self.old_root = old
        self.new_root = new
        self.out: list[Finding] = []
        self.seen: set[tuple[int, int]] = set()

    def run(self) -> list[Finding]:
        self.walk(self.old_root, self.new_root, "")
        return self.out

    def add(self, code: str, path: str, text: str, breaks: frozenset[str]) -> None:
        self.out.append(Finding(code, path, text, breaks))

    def deref(self, node: Any, root: Any, path: str | None) -> tuple[Any, str | None]:
        hops = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and hops < 32:
            ref = node["$ref"]
            if not ref.startswith("#"):
                return node, path
            target: Any = root
            for token in ref[1:].split("/")[1:] if ref != "#" else []:
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(target, dict) and token in target:
                    target = target[token]
                elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                    target = target[int(token)]
                else:
                    return node, path
            node, path = target, (ref[1:] if path is not None else None)
            hops += 1
        return node, path

    def walk(self, o: Any, n: Any, path: str) -> None:
        o, _ = self.deref(o, self.old_root, None)
        n, new_path = self.deref(n, self.new_root, path)
        path = new_path if new_path is not None else path
        key = (id(o), id(n))
        if key in self.seen:
            return
        self.seen.add(key)
        if o == n:
            return
        if isinstance(o, bool) or isinstance(n, bool):
            o_all = o is True or o == {}
            n_all = n is True or n == {}
            if o is False and n is not False:
                self.add("XRG554", path, "schema accepts payloads it rejected (was false)", FORWARD)
            elif n is False:
                self.add("XRG553", path, "schema rejects every payload (false)", BACKWARD)
            elif o_all and not n_all:
                self.add("XRG553", path, "schema constrained (was true: anything)", BACKWARD)
            elif n_all and not o_all:
                self.add("XRG554", path, "schema accepts anything (true)", FORWARD)
            return
        if not isinstance(o, dict) or not isinstance(n, dict):
            return
        if "$ref" in o or "$ref" in n:
            ro, rn = o.get("$ref"), n.get("$ref")
            if ro != rn:
                self.add(
                    "XRG563",
                    path + "/$ref",
                    f"$ref changed from {ro!r} to {rn!r} (not followed)",
                    BOTH,
                )
            return
        self.types(o, n, path)
        self.enum(o, n, path)
        self.bounds(o, n, path)
        self.objects(o, n, path)
        self.arrays(o, n, path)
        self.composition(o, n, path)

    def types(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        a, b = _types(o), _types(n)
        if a == b:
            return
        where = path + "/type"
        sa = "any" if a is None else "|".join(sorted(a))
        sb = "any" if b is None else "|".join(sorted(b))
        text = f"type changed from {sa} to {sb}"
        if a is None:
            self.add("XRG553", where, f"type narrowed: {text}", BACKWARD)
        elif b is None:
            self.add("XRG554", where, f"type widened: {text}", FORWARD)
        elif _subset(b, a) and not _subset(a, b):
            self.add("XRG553", where, f"type narrowed: {text}", BACKWARD)
        elif _subset(a, b) and not _subset(b, a):
            self.add("XRG554", where, f"type widened: {text}", FORWARD)
        elif not (_subset(a, b) and _subset(b, a)):
            self.add("XRG555", where, text, BOTH)

    def enum(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        a, b = _values(o), _values(n)
        if a is None and b is None:
            return
        where = path + ("/const" if "const" in n else "/enum")
        if a is None:
            self.add("XRG556", where, "values restricted to an enum (was any value)", BACKWARD)
            return
        if b is None:
            self.add("XRG557", where, "enum restriction removed", FORWARD)
            return
        ka, kb = {_key(v) for v in a}, {_key(v) for v in b}
        removed = [_key(v) for v in a if _key(v) not in kb]
        added = [_key(v) for v in b if _key(v) not in ka]
        if removed:
            self.add("XRG556", where, f"enum values removed: {_fmt(removed)}", BACKWARD)
        if added:
            self.add("XRG557", where, f"enum values added: {_fmt(added)}", FORWARD)

    def bounds(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        for names, tighter in ((_LOWER, 1), (_UPPER, -1), (_EXACT, 0)):
            for k in names:
                a, b = o.get(k), n.get(k)
                if a != b:
                    self.bound(k, a, b, tighter, f"{path}/{k}")
        if not o.get("uniqueItems") and n.get("uniqueItems") is True:
            self.add("XRG561", path + "/uniqueItems", "uniqueItems required", BACKWARD)
        elif o.get("uniqueItems") is True and not n.get("uniqueItems"):
            self.add("XRG562", path + "/uniqueItems", "uniqueItems no longer required", FORWARD)

    def bound(self, k: str, a: Any, b: Any, tighter: int, where: str) -> None:
        """``tighter``: 1 when a larger value narrows, -1 when a smaller one does, 0 when any
        other value is a different constraint."""
        numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))
        if a is None:
            self.add("XRG561", where, f"{k} {b!r} added", BACKWARD)
        elif b is None:
            self.add("XRG562", where, f"{k} {a!r} removed", FORWARD)
        elif tighter and numbers and (b - a) * tighter > 0:
            self.add("XRG561", where, f"{k} tightened from {a!r} to {b!r}", BACKWARD)
        elif tighter and numbers:
            self.add("XRG562", where, f"{k} loosened from {a!r} to {b!r}", FORWARD)
        else:
            self.add("XRG561", where, f"{k} changed from {a!r} to {b!r}", BOTH)

    def objects(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        op = o.get("properties") if isinstance(o.get("properties"), dict) else {}
        np_ = n.get("properties") if isinstance(n.get("properties"), dict) else {}
        oreq, nreq = _required(o), _required(n)
        o_closed = o.get("additionalProperties") is False
        n_closed = n.get("additionalProperties") is False
        for name in sorted(nreq - oreq):
            self.add("XRG551", path + "/required", f"property {name!r} became required", BACKWARD)
        for name in sorted(oreq - nreq):
            self.add("XRG552", path + "/required", f"property {name!r} no longer required", FORWARD)
        assert isinstance(op, dict) and isinstance(np_, dict)
        for name in op:
            if name not in np_:
                where = f"{path}/properties/{pointer_escape(name)}"
                if n_closed:
                    self.add(
                        "XRG550",
                        where,
                        f"property {name!r} removed; NEW rejects it (additionalProperties: false)",
                        BACKWARD,
                    )
                else:
                    self.add("XRG550", where, f"property {name!r} removed", NEITHER)
        for name in np_:
            where = f"{path}/properties/{pointer_escape(name)}"
            if name in op:
                self.walk(op[name], np_[name], where)
            elif o_closed:
                self.add(
                    "XRG560",
                    where,
                    f"property {name!r} added; OLD rejects it (additionalProperties: false)",
                    FORWARD,
                )
            else:
                self.add("XRG560", where, f"property {name!r} added", NEITHER)
        ao, an = o.get("additionalProperties", True), n.get("additionalProperties", True)
        where = path + "/additionalProperties"
        if ao is not False and an is False:
            self.add("XRG558", where, "additionalProperties closed (false)", BACKWARD)
        elif ao is False and an is not False:
            self.add("XRG559", where, "additionalProperties opened", FORWARD)
        elif isinstance(ao, dict) or isinstance(an, dict):
            self.walk(ao if ao is not None else True, an if an is not None else True, where)

    def arrays(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        a, b = o.get("items"), n.get("items")
        if a is None and b is None:
            return
        if isinstance(a, list) or isinstance(b, list):
            if a != b:
                self.walk_list(
                    a if isinstance(a, list) else [],
                    b if isinstance(b, list) else [],
                    path + "/items",
                    "items",
                )
            return
        self.walk(True if a is None else a, True if b is None else b, path + "/items")

    def composition(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        for k in ("allOf", "anyOf", "oneOf"):
            a, b = o.get(k), n.get(k)
            if a == b:
                continue
            self.walk_list(
                a if isinstance(a, list) else [], b if isinstance(b, list) else [], f"{path}/{k}", k
            )
        for k in _UNANALYZED:
            if o.get(k) != n.get(k):
                self.add("XRG563", f"{path}/{k}", f"{k!r} changed (not analyzed)", BOTH)

    def walk_list(self, a: list[Any], b: list[Any], where: str, k: str) -> None:
        if len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                self.walk(x, y, f"{where}/{i}")
            return
        ka, kb = [_key(x) for x in a], [_key(y) for y in b]
        if k in ("anyOf", "oneOf") and set(ka) <= set(kb):
            self.add("XRG554", where, f"{k} branches added", FORWARD)
        elif k in ("anyOf", "oneOf") and set(kb) <= set(ka):
            self.add("XRG553", where, f"{k} branches removed", BACKWARD)
        elif k == "allOf" and set(ka) <= set(kb):
            self.add("XRG553", where, "allOf constraints added", BACKWARD)
        elif k == "allOf" and set(kb) <= set(ka):
            self.add("XRG554", where, "allOf constraints removed", FORWARD)
        else:
            self.add("XRG563", where, f"{k} changed from {len(a)} to {len(b)} entries", BOTH)
