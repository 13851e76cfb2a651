"""Avro rules: the Avro specification's schema resolution ("Schema Resolution"), run in both
directions. Backward: NEW is the reader of data OLD wrote; forward: OLD reads what NEW writes.

- records and enums match by unqualified name or a reader alias; fixed also by size;
- a reader field missing in the writer needs a default (a field added without one breaks
  backward; removed without one, forward); writer fields the reader lacks are skipped;
- a reader field matches a writer field by name or by the reader field's aliases (so a rename
  with an alias is compatible backward, and forward only with a default);
- promotions writer -> reader: int -> long, float, double; long -> float, double;
  float -> double; string <-> bytes; every other type change breaks;
- unions: every branch the writer may write must resolve in the reader (a branch added breaks
  forward, removed backward); a non-union reader of a union writer needs every branch to
  resolve; a non-union writer needs a matching reader branch;
- enums: a writer symbol the reader lacks needs the reader's enum ``default`` (a symbol added
  breaks forward unless OLD has a default; removed breaks backward unless NEW has one).

Every difference is reported once, worded as OLD -> NEW, with the directions it breaks.
"""

from __future__ import annotations

import json
from typing import Any

from .changes import NEITHER, Finding

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
#: writer type -> reader types it resolves to
PROMOTIONS = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}


def _names(schema: Any, namespace: str | None, out: dict[str, Any]) -> None:
    if isinstance(schema, list):
        for s in schema:
            _names(s, namespace, out)
        return
    if not isinstance(schema, dict):
        return
    t = schema.get("type")
    if t in ("record", "error", "enum", "fixed") and isinstance(schema.get("name"), str):
        name = schema["name"]
        ns = schema.get("namespace") if isinstance(schema.get("namespace"), str) else namespace
        full = name if "." in name or not ns else f"{ns}.{name}"
        out.setdefault(full, schema)
        out.setdefault(full.rsplit(".", 1)[-1], schema)
        namespace = full.rpartition(".")[0] or None
        for f in schema.get("fields") or []:
            if isinstance(f, dict):
                _names(f.get("type"), namespace, out)
    elif t in ("array", "map"):
        _names(schema.get("items") if t == "array" else schema.get("values"), namespace, out)
    elif isinstance(t, (dict, list)):
        _names(t, namespace, out)


_COMPLEX = frozenset({"record", "error", "enum", "fixed", "array", "map"})


def _kind(s: Any) -> str:
    """The Avro type of a resolved schema; ``?`` for what is no type (an unknown name)."""
    if isinstance(s, list):
        return "union"
    t = s.get("type") if isinstance(s, dict) else s
    return (
        t
        if isinstance(t, str) and (t in PRIMITIVES or (t in _COMPLEX and isinstance(s, dict)))
        else "?"
    )


def _logical(s: Any) -> str:
    """``logicalType`` with its parameters (the same bytes mean another value when it changes)."""
    if not isinstance(s, dict) or "logicalType" not in s:
        return "none"
    params = [f"{k}={s[k]}" for k in ("precision", "scale", "size") if k in s]
    return str(s["logicalType"]) + (f"({', '.join(params)})" if params else "")


def _aliases(node: dict[str, Any]) -> list[str]:
    aliases = node.get("aliases")
    return [a for a in aliases if isinstance(a, str)] if isinstance(aliases, list) else []


def _short(name: Any) -> str:
    return str(name).rsplit(".", 1)[-1]


class _Run:
    def __init__(self, reader_root: Any, writer_root: Any, reader_new: bool) -> None:
        self.rnames: dict[str, Any] = {}
        self.wnames: dict[str, Any] = {}
        _names(reader_root, None, self.rnames)
        _names(writer_root, None, self.wnames)
        self.reader_new = reader_new
        self.out: list[Finding] = []
        self.seen: set[tuple[int, int]] = set()
        self.direction = frozenset({"backward" if reader_new else "forward"})

    def resolve(self, s: Any, names: dict[str, Any]) -> Any:
        for _ in range(16):
            if isinstance(s, str) and s not in PRIMITIVES and s in names:
                s = names[s]
            elif isinstance(s, str) and s not in PRIMITIVES and _short(s) in names:
                s = names[_short(s)]
            elif isinstance(s, dict) and isinstance(s.get("type"), (dict, list)):
                s = s["type"]
            elif isinstance(s, dict) and s.get("type") in PRIMITIVES and len(s) == 1:
                s = s["type"]
            elif (
                isinstance(s, dict)
                and isinstance(s.get("type"), str)
                and s["type"] not in PRIMITIVES
                and s["type"] not in ("record", "error", "enum", "fixed", "array", "map")
                and s["type"] in names
            ):
                s = names[s["type"]]
            else:
                return s
        return s

    def describe(self, s: Any, names: dict[str, Any]) -> str:
        s = self.resolve(s, names)
        k = _kind(s)
        if k == "?":
            return json.dumps(s)[:40]
        if k == "union":
            return "union[" + ", ".join(self.describe(b, names) for b in s) + "]"
        if k in ("record", "error", "enum", "fixed"):
            return f"{k} {_short(s.get('name'))}"
        if k == "array":
            return f"array<{self.describe(s.get('items'), names)}>"
        if k == "map":
            return f"map<{self.describe(s.get('values'), names)}>"
        return k

    def note(self, code: str, path: str, text: str, problem: bool) -> None:
        self.out.append(Finding(code, path, text, self.direction if problem else NEITHER))

    def old_new(self, r: Any, w: Any) -> tuple[str, str]:
        rd, wd = self.describe(r, self.rnames), self.describe(w, self.wnames)
        return (wd, rd) if self.reader_new else (rd, wd)

    def matches(self, r: Any, w: Any) -> bool:
        """Whether writer type ``w`` can resolve to reader type ``r`` at the top level."""
        kr, kw = _kind(r), _kind(w)
        if kr == kw == "?":
            return bool(r == w)
        if kr == kw:
            if kr in ("record", "error", "enum", "fixed"):
                return self.same_name(r, w)
            return True
        return kr in PROMOTIONS.get(kw, set())

    def same_name(self, r: dict[str, Any], w: dict[str, Any]) -> bool:
        if _short(r.get("name")) == _short(w.get("name")):
            return True
        return _short(w.get("name")) in {_short(a) for a in _aliases(r)}

    def check(self, r: Any, w: Any, path: str) -> None:
        r, w = self.resolve(r, self.rnames), self.resolve(w, self.wnames)
        key = (id(r), id(w))
        if key in self.seen:
            return
        self.seen.add(key)
        kr, kw = _kind(r), _kind(w)
        if kw == "union" and kr == "union":
            self.unions(r, w, path)
            return
        if kw == "union":
            for b in w:
                b = self.resolve(b, self.wnames)
                if not self.matches(r, b):
                    old, new = self.old_new(r, w)
                    self.note("XRG567", path, f"type changed from {old} to {new}", True)
                    return
                self.check(r, b, path)
            return
        if kr == "union":
            branches = [self.resolve(b, self.rnames) for b in r]
            hit = next((b for b in branches if _kind(b) == kw and self.matches(b, w)), None)
            hit = hit or next((b for b in branches if self.matches(b, w)), None)
            old, new = self.old_new(r, w)
            if hit is None:
                self.note("XRG567", path, f"type changed from {old} to {new}", True)
            else:
                self.note("XRG567", path, f"type changed from {old} to {new}", False)
                self.check(hit, w, path)
            return
        named = ("record", "error", "enum", "fixed")
        if not self.matches(r, w):
            if kr == kw and kr in named:
                self.renamed(kr, r, w, path, True)
            else:
                old, new = self.old_new(r, w)
                self.note("XRG567", path, f"type changed from {old} to {new}", True)
            return
        if kr != kw:
            old, new = self.old_new(r, w)
            self.note("XRG567", path, f"type changed from {old} to {new}", False)
            return
        if _logical(r) != _logical(w):
            old, new = (w, r) if self.reader_new else (r, w)
            text = f"logical type changed from {_logical(old)} to {_logical(new)}"
            self.note("XRG567", path, text, True)
        if kr in named and _short(r.get("name")) != _short(w.get("name")):
            self.renamed(kr, r, w, path, False)
        if kr in ("record", "error"):
            self.record(r, w, path)
        elif kr == "enum":
            self.enum(r, w, path)
        elif kr == "fixed" and r.get("size") != w.get("size"):
            old, new = (w, r) if self.reader_new else (r, w)
            self.note(
                "XRG572",
                path + "/size",
                f"fixed {_short(r.get('name'))} size changed from {old.get('size')} to {new.get('size')}",
                True,
            )
        elif kr == "array":
            self.check(r.get("items"), w.get("items"), path + "/items")
        elif kr == "map":
            self.check(r.get("values"), w.get("values"), path + "/values")

    def renamed(
        self, kind: str, r: dict[str, Any], w: dict[str, Any], path: str, problem: bool
    ) -> None:
        old, new = (w, r) if self.reader_new else (r, w)
        text = f"{kind} renamed from {_short(old.get('name'))} to {_short(new.get('name'))}"
        self.note("XRG571", path + "/name", text, problem)

    def unions(self, r: list[Any], w: list[Any], path: str) -> None:
        rb = [self.resolve(b, self.rnames) for b in r]
        for b in w:
            b = self.resolve(b, self.wnames)
            hit = next((x for x in rb if _kind(x) == _kind(b) and self.matches(x, b)), None)
            hit = hit or next((x for x in rb if self.matches(x, b)), None)
            if hit is None:
                what = "removed" if self.reader_new else "added"
                self.note(
                    "XRG570", path, f"union branch {self.describe(b, self.wnames)} {what}", True
                )
            else:
                self.check(hit, b, path)
        for b in rb:
            if not any(
                _kind(x) == _kind(b) and self.matches(b, self.resolve(x, self.wnames)) for x in w
            ):
                what = "added" if self.reader_new else "removed"
                self.note(
                    "XRG570", path, f"union branch {self.describe(b, self.rnames)} {what}", False
                )

    def _field_path(self, path: str, new_fields: list[Any], name: str) -> str:
        for i, f in enumerate(new_fields):
            if isinstance(f, dict) and f.get("name") == name:
                return f"{path}/fields/{i}"
        return f"{path}/fields"

    def record(self, r: dict[str, Any], w: dict[str, Any], path: str) -> None:
        rf = [f for f in r.get("fields") or [] if isinstance(f, dict)]
        wf = [f for f in w.get("fields") or [] if isinstance(f, dict)]
        new_fields = rf if self.reader_new else wf
        by_name = {f.get("name"): f for f in wf}
        used: set[Any] = set()
        for f in rf:
            name = f.get("name")
            match = by_name.get(name)
            if match is None:
                for alias in _aliases(f):
                    if alias in by_name:
                        match = by_name[alias]
                        old, new = (alias, name) if self.reader_new else (name, alias)
                        self.note(
                            "XRG573",
                            self._field_path(path, new_fields, str(new)),
                            f"field {old!r} renamed to {new!r} (alias)",
                            False,
                        )
                        break
            if match is not None:
                used.add(match.get("name"))
                self.check(
                    f.get("type"),
                    match.get("type"),
                    self._field_path(
                        path, new_fields, str(name if self.reader_new else match.get("name"))
                    ),
                )
                continue
            has_default = "default" in f
            default = (
                f" (default {json.dumps(f.get('default'))})"
                if has_default
                else " without a default"
            )
            if self.reader_new:
                self.note(
                    "XRG565",
                    self._field_path(path, new_fields, str(name)),
                    f"field {name!r} added{default}",
                    not has_default,
                )
            else:
                self.note(
                    "XRG566", path + "/fields", f"field {name!r} removed{default}", not has_default
                )
        for f in wf:
            name = f.get("name")
            if name in used:
                continue
            if any(name in _aliases(x) for x in rf):
                continue
            if set(_aliases(f)) & {x.get("name") for x in rf}:
                continue  # a rename: the reader field's side reports it
            default = (
                f" (default {json.dumps(f.get('default'))})"
                if "default" in f
                else " without a default"
            )
            if self.reader_new:
                self.note("XRG566", path + "/fields", f"field {name!r} removed{default}", False)
            else:
                self.note(
                    "XRG565",
                    self._field_path(path, new_fields, str(name)),
                    f"field {name!r} added{default}",
                    False,
                )

    def enum(self, r: dict[str, Any], w: dict[str, Any], path: str) -> None:
        rs = [s for s in r.get("symbols") or [] if isinstance(s, str)]
        ws = [s for s in w.get("symbols") or [] if isinstance(s, str)]
        r_default = isinstance(r.get("default"), str) and r["default"] in rs
        for s in ws:
            if s not in rs:
                what = "removed" if self.reader_new else "added"
                self.note(
                    "XRG568" if what == "added" else "XRG569",
                    path + "/symbols",
                    f"enum {_short(r.get('name'))} symbol {s!r} {what}",
                    not r_default,
                )
        for s in rs:
            if s not in ws:
                what = "added" if self.reader_new else "removed"
                self.note(
                    "XRG568" if what == "added" else "XRG569",
                    path + "/symbols",
                    f"enum {_short(r.get('name'))} symbol {s!r} {what}",
                    False,
                )


def compare_avro(old: Any, new: Any) -> list[Finding]:
    merged: dict[tuple[str, str, str], frozenset[str]] = {}
    for reader, writer, reader_new in ((new, old, True), (old, new, False)):
        run = _Run(reader, writer, reader_new)
        run.check(reader, writer, "")
        for f in run.out:
            key = (f.code, f.path, f.text)
            merged[key] = merged.get(key, NEITHER) | f.breaks
    return [Finding(c, p, t, b) for (c, p, t), b in merged.items()]
