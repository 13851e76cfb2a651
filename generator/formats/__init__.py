"""The payload-format seam: one package per schema format, and this table.

Each package (``jsonschema``, ``avro``, ``protobuf``, ``xsd``, ``jsonstructure``) is a
``PayloadFormat`` (``_protocol.py``): its facts (``NAME``, the family id stored in
``ir.Payload.format``; ``SPELLINGS``; ``CONTENT_TYPE``, the ``datacontenttype`` inferred when the
catalog declares none; ``TEXT``; ``RUNTIME_MODULE``, ...) and its entry points (``accepts``,
``guess``, ``check``, ``render_models``, ``spark_type``, ``runtime_codec``, ...). Callers ask a
format through them; what the formats share is in ``_shared``.

The runtime side is one codec per wire format in ``xrgen_runtime.formats``, selected by content
type. Adding a format means a package here (listed in ``FORMATS``) and a codec there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..diagnostics import Diagnostics
from ..model import ir
from . import avro, jsonschema, jsonstructure, protobuf, xsd
from ._protocol import PayloadFormat as PayloadFormat
from ._shared.content import is_json

#: family id -> format, in the order unlabelled schemas are guessed (JSON Schema last: the
#: fallback)
_ORDER: tuple[PayloadFormat, ...] = (avro, protobuf, xsd, jsonstructure, jsonschema)
FORMATS: dict[str, PayloadFormat] = {f.NAME: f for f in _ORDER}
#: the order of the formats' models in ``models.py``: JSON Schema first (one
#: datamodel-code-generator batch), then the others
MODELS_ORDER: tuple[PayloadFormat, ...] = (jsonschema, avro, protobuf, xsd, jsonstructure)
_BY_SPELLING = {s: m.NAME for m in FORMATS.values() for s in m.SPELLINGS}


def family(spelled_name: str) -> str | None:
    """The family id of a format name as spelled (lower case, no version), or ``None``."""
    return _BY_SPELLING.get(spelled_name.replace(" ", ""))


def guess(schema: Any) -> str:
    """The family of an unlabelled schema (JSON Schema when nothing else fits)."""
    for name, fmt in FORMATS.items():
        if fmt.guess(schema):
            return name
    return jsonschema.NAME


def check_payloads(payloads: Sequence[ir.Payload], diags: Diagnostics) -> None:
    """Each payload's format's ``check_payload``."""
    for p in payloads:
        fmt = FORMATS.get(p.format)
        if fmt is not None:
            fmt.check_payload(p, diags)


def get(name: str | None) -> PayloadFormat | None:
    """The format of family ``name``, or ``None``."""
    return FORMATS.get(name) if name else None


def content_type(name: str) -> str | None:
    """The content type inferred for payloads of family ``name`` when none is declared."""
    m = FORMATS.get(name)
    return m.CONTENT_TYPE if m is not None else None


def wire_format(name: str, content_type: str | None) -> str | None:
    """The format a payload described in family ``name`` travels in for ``content_type``:
    ``"json"`` for JSON content types (any schema format can be written as JSON through its
    pydantic model), ``name`` when the content type is the schema format's own, else ``None``
    (the payload stays bytes)."""
    if is_json(content_type):
        return jsonschema.NAME
    m = FORMATS.get(name)
    if m is not None and m.accepts(content_type):
        return name
    return None
