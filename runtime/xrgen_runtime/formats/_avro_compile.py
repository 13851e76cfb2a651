"""A per-schema Avro binary encoder and decoder, compiled to Python source once per schema.

``compile_codec(parsed_schema)`` returns ``(encode, decode)``: ``encode(datum) -> bytes`` writes
the Avro binary encoding of a datum as pydantic's ``to_python(by_alias=True)`` dumps it (dicts
with wire names, ``str`` enums, ``UUID``, ``Decimal``, ``datetime``/``date``/``time``);
``decode(data) -> datum`` reads it back (every byte must be consumed). Records become straight-
line code (one function per named record, so recursive schemas work); union branches are chosen
by the Python type of the value (records by their exact set of field names). Values that do not
fit raise ``ValueError``. The input is fastavro's parsed schema (full names everywhere).

This is several times faster than fastavro's generic ``schemaless_writer``/``reader`` on
records with logical types and unions, which walk the schema for every datum. A schema the
compiler does not handle raises ``Unsupported`` and the codec uses fastavro.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from ._avro_wire import _DAY_RANGE, _HELPERS, _MS, _TIME_RANGE, _US, _wl

__all__ = ["Unsupported", "compile_codec"]


class Unsupported(Exception):
    """A schema construct the compiler does not handle (fastavro is used instead)."""


_PRIMITIVES = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)


class _Compiler:
    def __init__(self, spark: bool = False, arrow_times: bool = False) -> None:
        #: decode into the values of Spark's Avro mapping (see ``compile_codec``)
        self.spark = spark
        #: timestamps and dates as Arrow's numbers (microseconds, days since the epoch)
        self.arrow_times = arrow_times
        #: whether a recursive reference was decoded to its JSON text
        self.json_text = False
        #: records whose decoder is being generated (a reference to one is recursive)
        self.open: set[str] = set()
        self.named: dict[str, dict[str, Any]] = {}
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.functions: list[str] = []
        self.record_fn: dict[str, tuple[str, str]] = {}
        self.counter = 0

    def var(self, stem: str = "v") -> str:
        self.counter += 1
        return f"_{stem}{self.counter}"

    def const(self, value: Any) -> str:
        name = self.var("c")
        self.ns[name] = value
        return name

    # -- named types ----------------------------------------------------------------------
    def collect(self, s: Any) -> None:
        if isinstance(s, list):
            for b in s:
                self.collect(b)
        elif isinstance(s, dict):
            t = s.get("type")
            if t in ("record", "error", "enum", "fixed"):
                self.named[s["name"]] = s
            for f in s.get("fields", ()):
                self.collect(f["type"])
            for key in ("items", "values"):
                if key in s:
                    self.collect(s[key])
            if isinstance(t, (dict, list)):
                self.collect(t)

    def resolve(self, s: Any) -> Any:
        if isinstance(s, str) and s not in _PRIMITIVES:
            if s not in self.named:
                raise Unsupported(f"unknown named type {s!r}")
            return self.named[s]
        if isinstance(s, dict) and isinstance(s.get("type"), (dict, list)):
            return self.resolve(s["type"])
        if (
            isinstance(s, dict)
            and isinstance(s.get("type"), str)
            and s["type"] not in _PRIMITIVES
            and s["type"] not in ("record", "error", "enum", "fixed", "array", "map")
        ):
            return self.resolve(s["type"])
        return s

    def kind(self, s: Any) -> str:
        s = self.resolve(s)
        if isinstance(s, str):
            return s
        if isinstance(s, list):
            return "union"
        return str(s.get("type"))

    def record(self, s: dict[str, Any]) -> tuple[str, str]:
        """Names of the encoder and decoder functions of record ``s`` (generated once)."""
        name = s["name"]
        if name in self.record_fn:
            return self.record_fn[name]
        enc, dec = self.var("enc"), self.var("dec")
        self.record_fn[name] = (enc, dec)
        self.open.add(name)
        lines = [f"def {enc}(x, out):"]
        for f in s["fields"]:
            v = self.var()
            lines.append(f"    {v} = x[{f['name']!r}]")
            self.encode(f["type"], v, lines, "    ")
        if len(lines) == 1:
            lines.append("    pass")
        self.functions.append("\n".join(lines))
        lines = [f"def {dec}(b, pos):"]
        items = []
        for f in s["fields"]:
            v = self.var()
            self.decode(f["type"], v, lines, "    ")
            items.append(f"{f['name']!r}: {v}")
        lines.append(f"    return {{{', '.join(items)}}}, pos")
        self.functions.append("\n".join(_with_length(lines)))
        self.open.discard(name)
        return enc, dec

    # -- inlined primitives ---------------------------------------------------------------
    def w_long(self, x: str, out: list[str], ind: str, fn: str = "_wl") -> None:
        """Write long ``x``: one byte inline for 0..63 (the usual counts and small values)."""
        out.append(f"{ind}if {x}.__class__ is int and 0 <= {x} < 64:")
        out.append(f"{ind}    out.append({x} << 1)")
        out.append(f"{ind}else:")
        out.append(f"{ind}    {fn}(out, {x})")

    def w_str(self, x: str, out: list[str], ind: str) -> None:
        e, n = self.var("e"), self.var("n")
        out.append(f"{ind}{e} = {x}.encode()")
        out.append(f"{ind}{n} = len({e})")
        out.append(f"{ind}if {n} < 64:")
        out.append(f"{ind}    out.append({n} << 1)")
        out.append(f"{ind}else:")
        out.append(f"{ind}    _wl(out, {n})")
        out.append(f"{ind}out += {e}")

    def r_long(self, v: str, out: list[str], ind: str) -> None:
        """Read a long into ``v``: one-byte values inline."""
        out.append(f"{ind}{v} = b[pos]")
        out.append(f"{ind}if {v} < 128:")
        out.append(f"{ind}    {v} = ({v} >> 1) ^ -({v} & 1)")
        out.append(f"{ind}    pos += 1")
        out.append(f"{ind}else:")
        out.append(f"{ind}    {v}, pos = _rl(b, pos)")

    def r_wide(self, v: str, out: list[str], ind: str) -> None:
        """Read a long that usually spans several bytes (a timestamp) into ``v``: the
        varint loop of ``_rl`` inline (same values, same error), no call per value."""
        c, shift = self.var("w"), self.var("s")
        out.append(f"{ind}{c} = b[pos]")
        out.append(f"{ind}pos += 1")
        out.append(f"{ind}{v} = {c} & 127")
        out.append(f"{ind}{shift} = 7")
        out.append(f"{ind}while {c} & 128:")
        out.append(f"{ind}    {c} = b[pos]")
        out.append(f"{ind}    pos += 1")
        out.append(f"{ind}    {v} |= ({c} & 127) << {shift}")
        out.append(f"{ind}    {shift} += 7")
        out.append(f"{ind}    if {shift} > 70:")
        out.append(f"{ind}        raise ValueError('Avro varint too long')")
        out.append(f"{ind}{v} = ({v} >> 1) ^ -({v} & 1)")

    def r_str(self, v: str, out: list[str], ind: str) -> None:
        n = self.var("n")
        self.r_long(n, out, ind)
        out.append(f"{ind}if {n} < 0 or pos + {n} > _lb:")
        out.append(f"{ind}    _bad({n}, 'string length')")
        out.append(f"{ind}{v} = b[pos:pos + {n}].decode()")
        out.append(f"{ind}pos += {n}")

    # -- encoding -------------------------------------------------------------------------
    def encode(self, s: Any, x: str, out: list[str], ind: str) -> None:
        s = self.resolve(s)
        if isinstance(s, list):
            self.encode_union(s, x, out, ind)
            return
        kind = s if isinstance(s, str) else s.get("type")
        logical = s.get("logicalType") if isinstance(s, dict) else None
        if logical == "decimal" and kind in ("bytes", "fixed"):
            scale = int(s.get("scale", 0))
            if kind == "bytes":
                out.append(f"{ind}_wb(out, _dec_bytes({x}, {scale}))")
            else:
                out.append(f"{ind}out += _dec_fixed({x}, {scale}, {int(s['size'])})")
            return
        if logical in ("timestamp-millis", "local-timestamp-millis") and kind == "long":
            out.append(f"{ind}_wl(out, _ts({x}, _MS))")
            return
        if logical in ("timestamp-micros", "local-timestamp-micros") and kind == "long":
            out.append(f"{ind}_wl(out, _ts({x}, _US))")
            return
        if logical == "date" and kind == "int":
            out.append(f"{ind}_wl(out, _days({x}))")
            return
        if logical == "time-millis" and kind == "int":
            out.append(f"{ind}_wl(out, _tod({x}, 1000))")
            return
        if logical == "time-micros" and kind == "long":
            out.append(f"{ind}_wl(out, _tod({x}, 1000000))")
            return
        if logical == "uuid" and kind == "string":
            out.append(f"{ind}_ws(out, str({x}))")
            return
        if kind == "null":
            out.append(f"{ind}if {x} is not None: _bad({x}, 'null')")
        elif kind == "boolean":
            out.append(
                f"{ind}out.append(1 if {x} is True else 0 if {x} is False else _bad({x}, 'boolean'))"
            )
        elif kind == "int":
            self.w_long(x, out, ind, "_wi")
        elif kind == "long":
            self.w_long(x, out, ind)
        elif kind == "float":
            out.append(f"{ind}out += _F.pack({x})")
        elif kind == "double":
            out.append(f"{ind}out += _D.pack({x})")
        elif kind == "bytes":
            out.append(f"{ind}_wb(out, {x})")
        elif kind == "string":
            self.w_str(x, out, ind)
        elif kind == "fixed":
            size = int(s["size"])
            out.append(f"{ind}if len({x}) != {size}: _bad({x}, 'fixed({size})')")
            out.append(f"{ind}out += {x}")
        elif kind == "enum":
            table = self.const({sym: _varint(i) for i, sym in enumerate(s["symbols"])})
            out.append(f"{ind}out += {table}[_sym({x})]")
        elif kind in ("record", "error"):
            enc, _ = self.record(s)
            out.append(f"{ind}{enc}({x}, out)")
        elif kind == "array":
            item = self.var("i")
            out.append(f"{ind}if {x}:")
            out.append(f"{ind}    _wl(out, len({x}))")
            out.append(f"{ind}    for {item} in {x}:")
            self.encode(s["items"], item, out, ind + "        ")
            out.append(f"{ind}out.append(0)")
        elif kind == "map":
            k, v = self.var("k"), self.var("m")
            out.append(f"{ind}if {x}:")
            out.append(f"{ind}    _wl(out, len({x}))")
            out.append(f"{ind}    for {k}, {v} in {x}.items():")
            self.w_str(k, out, ind + "        ")
            self.encode(s["values"], v, out, ind + "        ")
            out.append(f"{ind}out.append(0)")
        else:
            raise Unsupported(f"Avro type {kind!r}")

    def predicate(self, s: Any, x: str) -> str:
        """A Python test that value ``x`` belongs to union branch ``s``."""
        s = self.resolve(s)
        kind = s if isinstance(s, str) else s.get("type")
        logical = s.get("logicalType") if isinstance(s, dict) else None
        if logical == "decimal":
            return f"isinstance({x}, Decimal)"
        if logical in (
            "timestamp-millis",
            "timestamp-micros",
            "local-timestamp-millis",
            "local-timestamp-micros",
        ):
            return f"isinstance({x}, datetime)"
        if logical == "date":
            return f"(isinstance({x}, date) and not isinstance({x}, datetime))"
        if logical in ("time-millis", "time-micros"):
            return f"isinstance({x}, time)"
        if logical == "uuid":
            return f"isinstance({x}, (UUID, str))"
        if kind == "null":
            return f"{x} is None"
        if kind == "boolean":
            return f"({x} is True or {x} is False)"
        if kind in ("int", "long"):
            return f"type({x}) is int"
        if kind in ("float", "double"):
            return f"type({x}) is float"
        if kind in ("bytes", "fixed"):
            return f"isinstance({x}, (bytes, bytearray))"
        if kind == "string":
            return f"isinstance({x}, str)"
        if kind == "enum":
            return f"(isinstance({x}, str) and _sym({x}) in {self.const(frozenset(s['symbols']))})"
        if kind in ("record", "error"):
            names = self.const(frozenset(f["name"] for f in s["fields"]))
            return f"(isinstance({x}, dict) and {x}.keys() == {names})"
        if kind == "array":
            return f"isinstance({x}, (list, tuple))"
        if kind == "map":
            return f"isinstance({x}, dict)"
        raise Unsupported(f"union branch {kind!r}")

    def encode_union(
        self, branches: list[Any], x: str, out: list[str], ind: str
    ) -> None:
        kinds = [self.kind(b) for b in branches]
        # exact tests first (records before maps, enums before strings), then numbers widened
        order = sorted(
            range(len(branches)), key=lambda i: (kinds[i] in ("map", "string"), i)
        )
        first = True
        for i in order:
            test = self.predicate(branches[i], x)
            out.append(f"{ind}{'if' if first else 'elif'} {test}:")
            out.append(f"{ind}    out += {_varint(i)!r}")
            self.encode(branches[i], x, out, ind + "    ")
            first = False
        wide = [i for i, k in enumerate(kinds) if k in ("long", "float", "double")]
        for i in wide:
            test = (
                f"(type({x}) is int or type({x}) is float) and {x} == int({x})"
                if kinds[i] == "long"
                else f"type({x}) is int"
            )
            out.append(f"{ind}elif {test}:")
            out.append(f"{ind}    out += {_varint(i)!r}")
            conv = f"int({x})" if kinds[i] == "long" else f"float({x})"
            self.encode(branches[i], conv, out, ind + "    ")
        out.append(f"{ind}else:")
        out.append(f"{ind}    _bad({x}, 'union')")

    # -- decoding -------------------------------------------------------------------------
    def decode(self, s: Any, v: str, out: list[str], ind: str) -> None:
        s = self.resolve(s)
        if isinstance(s, list):
            # the branch is chosen on the index's zigzag form: for an index below 64 that
            # is the byte itself (no decoding); a longer varint is decoded and re-encoded
            i = self.var("u")
            out.append(f"{ind}{i} = b[pos]")
            out.append(f"{ind}if {i} < 128:")
            out.append(f"{ind}    pos += 1")
            out.append(f"{ind}else:")
            out.append(f"{ind}    {i}, pos = _rl(b, pos)")
            out.append(f"{ind}    {i} = {i} * 2 if {i} >= 0 else -{i} * 2 - 1")
            members = self._spark_members(s)
            for index, branch in enumerate(s):
                test = "if" if index == 0 else "elif"
                out.append(f"{ind}{test} {i} == {2 * index}:")
                self.decode(branch, v, out, ind + "    ")
                if members is not None and index in members:
                    out.append(f"{ind}    {v} = {{{members[index]!r}: {v}}}")
            out.append(f"{ind}else:")
            out.append(f"{ind}    _bad(({i} >> 1) ^ -({i} & 1), 'union index')")
            return
        kind = s if isinstance(s, str) else s.get("type")
        logical = s.get("logicalType") if isinstance(s, dict) else None
        if logical == "decimal" and kind in ("bytes", "fixed"):
            raw = self.var("r")
            if kind == "bytes":
                out.append(f"{ind}{raw}, pos = _rb(b, pos)")
            else:
                out.append(f"{ind}{raw}, pos = _rfixed(b, pos, {int(s['size'])})")
            out.append(f"{ind}{v} = _decimal({raw}, {int(s.get('scale', 0))})")
            return
        timestamps = ("timestamp-millis", "timestamp-micros")
        local = ("local-timestamp-millis", "local-timestamp-micros")
        if logical in timestamps + local and kind == "long":
            millis = logical.endswith("millis")
            unit = "_MS" if millis else "_US"
            epoch = "_EPOCH" if logical in timestamps else "_EPOCH_NAIVE"
            self.r_wide(v, out, ind)
            if self.arrow_times:
                lo, hi = _TIME_RANGE[_MS if millis else _US]
                if millis:
                    out.append(f"{ind}if {lo} <= {v} <= {hi}:")
                    out.append(f"{ind}    {v} = {v} * 1000")
                    out.append(f"{ind}else:")
                else:
                    out.append(f"{ind}if not {lo} <= {v} <= {hi}:")
                out.append(f"{ind}    {v} = {epoch} + {v} * {unit}  # raises")
            else:
                out.append(f"{ind}{v} = {epoch} + {v} * {unit}")
            return
        if logical == "date" and kind == "int":
            self.r_long(v, out, ind)
            if self.arrow_times:
                out.append(f"{ind}if not {_DAY_RANGE[0]} <= {v} <= {_DAY_RANGE[1]}:")
                out.append(f"{ind}    _ord({v} + _EPOCH_ORDINAL)")
            else:
                out.append(f"{ind}{v} = _ord({v} + _EPOCH_ORDINAL)")
            return
        if self.spark and logical in ("time-millis", "time-micros", "uuid"):
            logical = (
                None  # Spark's Avro mapping keeps the underlying int, long or string
            )
        if logical in ("time-millis", "time-micros") and kind in ("int", "long"):
            per = 1000 if logical == "time-millis" else 1000000
            out.append(f"{ind}{v}, pos = _rl(b, pos)")
            out.append(f"{ind}{v} = _ms_time({v}, {per})")
            return
        if logical == "uuid" and kind == "string":
            self.r_str(v, out, ind)
            out.append(f"{ind}{v} = UUID({v})")
            return
        if kind == "null":
            out.append(f"{ind}{v} = None")
        elif kind == "boolean":
            out.append(
                f"{ind}{v} = b[pos] == 1 if b[pos] < 2 else _bad(b[pos], 'boolean')"
            )
            out.append(f"{ind}pos += 1")
        elif kind in ("int", "long"):
            self.r_long(v, out, ind)
        elif kind == "float":
            out.append(f"{ind}{v} = _F.unpack_from(b, pos)[0]")
            out.append(f"{ind}pos += 4")
        elif kind == "double":
            out.append(f"{ind}{v} = _D.unpack_from(b, pos)[0]")
            out.append(f"{ind}pos += 8")
        elif kind == "bytes":
            out.append(f"{ind}{v}, pos = _rb(b, pos)")
        elif kind == "string":
            self.r_str(v, out, ind)
        elif kind == "fixed":
            out.append(f"{ind}{v}, pos = _rfixed(b, pos, {int(s['size'])})")
        elif kind == "enum":
            syms = self.const(tuple(s["symbols"]))
            self.r_long(v, out, ind)
            out.append(
                f"{ind}{v} = {syms}[{v}] if 0 <= {v} < {len(s['symbols'])} else _bad({v}, 'enum index')"
            )
        elif kind in ("record", "error"):
            recursive = s["name"] in self.open
            _, dec = self.record(s)
            out.append(f"{ind}{v}, pos = {dec}(b, pos)")
            if self.spark and recursive:
                # Spark's type of a recursive reference is a string: the value's JSON text
                out.append(f"{ind}{v} = _json({v})")
                self.json_text = True
        elif kind in ("array", "map"):
            n = self.var("n")
            item = self.var("i")
            out.append(f"{ind}{v} = {{}}" if kind == "map" else f"{ind}{v} = []")
            self.r_long(n, out, ind)
            out.append(f"{ind}while {n}:")
            out.append(f"{ind}    if {n} < 0:")
            out.append(f"{ind}        {n} = -{n}")
            out.append(f"{ind}        _, pos = _rl(b, pos)")
            out.append(f"{ind}    for _ in range({n}):")
            if kind == "map":
                k = self.var("k")
                out.append(f"{ind}        {k}, pos = _rs(b, pos)")
                self.decode(s["values"], item, out, ind + "        ")
                out.append(f"{ind}        {v}[{k}] = {item}")
            else:
                self.decode(s["items"], item, out, ind + "        ")
                out.append(f"{ind}        {v}.append({item})")
            self.r_long(n, out, ind + "    ")
        else:
            raise Unsupported(f"Avro type {kind!r}")

    def _spark_members(self, union: list[Any]) -> dict[int, str] | None:
        """Branch index -> ``memberN`` field of Spark's struct for ``union`` (spark mode,
        unions of two or more non-null types other than ``[int, long]``/``[float, double]``).
        """
        if not self.spark:
            return None
        kinds = [self.kind(b) for b in union]
        non_null = [i for i, k in enumerate(kinds) if k != "null"]
        if len(non_null) < 2:
            return None
        plain = all(isinstance(union[i], str) for i in non_null)
        if plain and {kinds[i] for i in non_null} in (
            {"int", "long"},
            {"float", "double"},
        ):
            return None
        return {i: f"member{n}" for n, i in enumerate(non_null)}


def _varint(i: int) -> bytes:
    out = bytearray()
    _wl(out, i)
    return bytes(out)


def _codec_source(parsed: Any, spark: bool, arrow_times: bool) -> tuple[str, _Compiler]:
    """The source of the codec's functions and the compiler that holds their names."""
    c = _Compiler(spark, arrow_times)
    c.collect(parsed)
    enc_lines = ["def _encode(x):", "    out = bytearray()"]
    c.encode(parsed, "x", enc_lines, "    ")
    enc_lines.append("    return bytes(out)")
    dec_lines = ["def _decode(b):", "    pos = 0"]
    c.decode(parsed, "v", dec_lines, "    ")
    dec_lines += [
        "    if pos != len(b):",
        "        raise ValueError(f'{len(b) - pos} bytes after the Avro datum')",
        "    return v",
    ]
    decode = "\n".join(_with_length(dec_lines))
    source = "\n\n".join([*c.functions, "\n".join(enc_lines), decode])
    return source, c


def _with_length(lines: list[str]) -> list[str]:
    """A generated decode function's ``lines`` with ``_lb = len(b)`` after its ``def`` line
    when its body reads a string (the bound :meth:`_Compiler.r_str` checks; read once per
    call, not per string, and not at all in functions without strings)."""
    if not any("> _lb:" in line for line in lines[1:]):  # the bound in :meth:`r_str`
        return lines
    return [lines[0], "    _lb = len(b)", *lines[1:]]


def compile_codec(
    parsed: Any, spark: bool = False
) -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """``(encode, decode)`` for fastavro's parsed schema ``parsed`` (see the module doc).

    With ``spark=True`` the decoder returns the values of Spark's Avro mapping (what
    ``from_avro`` gives, for the Spark decoder's Arrow path): ``uuid`` stays a string,
    ``time-*`` the underlying number, a union of several non-null types a dict with the one
    ``memberN`` key of its branch, a recursive record reference its JSON text, and
    timestamps and dates the numbers Arrow stores for them (microseconds and days since the
    epoch: no ``datetime`` built per value, none converted back by Arrow) unless a recursive
    reference's JSON text would show them.
    """
    source, c = _codec_source(parsed, spark, arrow_times=spark)
    if c.json_text:
        source, c = _codec_source(parsed, spark, arrow_times=False)
    exec(
        compile(source, "<xrgen avro codec>", "exec"), c.ns
    )  # noqa: S102 - our own source
    encode, decode = c.ns["_encode"], c.ns["_decode"]

    def safe_decode(data: bytes) -> Any:
        try:
            return decode(data)
        except (IndexError, struct.error, UnicodeDecodeError, OverflowError) as exc:
            raise ValueError(f"not Avro binary of the schema: {exc}") from None

    def safe_encode(datum: Any) -> bytes:
        try:
            return encode(datum)  # type: ignore[no-any-return]
        except (
            KeyError,
            TypeError,
            AttributeError,
            struct.error,
            OverflowError,
        ) as exc:
            raise ValueError(f"value does not fit the Avro schema: {exc!r}") from None

    return safe_encode, safe_decode
