"""JSON Structure rules: the JSON Schema rules' verdicts (XRG550-563) where a change means the
same, over JSON Structure's types. A schema is the set of instances it accepts: narrowing
breaks backward (NEW consumers reject OLD instances), widening breaks forward.

Types widen only where the JSON representation stays the same: ``int8`` < ``int16`` <
``int32`` < ``number`` (and ``uint8`` < ``uint16`` < ``uint32``, ``uint8`` < ``int16``,
``uint16`` < ``int32``, ``float`` < ``double``), ``int64`` < ``int128``, ``uint64`` <
``uint128``; ``int32`` to ``int64`` changes a JSON number into a string, so it breaks both. A
``decimal``'s precision or scale raised widens, lowered narrows. Objects are compared with
their inherited properties (``$extends``); ``$ref``s are followed on both sides (changes are
reported at NEW's declaration); a choice's options, a union's members and an enum's values
added widen, removed narrow; a tuple's elements compare by position. Annotations
(``description``, ``examples``, ``name``, ``$id``) never break.
"""

from __future__ import annotations

import json
from typing import Any

from ..diagnostics import pointer_escape
from ..formats.jsonstructure.document import extends, properties, ref_of, required_sets
from ..formats.jsonstructure.models import decimal_digits
from .changes import BACKWARD, BOTH, FORWARD, Finding
from .jsonschema import _Walker as JsonWalker

#: type -> the types whose values it also accepts, in the same JSON representation
_WIDER: dict[str, frozenset[str]] = {
    "int8": frozenset({"int16", "int32", "integer", "number", "double"}),
    "uint8": frozenset({"uint16", "uint32", "int16", "int32", "integer", "number", "double"}),
    "int16": frozenset({"int32", "integer", "number", "double"}),
    "uint16": frozenset({"uint32", "int32", "integer", "number", "double"}),
    "int32": frozenset({"integer", "number", "double"}),
    "integer": frozenset({"int32", "number", "double"}),
    "uint32": frozenset({"number", "double"}),
    "float8": frozenset({"float", "double", "number"}),
    "float": frozenset({"double", "number"}),
    "double": frozenset({"number"}),
    "number": frozenset({"double"}),
    "int64": frozenset({"int128"}),
    "uint64": frozenset({"uint128", "int128"}),
    "uint128": frozenset(),
    "string": frozenset(),
}
_MAX_DEPTH = 200


def compare_structure(old: Any, new: Any) -> list[Finding]:
    return _Walker(old, new).run()


def _root(document: Any) -> Any:
    if isinstance(document, dict) and isinstance(document.get("$root"), str):
        return {"type": {"$ref": document["$root"]}}
    return document


def _widens(a: str, b: str) -> bool:
    """Whether every value of type ``a`` is a value of type ``b``, written the same."""
    return a == b or b in _WIDER.get(a, frozenset())


def _key(v: Any) -> str:
    return json.dumps(v, sort_keys=True)


class _Walker(JsonWalker):
    """The JSON Schema walker's rules (enum and ``const`` values, bounds, properties and
    ``additionalProperties``) over JSON Structure's declarations."""

    def __init__(self, old: Any, new: Any) -> None:
        super().__init__(old, new)
        self.old_doc = old
        self.new_doc = new

    def run(self) -> list[Finding]:
        self.walk(_root(self.old_doc), _root(self.new_doc), "", 0)
        return self.out

    def follow(self, node: Any, doc: Any, path: str) -> tuple[Any, str]:
        """The declaration a ``{"type": {"$ref": ...}}`` names (followed to its end)."""
        for _ in range(32):
            ref = ref_of(node.get("type")) if isinstance(node, dict) else None
            if ref is None or not ref.startswith("#/"):
                return node, path
            target: Any = doc
            for token in ref[2:].split("/"):
                token = token.replace("~1", "/").replace("~0", "~")
                target = target.get(token) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                return node, path
            node, path = target, ref[1:]
        return node, path

    def walk(self, o: Any, n: Any, path: str, depth: int = 0) -> None:
        o, _ = self.follow(o, self.old_doc, path)
        n, path = self.follow(n, self.new_doc, path)
        key = (id(o), id(n))
        if key in self.seen or o == n or depth > _MAX_DEPTH:
            return
        self.seen.add(key)
        if not isinstance(o, dict) or not isinstance(n, dict):
            return
        to, tn = o.get("type"), n.get("type")
        if isinstance(to, list) or isinstance(tn, list):
            self.union(to, tn, path)
            return
        if to != tn:
            self.type_change(o, n, path)
            return
        self.enum(o, n, path)
        self.bounds(o, n, path)
        if to == "decimal":
            self.decimal(o, n, path)
        elif to == "object":
            self.objects_of(o, n, path)
        elif to in ("array", "set"):
            self.walk(o.get("items"), n.get("items"), path + "/items", depth + 1)
        elif to == "map":
            self.walk(o.get("values"), n.get("values"), path + "/values", depth + 1)
        elif to == "tuple":
            self.tuples(o, n, path, depth)
        elif to == "choice":
            self.choices(o, n, path, depth)

    def type_change(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        a, b = o.get("type"), n.get("type")
        sa = a if isinstance(a, str) else _key(a)
        sb = b if isinstance(b, str) else _key(b)
        text = f"type changed from {sa} to {sb}"
        where = path + "/type"
        if isinstance(a, str) and isinstance(b, str) and _widens(a, b) and not _widens(b, a):
            self.add("XRG554", where, f"type widened: {text}", FORWARD)
        elif isinstance(a, str) and isinstance(b, str) and _widens(b, a) and not _widens(a, b):
            self.add("XRG553", where, f"type narrowed: {text}", BACKWARD)
        elif b == "any":
            self.add("XRG554", where, f"type widened: {text}", FORWARD)
        elif a == "any":
            self.add("XRG553", where, f"type narrowed: {text}", BACKWARD)
        else:
            self.add("XRG555", where, text, BOTH)

    def union(self, a: Any, b: Any, path: str) -> None:
        sa = {_key(x) for x in (a if isinstance(a, list) else [a])}
        sb = {_key(x) for x in (b if isinstance(b, list) else [b])}
        where = path + "/type"
        if sa == sb:
            return
        if sa < sb:
            self.add("XRG554", where, f"union members added: {', '.join(sorted(sb - sa))}", FORWARD)
        elif sb < sa:
            self.add(
                "XRG553", where, f"union members removed: {', '.join(sorted(sa - sb))}", BACKWARD
            )
        else:
            self.add("XRG555", where, f"union changed from {sorted(sa)} to {sorted(sb)}", BOTH)

    def bounds(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        for k, tighter in (
            ("maxLength", -1),
            ("minLength", 1),
            ("minimum", 1),
            ("maximum", -1),
            ("exclusiveMinimum", 1),
            ("exclusiveMaximum", -1),
            ("minItems", 1),
            ("maxItems", -1),
            ("pattern", 0),
            ("contentEncoding", 0),
            ("encoding", 0),
        ):
            if o.get(k) != n.get(k):
                self.bound(k, o.get(k), n.get(k), tighter, f"{path}/{k}")

    def decimal(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        (pa, sa), (pb, sb) = decimal_digits(o), decimal_digits(n)
        whole_a, whole_b = pa - sa, pb - sb
        if (pa, sa) == (pb, sb):
            return
        text = f"decimal({pa},{sa}) changed to decimal({pb},{sb})"
        if whole_b >= whole_a and sb >= sa:
            self.add("XRG562", path + "/precision", f"{text}: widened", FORWARD)
        elif whole_b <= whole_a and sb <= sa:
            self.add("XRG561", path + "/precision", f"{text}: narrowed", BACKWARD)
        else:
            self.add("XRG561", path + "/precision", text, BOTH)

    def members(self, node: dict[str, Any], doc: Any, depth: int = 0) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for ref in extends(node) if depth < 32 else []:
            base, _ = self.follow({"type": {"$ref": ref}}, doc, "")
            if isinstance(base, dict):
                for k, v in self.members(base, doc, depth + 1).items():
                    out.setdefault(k, v)
        for k, v in properties(node).items():
            out.setdefault(k, v)
        return out

    def required(self, node: dict[str, Any], doc: Any, depth: int = 0) -> set[str]:
        always, _ = required_sets(node)
        for ref in extends(node) if depth < 32 else []:
            base, _ = self.follow({"type": {"$ref": ref}}, doc, "")
            if isinstance(base, dict):
                always |= self.required(base, doc, depth + 1)
        return always

    def flat(self, node: dict[str, Any], doc: Any) -> dict[str, Any]:
        """An object declaration with its inherited members, in JSON Schema's keywords."""
        closed = node.get("additionalProperties")
        return {
            "properties": self.members(node, doc),
            "required": sorted(self.required(node, doc)),
            **({"additionalProperties": closed} if closed is not None else {}),
        }

    def objects_of(self, o: dict[str, Any], n: dict[str, Any], path: str) -> None:
        super().objects(self.flat(o, self.old_doc), self.flat(n, self.new_doc), path)

    def tuples(self, o: dict[str, Any], n: dict[str, Any], path: str, depth: int) -> None:
        oo, no = o.get("tuple"), n.get("tuple")
        if not isinstance(oo, list) or not isinstance(no, list):
            return
        if len(oo) != len(no):
            text = f"tuple length changed from {len(oo)} to {len(no)}"
            self.add("XRG555", path + "/tuple", text, BOTH)
            return
        op, np_ = properties(o), properties(n)
        for a, b in zip(oo, no, strict=True):
            if isinstance(a, str) and isinstance(b, str):
                where = f"{path}/properties/{pointer_escape(b)}"
                self.walk(op.get(a), np_.get(b), where, depth + 1)

    def choices(self, o: dict[str, Any], n: dict[str, Any], path: str, depth: int) -> None:
        if o.get("selector") != n.get("selector"):
            text = f"selector changed from {o.get('selector')!r} to {n.get('selector')!r}"
            self.add("XRG555", path + "/selector", text, BOTH)
            return
        oc = o.get("choices") if isinstance(o.get("choices"), dict) else {}
        nc = n.get("choices") if isinstance(n.get("choices"), dict) else {}
        assert isinstance(oc, dict) and isinstance(nc, dict)
        for name in oc:
            if name not in nc:
                where = f"{path}/choices/{pointer_escape(name)}"
                self.add("XRG553", where, f"choice {name!r} removed", BACKWARD)
        for name, schema in nc.items():
            where = f"{path}/choices/{pointer_escape(name)}"
            if name in oc:
                self.walk(oc[name], schema, where, depth + 1)
            else:
                self.add("XRG554", where, f"choice {name!r} added", FORWARD)
