"""Protobuf payloads (``.proto`` text, proto2 or proto3): spellings, content types, checks,
compilation, pydantic models and Spark types.

The ``.proto`` text is compiled at generation time with the protoc of grpcio-tools
(``grpc_tools.protoc``) into ``<package>/_proto/<name>_<hash>_pb2.py`` (the file name carries a
hash of the text, so packages generated from different versions of a schema never clash in
protobuf's default descriptor pool). The payload models stay pydantic, generated from the
compiled descriptor: one model per message (nested messages too), enums as ``str`` enums of
the value names, ``repeated`` -> ``list``, ``map`` -> ``dict``, message fields and proto3
``optional`` and ``oneof`` members -> ``X | None = None``, other scalars default to their zero
value; a message with a ``oneof`` of several members gets a model validator refusing more
than one of them set (``check_oneofs``) and states the rule in its JSON Schema
(``oneof_schema``: ``not`` any pair of members both present and not null). The payload's model is the first top-level message of the file. The wire bytes are
Protobuf binary of the compiled class when the content type is Protobuf (``application/protobuf``
is inferred when the catalog declares none); ``xrgen_runtime.formats.protobuf`` is the codec.

Spark types: message -> ``struct``, ``repeated`` -> ``array``, ``map`` -> ``map``, enum ->
``string``, 32-bit integers -> ``integer``, 64-bit -> ``long``, ``float``/``double``, ``bool`` ->
``boolean``, ``bytes`` -> ``binary``, ``string``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xrgen_runtime.formats import PROTOBUF_MEDIA_TYPES

from ...literals import py_str
from ...model import ir
from ...naming import Scope, pascal, snake
from ...options import Options
from .._shared.content import carried
from .._shared.defaults import apart as apart
from .._shared.defaults import check_payload as check_payload
from .._shared.defaults import check_unlabelled as check_unlabelled
from .._shared.defaults import field_names as field_names
from .._shared.defaults import field_pointer as field_pointer
from .._shared.defaults import shapes as shapes
from .._shared.defaults import spark_avro as spark_avro
from .._shared.defaults import spark_read as spark_read
from .._shared.defaults import spark_recursive as spark_recursive
from .._shared.defaults import value_checks as value_checks
from .._shared.fragment import Selected
from .._shared.fragment import deep_link as deep_link
from .._shared.models import Diag, Imports, claim_class, model_head, permissive
from .._shared.spark import SparkType, array, field, map_of, struct

NAME = "protobuf"
SPELLINGS = frozenset({"protobuf", "proto", "proto3", "proto2", "protocolbuffers"})
#: payload models are generated (others keep their data as bytes)
MODELED = True
TITLE = "Protobuf schema"
#: the format name xRegistry defines, the versions xrgen knows (a regular expression over the
#: normalized version, ``formats.spelling.schema_format_version``) and one example; spellings
#: that name a data format rather than a schema language (warning XRG148)
FORMAT = "Protobuf"
VERSIONS = r"[23]"
EXAMPLE = "Protobuf/3"
DATA_NAMES: frozenset[str] = frozenset()
CONTENT_TYPE = "application/protobuf"
MEDIA_TYPES = PROTOBUF_MEDIA_TYPES
#: schemas are ``.proto`` text; the codec and the extra it needs
JSON_SCHEMA = False
TEXT = True
RUNTIME_MODULE = "protobuf"
RUNTIME_EXTRA = "protobuf"

#: a .proto schema could not be compiled or mapped: the payload gets a permissive model
XRG_PROTO_UNMAPPED = "XRG324"

MISSING_PROTOC = "grpcio-tools is not installed (pip install 'xrgen[protobuf]')"

# FieldDescriptorProto types and labels
_DOUBLE, _FLOAT, _INT64, _UINT64, _INT32, _FIXED64, _FIXED32, _BOOL = 1, 2, 3, 4, 5, 6, 7, 8
_STRING, _GROUP, _MESSAGE, _BYTES, _UINT32, _ENUM = 9, 10, 11, 12, 13, 14
_SFIXED32, _SFIXED64, _SINT32, _SINT64 = 15, 16, 17, 18
_REPEATED = 3
_INT32S = {_INT32, _SINT32, _SFIXED32}
_UINT32S = {_UINT32, _FIXED32}
_INT64S = {_INT64, _SINT64, _SFIXED64}
_UINT64S = {_UINT64, _FIXED64}
_PY_SCALARS = {_DOUBLE: "float", _BOOL: "bool", _STRING: "str", _BYTES: "bytes"}
_ZERO = {_DOUBLE: "0.0", _FLOAT: "0.0", _BOOL: "False", _STRING: '""', _BYTES: 'b""'}
_SPARK = {_DOUBLE: "double", _FLOAT: "float", _BOOL: "boolean", _STRING: "string", _BYTES: "binary"}


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes Protobuf binary."""
    if content_type is None:
        return False
    return content_type.split(";", 1)[0].strip().lower() in MEDIA_TYPES


def guess(schema: Any) -> bool:
    """An unlabelled string schema that looks like ``.proto`` text."""
    return isinstance(schema, str) and "syntax" in schema and "message" in schema


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """A Protobuf schema is ``.proto`` text (XRG154 otherwise)."""
    if not isinstance(schema, str):
        diags.error("XRG154", file, ptr, "a Protobuf schema must be the .proto text (a string)")
        return
    # .proto text that protoc rejects is reported when the payload is built (XRG220: the
    # payload stays bytes), as real catalogs carry broken schemas for unused messages


def unusable(schema: Any) -> str | None:
    """Why payloads of ``schema`` cannot be modeled here (``None``: they can)."""
    if not isinstance(schema, str):
        return "not .proto text"
    compiled = compile_proto(schema)
    if compiled.error:
        return compiled.error
    return None if compiled.file.message_type else "the .proto file has no message"


def root_message(schema: Any) -> str | None:
    """The name of the payload's message: the first top-level message of the .proto text."""
    if not isinstance(schema, str):
        return None
    compiled = compile_proto(schema)
    if compiled.file is not None and compiled.file.message_type:
        return str(compiled.file.message_type[0].name)
    return None


# --------------------------------------------------------------------------- compilation


@dataclass(frozen=True, slots=True)
class Compiled:
    """protoc's output for one .proto text: the module stem (``<stem>_pb2``), the ``_pb2``
    source, the FileDescriptorProto of the file, the serialized FileDescriptorSet of the file
    and its imports (``--descriptor_set_out --include_imports``: what Spark's
    ``from_protobuf`` reads), or the error."""

    stem: str
    source: str = ""
    file: Any = None
    error: str = ""
    descriptor_set: bytes = b""


def proto_stem(text: str) -> str:
    """File stem of a .proto text: its first message (snake case) and a hash of the text."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    m = re.search(r"\bmessage\s+([A-Za-z_][A-Za-z0-9_]*)", text)
    return f"{snake(m.group(1)) if m else 'schema'}_{digest}"


@functools.lru_cache(maxsize=256)
def compile_proto(text: str) -> Compiled:
    """Compile ``text`` with grpcio-tools' protoc (deterministic: the same text gives the same
    module); imports of Google's well-known types resolve, others are errors."""
    stem = proto_stem(text)
    try:
        import grpc_tools  # type: ignore[import-untyped]
        from google.protobuf import descriptor_pb2  # type: ignore[import-untyped]
        from grpc_tools import protoc
    except ImportError:
        return Compiled(stem, error=MISSING_PROTOC)

    include = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, stem + ".proto")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        err_path = os.path.join(tmp, "err")
        args = [
            "protoc",
            f"-I{tmp}",
            f"-I{include}",
            f"--python_out={out}",
            f"--descriptor_set_out={out}/set.pb",
            "--include_imports",
            path,
        ]
        rc = _run_protoc(protoc, args, err_path)
        if rc != 0:
            with open(err_path, encoding="utf-8", errors="replace") as f:
                detail = " ".join(f.read().replace(tmp + os.sep, "").split())
            return Compiled(stem, error=detail[:300] or f"protoc exit {rc}")
        with open(os.path.join(out, stem + "_pb2.py"), encoding="utf-8") as f:
            source = f.read()
        file_set = descriptor_pb2.FileDescriptorSet()
        with open(os.path.join(out, "set.pb"), "rb") as f:
            raw = f.read()
        file_set.ParseFromString(raw)
    # imports come first: the compiled file is the last of the set
    return Compiled(stem, source, file_set.file[-1], descriptor_set=raw)


def _run_protoc(protoc: Any, args: list[str], err_path: str) -> int:
    """protoc.main with its stderr (file descriptor 2) captured into ``err_path``."""
    saved = os.dup(2)
    try:
        with open(err_path, "wb") as err:
            os.dup2(err.fileno(), 2)
            try:
                return int(protoc.main(args))
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def module_source(text: str, header: str) -> str:
    """The ``_pb2`` module as written into the package: our header, type checking off."""
    compiled = compile_proto(text)
    return (
        header
        + "\n# mypy: ignore-errors\n# flake8: noqa\n# fmt: off\n"
        + compiled.source.rstrip()
        + "\n# fmt: on\n"
    )


# --------------------------------------------------------------------------- models


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    """The pydantic source of every Protobuf payload's messages (from the compiled descriptor)."""
    blocks: list[str] = []
    done: dict[str, str] = {}
    for p in payloads:
        compiled = compile_proto(p.schema) if isinstance(p.schema, str) else None
        if compiled is None or compiled.file is None or not compiled.file.message_type:
            reason = compiled.error if compiled is not None else "not .proto text"
            diags.append(
                (
                    p.location,
                    XRG_PROTO_UNMAPPED,
                    f"Protobuf schema not mapped ({reason}); permissive model",
                )
            )
            blocks.append(permissive(p.model_name, imports, None))
            continue
        if compiled.stem in done:
            blocks.append(f"class {p.model_name}({done[compiled.stem]}):\n    pass")
            continue
        mapper = _Mapper(compiled.file, imports, scope, diags, p)
        blocks.extend(mapper.render())
        done[compiled.stem] = p.model_name
    return "\n\n\n".join(blocks)


class _Mapper:
    def __init__(
        self, file: Any, imports: Imports, scope: Scope, diags: list[Diag], payload: ir.Payload
    ) -> None:
        self.file = file
        self.imports = imports
        self.scope = scope
        self.diags = diags
        self.payload = payload
        self.package = file.package
        #: full name (".pkg.Outer.Inner") -> (class name, descriptor, kind)
        self.names: dict[str, str] = {}
        self.messages: dict[str, Any] = {}
        self.enums: dict[str, Any] = {}
        prefix = "." + self.package if self.package else ""
        root = file.message_type[0]
        self._collect(file.message_type, file.enum_type, prefix, root.name)

    def _collect(self, messages: Any, enums: Any, prefix: str, root: str) -> None:
        for e in enums:
            full = f"{prefix}.{e.name}"
            self.enums[full] = e
            self.names[full] = claim_class(
                self.scope, pascal(self._local(full)), self.payload.location, self.diags
            )
        for m in messages:
            full = f"{prefix}.{m.name}"
            if m.options.map_entry:
                self.messages[full] = m
                continue
            self.messages[full] = m
            if full == f"{'.' + self.package if self.package else ''}.{root}":
                self.names[full] = self.payload.model_name
            else:
                self.names[full] = claim_class(
                    self.scope, pascal(self._local(full)), self.payload.location, self.diags
                )
            self._collect(m.nested_type, m.enum_type, full, root)

    def _local(self, full: str) -> str:
        prefix = "." + self.package + "." if self.package else "."
        return full[len(prefix) :].replace(".", "_") if full.startswith(prefix) else full.strip(".")

    def render(self) -> list[str]:
        blocks = [self._enum(full, e) for full, e in self.enums.items()]
        order: list[str] = []
        seen: set[str] = set()

        def visit(full: str) -> None:
            if full in seen:
                return
            seen.add(full)
            for f in self.messages[full].field:
                if f.type == _MESSAGE and f.type_name in self.messages:
                    visit(f.type_name)
            if not self.messages[full].options.map_entry:
                order.append(full)

        for full in self.messages:
            visit(full)
        blocks += [self._message(full, self.messages[full]) for full in order]
        return blocks

    def _enum(self, full: str, e: Any) -> str:
        enum = self.imports.use("enum", "Enum")
        members = Scope(frozenset({"mro", "name", "value"}))
        lines = [f"class {self.names[full]}(str, {enum}):"]
        for v in e.value:
            lines.append(
                f"    {members.claim(v.name if v.name.isidentifier() else snake(v.name))[0]} = {py_str(v.name)}"
            )
        return "\n".join(lines)

    def _message(self, full: str, m: Any) -> str:
        name = self.names[full]
        groups = _oneofs(m)
        config = ""
        if groups:
            wire = {g: tuple(py_str(f) for f in fs) for g, fs in groups.items()}
            schema = self.imports.use("xrgen_runtime.formats", "oneof_schema")
            config = f"json_schema_extra={schema}({_groups_literal(wire)})"
        lines, names = model_head(name, self.imports, config)
        py = {f.name: names.claim(snake(f.name))[0] for f in m.field}
        lines += ["    " + self._field(f, py[f.name]) for f in m.field]
        if groups:
            attrs = {g: tuple(py_str(py[f]) for f in fs) for g, fs in groups.items()}
            validator = self.imports.use("pydantic", "model_validator")
            check = self.imports.use("xrgen_runtime.formats", "check_oneofs")
            method = names.claim("_oneofs")[0]
            lines += [
                "",
                f'    @{validator}(mode="after")',
                f"    def {method}(self) -> {name}:",
                f"        return {check}(self, {_groups_literal(attrs)})",
            ]
        if not m.field:
            lines.append("    pass")
        return "\n".join(lines)

    def _field(self, f: Any, py: str) -> str:
        entry = self.messages.get(f.type_name) if f.type == _MESSAGE else None
        field_ = self.imports.use("pydantic", "Field")
        alias = f", alias={py_str(f.name)}" if py != f.name else ""
        if entry is not None and entry.options.map_entry:
            k = self._scalar(entry.field[0])
            v = self._type(entry.field[1])
            return f"{py}: dict[{k}, {v}] = {field_}(default_factory=dict{alias})"
        t = self._type(f)
        if f.label == _REPEATED:
            return f"{py}: list[{t}] = {field_}(default_factory=list{alias})"
        optional = f.type == _MESSAGE or f.HasField("oneof_index") or f.proto3_optional
        if optional:
            return f"{py}: {t} | None = {field_}(default=None{alias})"
        if f.type == _ENUM:
            first = self.enums[f.type_name].value[0].name
            default = f"{t}({py_str(first)})"
        else:
            default = _ZERO.get(f.type, "0")
        return f"{py}: {t} = {field_}(default={default}{alias})"

    def _type(self, f: Any) -> str:
        if f.type in (_MESSAGE, _GROUP):
            if f.type_name in self.names:
                return self.names[f.type_name]
            any_ = self.imports.use("typing", "Any")
            return f"dict[str, {any_}]"
        if f.type == _ENUM:
            return self.names.get(f.type_name, "str")
        return self._scalar(f)

    def _scalar(self, f: Any) -> str:
        if f.type in _PY_SCALARS:
            return _PY_SCALARS[f.type]
        for types, name in (
            ({_FLOAT}, "Float32"),
            (_INT32S, "Int32"),
            (_UINT32S, "UInt32"),
            (_INT64S, "Int64"),
            (_UINT64S, "UInt64"),
        ):
            if f.type in types:
                return self.imports.use("xrgen_runtime.formats", name)
        return "str"


def _oneofs(m: Any) -> dict[str, list[str]]:
    """``{oneof name: its member field names}`` of message ``m``, for the ``oneof`` groups
    with more than one member (proto3 ``optional`` makes single-member synthetic ones)."""
    members: dict[int, list[str]] = {}
    for f in m.field:
        if f.HasField("oneof_index") and not f.proto3_optional:
            members.setdefault(f.oneof_index, []).append(f.name)
    return {m.oneof_decl[i].name: fs for i, fs in sorted(members.items()) if len(fs) > 1}


def _groups_literal(groups: dict[str, tuple[str, ...]]) -> str:
    """``{"name": ("a", "b")}`` source of oneof groups whose members are quoted already."""
    return "{" + ", ".join(f"{py_str(g)}: ({', '.join(fs)})" for g, fs in groups.items()) + "}"


# --------------------------------------------------------------------------- runtime and Spark


def runtime_codec(
    payload: ir.Payload, messages: Sequence[ir.Message], options: Options
) -> tuple[str, str] | None:
    """``ProtobufCodec(model, package, module, message)`` when some of ``messages`` carry the
    payload as Protobuf binary; the compiled module is imported on first use."""
    if not any(carried(accepts, m.datacontenttype) for m in messages):
        return None
    if not isinstance(payload.schema, str):
        return None
    compiled = compile_proto(payload.schema)
    if compiled.file is None or not compiled.file.message_type:
        return None
    pkg = compiled.file.package
    message = (pkg + "." if pkg else "") + compiled.file.message_type[0].name
    module = f"_proto.{compiled.stem}_pb2"
    args = f"models.{payload.model_name}, __name__, {py_str(module)}, {py_str(message)}"
    return "ProtobufCodec", f"ProtobufCodec({args})"


def output_files(payloads: Sequence[ir.Payload]) -> dict[str, str]:
    """``_proto/<stem>_pb2.py`` path -> .proto text, for every compiled Protobuf payload."""
    out: dict[str, str] = {}
    for p in payloads:
        if p.format == NAME and isinstance(p.schema, str):
            compiled = compile_proto(p.schema)
            if compiled.file is not None:
                out[f"_proto/{compiled.stem}_pb2.py"] = p.schema
    return out


def runtime_requirements(payloads: Sequence[ir.Payload]) -> list[str]:
    """``protobuf>=<version>``: the compiled modules check at import that the protobuf runtime
    is at least the version of the protoc that generated them (``Protobuf Python Version``)."""
    versions = set()
    for p in payloads:
        if p.format == NAME and isinstance(p.schema, str):
            m = re.search(
                r"^# Protobuf Python Version: ([0-9.]+)$", compile_proto(p.schema).source, re.M
            )
            if m:
                versions.add(tuple(int(x) for x in m.group(1).split(".")))
    if not versions:
        return []
    return ["protobuf>=" + ".".join(map(str, max(versions)))]
def spark_descriptors(schema: Any) -> tuple[str, bytes] | None:
    """(full name of the payload's message, FileDescriptorSet bytes) for Spark's
    ``from_protobuf`` and the Spark decoder's Arrow path; ``None`` when not compiled."""
    if not isinstance(schema, str):
        return None
    compiled = compile_proto(schema)
    if compiled.file is None or not compiled.file.message_type:
        return None
    pkg = compiled.file.package
    return (pkg + "." if pkg else "") + compiled.file.message_type[0].name, compiled.descriptor_set


def spark_type(schema: Any) -> SparkType | None:
    if not isinstance(schema, str):
        return None
    compiled = compile_proto(schema)
    if compiled.file is None or not compiled.file.message_type:
        return None
    messages: dict[str, Any] = {}
    prefix = "." + compiled.file.package if compiled.file.package else ""

    def collect(ms: Any, pre: str) -> None:
        for m in ms:
            messages[f"{pre}.{m.name}"] = m
            collect(m.nested_type, f"{pre}.{m.name}")

    collect(compiled.file.message_type, prefix)

    def message(m: Any, stack: tuple[str, ...]) -> SparkType:
        return struct(field(f.name, value(f, stack), True) for f in m.field)

    def scalar(f: Any, stack: tuple[str, ...]) -> SparkType:
        if f.type == _MESSAGE:
            target = messages.get(f.type_name)
            if target is None or f.type_name in stack:
                return "string"
            return message(target, (*stack, f.type_name))
        if f.type == _ENUM:
            return "string"
        if f.type in _INT32S | _UINT32S:
            return "integer" if f.type in _INT32S else "long"
        if f.type in _INT64S | _UINT64S:
            return "long"
        return _SPARK.get(f.type, "string")

    def value(f: Any, stack: tuple[str, ...]) -> SparkType:
        entry = messages.get(f.type_name) if f.type == _MESSAGE else None
        if entry is not None and entry.options.map_entry:
            return map_of(scalar(entry.field[1], stack))
        t = scalar(f, stack)
        return array(t) if f.label == _REPEATED else t

    root = compiled.file.message_type[0]
    return message(root, (f"{prefix}.{root.name}",))


def json_text(text: str) -> bool:
    """``.proto`` text is not JSON."""
    return False


def root_name(schema: Any) -> str | None:
    """The payload's message (``root_message``)."""
    return root_message(schema)


def select_type(schema: Any, name: str, linked: bool) -> Selected:
    """A type name does not select a part of .proto text: the whole schema."""
    return Selected(schema)
