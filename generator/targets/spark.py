"""The Spark target: ``spark.py`` with payload/event schemas and decoder entry points."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from .. import formats, overlap, protocols
from ..diagnostics import Diagnostics
from ..literals import py_str, py_value
from ..model import ir
from ..spark_types import event_schema, payload_to_spark
from . import OutputFile, Target


def _json(value: Any) -> str:
    return py_str(json.dumps(value, separators=(",", ":"), sort_keys=False))


#: a self-referential JSON Schema: its Spark type holds the recursive part as JSON text
XRG_SPARK_RECURSIVE = "XRG325"


def check_recursive(payloads: Sequence[ir.Payload], diags: Diagnostics) -> None:
    """XRG325 (warning) for each payload whose Spark type holds a recursive part as JSON text
    (``PayloadFormat.spark_recursive``: only a format with a Spark type says so)."""
    for p in payloads:
        fmt = formats.get(p.format)
        if fmt is not None and fmt.spark_recursive(p.schema):
            file, _, ptr = p.location.partition("#")
            diags.warning(
                XRG_SPARK_RECURSIVE,
                file,
                ptr,
                "JSON Schema refers to itself; its Spark type holds the recursive part as a"
                " string column of JSON text",
            )


def plan(catalog: ir.Catalog, target: Target, head: str) -> list[OutputFile]:
    payload_vars: dict[str, str] = {}
    payload_types: dict[str, Any] = {}
    payloads = []
    descriptors: dict[str, tuple[str, str]] = {}
    for p in catalog.payloads:
        fmt = formats.get(p.format)
        found = fmt.spark_descriptors(p.schema) if fmt is not None else None
        if found is not None:
            descriptors[p.key] = (py_str(found[0]), "_D" + p.spark_var)
            payloads.append({"var": "_D" + p.spark_var, "bytes": repr(found[1]), "json": None})
        dtype = payload_to_spark(p.format, p.schema)
        if dtype is None or fmt is None:
            continue
        payload_vars[p.key] = p.spark_var
        payload_types[p.key] = dtype
        payloads.append({"var": p.spark_var, "json": _json(dtype), "bytes": None})
    checks = _payload_checks(catalog)
    reads = {
        p.key: fmt.spark_read(p.schema)
        for p in catalog.payloads
        if (fmt := formats.get(p.format)) is not None
    }
    messages = []
    for m in catalog.messages():
        key = m.payload.key if m.payload else None
        extensions = [(a.name, a.kind) for a in m.attributes if a.extension]
        messages.append(
            {
                "id": py_str(m.id),
                "payload_var": payload_vars.get(key) if key else None,
                "event_json": _json(
                    event_schema(payload_types.get(key) if key else None, extensions)
                ),
                "avro_json": _avro_json(m.payload),
                "proto": descriptors.get(key) if key else None,
                "checks": checks.get(m.id),
                "structure_read": _json(reads[key]) if key and reads.get(key) else None,
            }
        )
    context = {
        "header": head,
        "payloads": payloads,
        "messages": messages,
        # the decoder functions are fixed public names (build.MODULE_NAMES keeps catalog
        # names off them), one per landing shape of protocols.SPARK_LANDINGS
        "bindings": [
            {"function": b.function, "literal": py_str(b.binding), "doc": b.doc}
            for b in protocols.SPARK_LANDINGS
        ],
        "all": [
            py_str(name)
            for name in sorted(
                (
                    "AVRO_SCHEMAS",
                    "EVENT_SCHEMAS",
                    "LANDING_SCHEMAS",
                    "PAYLOAD_CHECKS",
                    "PROTO_DESCRIPTORS",
                    "SCHEMAS",
                    "STRUCTURE_READS",
                    "decoder",
                )
                + tuple(b.function for b in protocols.SPARK_LANDINGS)
            )
        ],
    }
    return [OutputFile(PurePosixPath("spark.py"), "pyspark/spark.py.j2", context)]


def _avro_json(payload: ir.Payload | None) -> str | None:
    """The Avro schema Spark's ``from_avro`` reads the payload with, as JSON text."""
    fmt = formats.get(payload.format) if payload is not None else None
    if payload is None or fmt is None:
        return None
    schema = fmt.spark_avro(payload.schema)
    return _json(schema) if schema is not None else None


def _payload_checks(catalog: ir.Catalog) -> dict[str, str]:
    """Message id -> the literal of its payload's ``const`` / ``enum`` checks, for the JSON
    Schema payloads of definitions tied with others on the wire (``overlap.ties``): what the
    Spark decoder checks to tell them apart (``xrgen_runtime.spark.ties``)."""
    out: dict[str, str] = {}
    for group in overlap.ties(catalog):
        for m in group:
            fmt = formats.get(m.payload.format) if m.payload is not None else None
            if m.payload is not None and fmt is not None:
                found = fmt.value_checks(m.payload.schema)
                if found:
                    out[m.id] = py_value(found)
    return out
