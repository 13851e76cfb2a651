"""Protobuf rules, after ``buf breaking``'s WIRE category: what keeps the binary encoding
readable both ways. The schema text (``.proto``) is read by a small parser (messages, nested
messages and enums, fields with labels, maps, oneofs, ``reserved``); options and services are
skipped. Messages and enums are matched by full name, fields by number.

Both directions break (like ``buf breaking``, which is not directional) when a field is deleted
without reserving its number (a later field may reuse it with another type), a field's type
changes to one with another wire encoding, a numeric field changes between singular and
repeated, a field moves into or out of a oneof, a reserved number is released or reused, an
enum value is deleted without reserving its number, or the payload's root message changes.
Compatible: fields and values added, renames (the wire carries numbers), types within one wire
group (int32/int64/uint32/uint64/bool/enum, sint32/sint64, fixed32/sfixed32, fixed64/sfixed64,
string/bytes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .changes import BOTH, NEITHER, Finding

_TOKEN = re.compile(
    r'\s+|//[^\n]*|/\*.*?\*/|(?P<tok>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[A-Za-z_.][A-Za-z0-9_.]*|-?\d[\w.+-]*|.)',
    re.S,
)
_WIRE = {
    **dict.fromkeys(("int32", "int64", "uint32", "uint64", "bool", "enum"), "varint"),
    **dict.fromkeys(("sint32", "sint64"), "zigzag"),
    **dict.fromkeys(("fixed32", "sfixed32"), "fixed32"),
    **dict.fromkeys(("fixed64", "sfixed64"), "fixed64"),
    "float": "float",
    "double": "double",
    **dict.fromkeys(("string", "bytes"), "bytes"),
}
_NUMERIC = frozenset(k for k, v in _WIRE.items() if v not in ("bytes",))


@dataclass(slots=True)
class Field:
    name: str
    type: str
    label: str  # "" | "optional" | "required" | "repeated" | "map"
    oneof: str | None = None


@dataclass(slots=True)
class Message:
    fields: dict[int, Field] = field(default_factory=dict)
    reserved_numbers: set[int] = field(default_factory=set)
    reserved_names: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Enum:
    values: dict[int, str] = field(default_factory=dict)
    reserved_numbers: set[int] = field(default_factory=set)


@dataclass(slots=True)
class Proto:
    messages: dict[str, Message] = field(default_factory=dict)
    enums: dict[str, Enum] = field(default_factory=dict)
    root: str | None = None


class ProtoSyntaxError(ValueError):
    pass


def _tokens(text: str) -> list[str]:
    return [m.group("tok") for m in _TOKEN.finditer(text) if m.group("tok")]


class _Parser:
    def __init__(self, text: str) -> None:
        self.t = _tokens(text)
        self.i = 0
        self.proto = Proto()
        self.package = ""

    def peek(self) -> str:
        return self.t[self.i] if self.i < len(self.t) else ""

    def next(self) -> str:
        if self.i >= len(self.t):
            raise ProtoSyntaxError("unexpected end of schema")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, tok: str) -> None:
        got = self.next()
        if got != tok:
            raise ProtoSyntaxError(f"expected {tok!r}, got {got!r}")

    def skip_statement(self) -> None:
        depth = 0
        while True:
            tok = self.next()
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth <= 0:
                    return
            elif tok == ";" and depth == 0:
                return

    def parse(self) -> Proto:
        while self.i < len(self.t):
            tok = self.peek()
            if tok == "package":
                self.next()
                self.package = self.next()
                self.expect(";")
            elif tok == "message":
                self.next()
                name = self.next()
                full = f"{self.package}.{name}" if self.package else name
                self.proto.root = self.proto.root or full
                self.message(full)
            elif tok == "enum":
                self.next()
                name = self.next()
                self.enum(f"{self.package}.{name}" if self.package else name)
            elif tok == ";":
                self.next()
            else:
                self.skip_statement()
        return self.proto

    def message(self, full: str) -> None:
        msg = self.proto.messages.setdefault(full, Message())
        self.expect("{")
        self.body(full, msg, None)

    def body(self, full: str, msg: Message, oneof: str | None) -> None:
        while True:
            tok = self.peek()
            if tok == "}":
                self.next()
                return
            if tok == ";":
                self.next()
            elif tok == "message":
                self.next()
                self.message(f"{full}.{self.next()}")
            elif tok == "enum":
                self.next()
                self.enum(f"{full}.{self.next()}")
            elif tok == "oneof":
                self.next()
                name = self.next()
                self.expect("{")
                self.body(full, msg, name)
            elif tok == "reserved":
                self.next()
                self.reserved(msg.reserved_numbers, msg.reserved_names)
            elif tok in ("option", "extensions", "extend", "group"):
                self.skip_statement()
            else:
                self.field(msg, oneof)

    def field(self, msg: Message, oneof: str | None) -> None:
        label = ""
        tok = self.next()
        if tok in ("optional", "required", "repeated"):
            label, tok = tok, self.next()
        if tok == "map":
            self.expect("<")
            key = self.next()
            self.expect(",")
            value = self.next()
            self.expect(">")
            ftype, label = f"map<{key},{value}>", "map"
        else:
            ftype = tok
        name = self.next()
        self.expect("=")
        number = self.next()
        self.end_field()
        try:
            msg.fields[int(number, 0)] = Field(name, ftype.lstrip("."), label, oneof)
        except ValueError as e:
            raise ProtoSyntaxError(f"field {name!r} has number {number!r}") from e

    def end_field(self) -> None:
        """Skip ``[options]`` and the closing ``;`` of a field or enum value."""
        if self.peek() == "[":
            while self.next() != "]":
                pass
        self.expect(";")

    def reserved(self, numbers: set[int], names: set[str]) -> None:
        while True:
            tok = self.next()
            if tok == ";":
                return
            if tok == ",":
                continue
            if tok[:1] in "\"'":
                names.add(tok[1:-1])
            elif tok.lstrip("-").isdigit():
                lo = int(tok)
                if self.peek() == "to":
                    self.next()
                    hi_tok = self.next()
                    hi = 536870911 if hi_tok == "max" else int(hi_tok)
                    numbers.update(range(lo, min(hi, lo + 100000) + 1))
                else:
                    numbers.add(lo)

    def enum(self, full: str) -> None:
        en = self.proto.enums.setdefault(full, Enum())
        self.expect("{")
        while True:
            tok = self.next()
            if tok == "}":
                return
            if tok == ";":
                continue
            if tok == "option":
                self.skip_statement()
            elif tok == "reserved":
                self.reserved(en.reserved_numbers, set())
            else:
                self.expect("=")
                number = int(self.next(), 0)
                self.end_field()
                en.values.setdefault(number, tok)


def parse_proto(text: str) -> Proto:
    return _Parser(text).parse()


def _text(schema: Any) -> str | None:
    if isinstance(schema, str):
        return schema
    if isinstance(schema, dict):
        for k in ("proto", "schema", "text"):
            if isinstance(schema.get(k), str):
                return str(schema[k])
    return None


def _wire(t: str, p: Proto) -> str:
    if t in _WIRE:
        return _WIRE[t]
    if t.startswith("map<"):
        return "map"
    short = t.rsplit(".", 1)[-1]
    if any(e.rsplit(".", 1)[-1] == short for e in p.enums):
        return "varint"
    return "message"


def compare_protobuf(old: Any, new: Any) -> list[Finding]:
    ot, nt = _text(old), _text(new)
    if ot is None or nt is None:
        return [
            Finding("XRG545", "", "the Protobuf schema is not .proto text; not checked", NEITHER)
        ]
    try:
        a, b = parse_proto(ot), parse_proto(nt)
    except (ProtoSyntaxError, ValueError) as e:
        return [
            Finding("XRG545", "", f"the Protobuf schema cannot be read ({e}); not checked", NEITHER)
        ]
    out: list[Finding] = []

    def add(code: str, text: str, breaks: frozenset[str]) -> None:
        out.append(Finding(code, "", text, breaks))

    if a.root and b.root and a.root != b.root:
        add("XRG588", f"root message changed from {a.root} to {b.root}", BOTH)
    for name, om in a.messages.items():
        nm = b.messages.get(name)
        if nm is None:
            add("XRG588", f"message {name} removed", NEITHER)
            continue
        _message(name, om, nm, a, b, add)
    for name in b.messages.keys() - a.messages.keys():
        add("XRG589", f"message {name} added", NEITHER)
    for name, oe in a.enums.items():
        ne = b.enums.get(name)
        if ne is None:
            add("XRG588", f"enum {name} removed", NEITHER)
            continue
        for num, vname in oe.values.items():
            if num not in ne.values:
                if num in ne.reserved_numbers:
                    add(
                        "XRG585",
                        f"enum {name} value {vname} = {num} deleted (number reserved)",
                        NEITHER,
                    )
                else:
                    add(
                        "XRG585",
                        f"enum {name} value {vname} = {num} deleted without reserving its number",
                        BOTH,
                    )
            elif ne.values[num] != vname:
                add(
                    "XRG584",
                    f"enum {name} value {num} renamed from {vname} to {ne.values[num]}",
                    NEITHER,
                )
        for num, vname in ne.values.items():
            if num not in oe.values:
                add("XRG589", f"enum {name} value {vname} = {num} added", NEITHER)
    return out


def _message(name: str, om: Message, nm: Message, a: Proto, b: Proto, add: Any) -> None:
    for num, f in om.fields.items():
        g = nm.fields.get(num)
        what = f"message {name} field {f.name} = {num}"
        if g is None:
            if num in nm.reserved_numbers:
                add("XRG580", f"{what} deleted (number reserved)", NEITHER)
            else:
                add("XRG580", f"{what} deleted without reserving its number", BOTH)
            continue
        if f.name != g.name:
            add("XRG584", f"{what} renamed to {g.name}", NEITHER)
        if f.type != g.type:
            wa, wb = _wire(f.type, a), _wire(g.type, b)
            if (
                wa == wb
                and wa != "map"
                and (wa != "message" or f.type.rsplit(".", 1)[-1] == g.type.rsplit(".", 1)[-1])
            ):
                add(
                    "XRG582",
                    f"{what} type changed from {f.type} to {g.type} (same wire encoding)",
                    NEITHER,
                )
            else:
                add(
                    "XRG581",
                    f"{what} type changed from {f.type} to {g.type}: wire-incompatible",
                    BOTH,
                )
        if (
            (f.label == "repeated") != (g.label == "repeated")
            and f.label != "map"
            and g.label != "map"
        ):
            numeric = f.type in _NUMERIC or g.type in _NUMERIC or _wire(f.type, a) == "varint"
            add(
                "XRG583",
                f"{what} cardinality changed from {f.label or 'singular'} to {g.label or 'singular'}",
                BOTH if numeric else NEITHER,
            )
        if f.oneof != g.oneof:
            add(
                "XRG587",
                f"{what} moved from oneof {f.oneof or '-'} to oneof {g.oneof or '-'}",
                BOTH,
            )
    for num, g in nm.fields.items():
        if num not in om.fields:
            if num in om.reserved_numbers or g.name in om.reserved_names:
                add(
                    "XRG586",
                    f"message {name} field {g.name} = {num} reuses a number or name OLD reserved",
                    BOTH,
                )
            else:
                add("XRG589", f"message {name} field {g.name} = {num} added", NEITHER)
    released = sorted(n for n in om.reserved_numbers - nm.reserved_numbers if n not in nm.fields)
    if released:
        shown = ", ".join(map(str, released[:5])) + (", ..." if len(released) > 5 else "")
        add("XRG586", f"message {name} no longer reserves field numbers {shown}", BOTH)
