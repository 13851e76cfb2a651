"""The Protobuf rules against the real thing: protoc (from grpcio-tools, which the rocketmq
adapter extra installs) compiles the schemas, and the protobuf runtime writes and reads them.

- the .proto parser agrees with protoc on every message's fields (number, name, type,
  repeated, oneof), for the sample catalogs' schemas and the case folders';
- for field changes, a value written with OLD's schema is read back by NEW's (and the reverse)
  exactly when ``compare_protobuf`` reports no breaking type or cardinality change."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from xrgen.diff.protobuf import compare_protobuf, parse_proto

if os.environ.get("CI") == "true":
    from grpc_tools import protoc
else:
    protoc = pytest.importorskip("grpc_tools.protoc")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sample_catalogs import GOOD, PRESENT, SAMPLES  # noqa: E402

HERE = Path(__file__).resolve().parent
_SCALAR = {
    v: k.removeprefix("TYPE_").lower()
    for k, v in descriptor_pb2.FieldDescriptorProto.Type.items()
    if k not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}


def compile_proto(text: str) -> descriptor_pb2.FileDescriptorProto | None:
    """protoc's descriptor of ``text``; None when protoc rejects it."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "s.proto").write_text(text)
        out = Path(tmp) / "s.pb"
        include = Path(protoc.__file__).parent / "_proto"
        code = protoc.main(
            ["protoc", f"-I{tmp}", f"-I{include}", f"--descriptor_set_out={out}", "s.proto"]
        )
        if code != 0:
            return None
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    return fds.file[0]


def protoc_fields(
    fd: descriptor_pb2.FileDescriptorProto,
) -> dict[str, dict[int, tuple[str, str, bool, str | None]]]:
    out: dict[str, dict[int, tuple[str, str, bool, str | None]]] = {}

    def walk(prefix: str, msgs: Any) -> None:
        for m in msgs:
            full = f"{prefix}.{m.name}" if prefix else m.name
            maps = {n.name for n in m.nested_type if n.options.map_entry}
            fields = {}
            for f in m.field:
                short = f.type_name.rsplit(".", 1)[-1]
                if short in maps:
                    continue  # map fields: compared by number and name below
                t = _SCALAR.get(f.type, short)
                oneof = (
                    m.oneof_decl[f.oneof_index].name
                    if f.HasField("oneof_index") and not f.proto3_optional
                    else None
                )
                fields[f.number] = (f.name, t, f.label == f.LABEL_REPEATED, oneof)
            out[full] = fields
            walk(full, [n for n in m.nested_type if not n.options.map_entry])

    walk(fd.package, fd.message_type)
    return out


def parser_fields(text: str) -> dict[str, dict[int, tuple[str, str, bool, str | None]]]:
    proto = parse_proto(text)
    return {
        name: {
            n: (f.name, f.type.rsplit(".", 1)[-1], f.label == "repeated", f.oneof)
            for n, f in m.fields.items()
            if f.label != "map"
        }
        for name, m in proto.messages.items()
    }


def _texts() -> list[str]:
    from xrgen import api

    texts = []
    for folder in sorted(HERE.glob("protobuf-*")):
        for side in ("old.json", "new.json"):
            an = api.analyze([str(folder / side)])
            assert an.resolved is not None
            texts += [
                m.schema.schema
                for g in an.resolved.groups
                for m in g.messages
                if m.schema and m.schema.family == "protobuf"
            ]
    if PRESENT:
        for sample in GOOD:
            an = api.analyze([str(SAMPLES / sample)])
            assert an.resolved is not None
            texts += [
                m.schema.schema
                for g in an.resolved.groups
                for m in g.messages
                if m.schema and m.schema.family == "protobuf" and isinstance(m.schema.schema, str)
            ]
    return sorted(set(texts))


def test_parser_agrees_with_protoc() -> None:
    compiled = [(t, fd) for t in _texts() if (fd := compile_proto(t)) is not None]
    assert len(compiled) >= 5
    for text, fd in compiled:
        assert parser_fields(text) == protoc_fields(fd), text


#: values fit every type of their wire group: the language guide calls int32/int64/uint32/uint64/bool
#: compatible, with C++-cast truncation of values that do not fit the reader's type
WRAP = 'syntax = "proto3";\npackage w;\nenum E {{ E0 = 0; E1 = 1; }}\nmessage In {{ int32 a = 1; }}\nmessage M {{\n  {decl}\n}}\n'
VALUES = {
    "int32": 1, "int64": 1, "uint32": 1, "uint64": 1, "sint32": 1, "sint64": 1, "bool": True,
    "fixed32": 1, "fixed64": 1, "sfixed32": 1, "sfixed64": 1, "float": 1.5, "double": 1.5,
    "string": "x", "bytes": b"x", "E": 1,
}  # fmt: skip
PAIRS = [
    ("int32 f = 1;", "int64 f = 1;"),
    ("int32 f = 1;", "uint64 f = 1;"),
    ("int32 f = 1;", "bool f = 1;"),
    ("int32 f = 1;", "E f = 1;"),
    ("int32 f = 1;", "sint32 f = 1;"),
    ("sint32 f = 1;", "sint64 f = 1;"),
    ("fixed32 f = 1;", "sfixed32 f = 1;"),
    ("fixed64 f = 1;", "double f = 1;"),
    ("float f = 1;", "double f = 1;"),
    ("string f = 1;", "bytes f = 1;"),
    ("string f = 1;", "int32 f = 1;"),
    ("int64 f = 1;", "fixed64 f = 1;"),
    ("repeated int32 f = 1;", "int32 f = 1;"),
    ("string f = 1;", "repeated string f = 1;"),
]


def _message(text: str) -> Any:
    pool = descriptor_pool.DescriptorPool()
    fd = compile_proto(text)
    assert fd is not None, text
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("w.M"))


def _value(decl: str) -> Any:
    return VALUES[decl.split()[-4] if decl.startswith("repeated") else decl.split()[0]]


def _carries(writer_decl: str, reader_decl: str) -> bool:
    """Whether a value written under ``writer_decl`` reads back under ``reader_decl``."""
    w, r = _message(WRAP.format(decl=writer_decl)), _message(WRAP.format(decl=reader_decl))
    value = _value(writer_decl)
    msg = w()
    if writer_decl.startswith("repeated"):
        msg.f.append(value)
    else:
        msg.f = value
    try:
        got = r.FromString(msg.SerializeToString())
    except Exception:  # protobuf raises DecodeError for malformed input
        return False
    read = got.f
    if reader_decl.startswith("repeated"):
        read = read[0] if len(read) else None
    if isinstance(read, bytes) and isinstance(value, str):
        return read == value.encode()
    if isinstance(read, str) and isinstance(value, bytes):
        return read.encode() == value
    return bool(read == value)


@pytest.mark.parametrize(("old", "new"), PAIRS)
def test_wire_verdicts_match_the_runtime(old: str, new: str) -> None:
    findings = compare_protobuf(WRAP.format(decl=old), WRAP.format(decl=new))
    breaking = any(x.breaks and x.code in ("XRG581", "XRG583") for x in findings)
    assert findings, (old, new)
    carried = _carries(old, new) and _carries(new, old)
    assert carried == (not breaking), (old, new, findings)
