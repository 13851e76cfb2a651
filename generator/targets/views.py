"""View helpers shared by the targets: IR facts turned into source text via ``literals``."""

from __future__ import annotations

from ..literals import py_str, py_value
from ..model import ir

#: Python annotation of a free attribute / placeholder by xRegistry attribute type
PY_TYPES = {
    "string": "str",
    "uritemplate": "str",
    "uri": "str",
    "urireference": "str",
    "timestamp": "datetime",
    "integer": "int",
    "boolean": "bool",
    "binary": "bytes",
}


def model_ref(m: ir.Message) -> str:
    return f"models.{m.payload.model_name}" if m.payload else "None"


def data_type(m: ir.Message) -> str:
    """Annotation of the event payload for producers and handlers."""
    return f"models.{m.payload.model_name}" if m.payload else "bytes | None"


def attr_defs(m: ir.Message) -> list[str]:
    out = []
    for a in m.attributes:
        value = "None" if a.value is None else py_value(a.value)
        out.append(f"AttrDef({py_str(a.name)}, {py_str(a.kind)}, {a.required}, {value})")
    return out


def option_defs(m: ir.Message) -> list[str]:
    return [
        f"OptionDef({py_value(tuple(o.path))}, {py_value(o.value)}, {o.template})"
        for o in m.options
    ]


def schemaformat(m: ir.Message) -> str:
    return py_str(m.payload.format) if m.payload else "None"


def opt_str(value: str | None) -> str:
    return "None" if value is None else py_str(value)
