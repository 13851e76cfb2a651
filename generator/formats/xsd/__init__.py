"""XML Schema (XSD) payloads: spellings, content types, checks, pydantic models, Spark types.

Choice: simple XSDs map to pydantic models and travel as XML written and read by the standard
library (``xrgen_runtime.formats.xml``, no extra dependency); the subset is the one
``xrgen_runtime.formats.xml.parse_xsd`` reads (one global element of a complex type with a
sequence/all of elements and attributes, built-in simple types, enumerations, nested types,
optional and repeated elements, simpleContent). An XSD outside it keeps its payload as bytes
with warning XRG220. The wire content type is ``application/xml`` when the catalog declares
none; ``*/xml`` and ``*/*+xml`` are XML.

Models: a complex type -> a model (the root's is the payload model), its elements and
attributes -> fields with the XML name as alias, ``minOccurs="0"`` and optional attributes ->
``X | None = None``, repeated elements -> ``list[X]``, enumerations -> ``str`` enums, the string
types -> ``XmlStr`` (a ``str`` refusing characters XML 1.0 cannot hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xrgen_runtime.formats.xml import Layout, XComplex, XEnum, XsdUnsupported, parse_xsd

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
from .._shared.defaults import spark_descriptors as spark_descriptors
from .._shared.defaults import spark_read as spark_read
from .._shared.defaults import spark_recursive as spark_recursive
from .._shared.defaults import value_checks as value_checks
from .._shared.fragment import Selected
from .._shared.fragment import deep_link as deep_link
from .._shared.models import Diag, Imports, claim_class, model_head
from .._shared.spark import SparkType, array, field, struct

NAME = "xsd"
SPELLINGS = frozenset({"xsd", "xmlschema", "xml-schema", "xml"})
#: payload models are generated (others keep their data as bytes)
MODELED = True
TITLE = "XML Schema"
#: the format name xRegistry defines, the versions xrgen knows (a regular expression over the
#: normalized version, ``formats.spelling.schema_format_version``) and one example; spellings
#: that name a data format rather than a schema language (warning XRG148)
FORMAT = "XSD"
VERSIONS = r"1\.[01]"
EXAMPLE = "XSD/1.1"
DATA_NAMES = frozenset({"xml"})
CONTENT_TYPE = "application/xml"
#: schemas are XSD text; the codec (XML: the standard library, no extra)
JSON_SCHEMA = False
TEXT = True
RUNTIME_MODULE = "xml"
RUNTIME_EXTRA: str | None = None

_PY = {
    "str": ("xrgen_runtime.formats.xml", "XmlStr"),
    "bool": ("", "bool"),
    "int": ("", "int"),
    "float": ("", "float"),
    "bytes": ("", "bytes"),
    "Decimal": ("decimal", "Decimal"),
    "date": ("datetime", "date"),
    "datetime": ("datetime", "datetime"),
    "time": ("datetime", "time"),
}
_SPARK = {
    "str": "string",
    "bool": "boolean",
    "int": "long",
    "float": "double",
    "bytes": "binary",
    "Decimal": "decimal(38,18)",
    "date": "date",
    "datetime": "timestamp",
    "time": "string",
}


def accepts(content_type: str | None) -> bool:
    """Whether ``content_type`` denotes XML: ``*/xml`` or ``*/*+xml``."""
    if content_type is None:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return "/" in media and (media.endswith("/xml") or media.endswith("+xml"))


def guess(schema: Any) -> bool:
    """An unlabelled string schema that looks like an XSD document."""
    return isinstance(schema, str) and "XMLSchema" in schema and "<" in schema


def check(schema: Any, version: str | None, file: str, ptr: str, diags: Any) -> None:
    """An XML Schema is XSD text (XRG154 otherwise)."""
    if not isinstance(schema, str):
        diags.error("XRG154", file, ptr, "an XML Schema must be the XSD text (a string)")


def layout(schema: Any) -> Layout | None:
    try:
        return parse_xsd(schema) if isinstance(schema, str) else None
    except XsdUnsupported:
        return None


def unusable(schema: Any) -> str | None:
    """Why payloads of ``schema`` cannot be modeled (``None``: they can)."""
    if not isinstance(schema, str):
        return "not XSD text"
    try:
        parse_xsd(schema)
    except XsdUnsupported as exc:
        return f"outside the supported XSD subset: {exc}"
    return None


def root_name(schema: Any) -> str | None:
    """The payload model's name: the root element's."""
    found = layout(schema)
    return found.root if found is not None else None


def render_models(
    payloads: Sequence[ir.Payload], imports: Imports, scope: Scope, diags: list[Diag]
) -> str:
    blocks: list[str] = []
    for p in payloads:
        found = layout(p.schema)
        if found is None:  # build keeps such payloads as bytes; nothing to model
            continue
        names: dict[int, str] = {}
        for t in found.types:
            if t is found.type:
                names[id(t)] = p.model_name
            else:
                names[id(t)] = claim_class(scope, pascal(t.name), p.location, diags)
        for t in found.types:
            blocks.append(
                _enum(t, names, imports) if isinstance(t, XEnum) else _model(t, names, imports)
            )
    return "\n\n\n".join(blocks)


def _enum(t: XEnum, names: dict[int, str], imports: Imports) -> str:
    enum = imports.use("enum", "Enum")
    members = Scope(frozenset({"mro", "name", "value"}))
    lines = [f"class {names[id(t)]}(str, {enum}):"]
    for v in t.values:
        member = v if v.isidentifier() and not v.startswith("_") else snake(v) or "value"
        lines.append(f"    {members.claim(member)[0]} = {py_str(v)}")
    return "\n".join(lines)


def _model(t: XComplex, names: dict[int, str], imports: Imports) -> str:
    fld = imports.use("pydantic", "Field")
    lines, taken = model_head(names[id(t)], imports)
    for f in t.fields:
        py, _ = taken.claim(snake(f.name))
        if isinstance(f.type, (XComplex, XEnum)):
            typ = names[id(f.type)]
        else:
            from xrgen_runtime.formats.xml import SIMPLE_TYPES

            module, name = _PY[SIMPLE_TYPES[f.type]]
            typ = imports.use(module, name) if module else name
        alias = f"alias={py_str(f.name)}"
        if f.repeated:
            lines.append(f"    {py}: list[{typ}] = {fld}(default_factory=list, {alias})")
        elif f.optional:
            lines.append(f"    {py}: {typ} | None = {fld}(default=None, {alias})")
        else:
            lines.append(f"    {py}: {typ} = {fld}({alias})")
    if not t.fields:
        lines.append("    pass")
    return "\n".join(lines)


def runtime_codec(
    payload: ir.Payload, messages: Sequence[ir.Message], options: Options
) -> tuple[str, str] | None:
    """``XmlCodec(model, xsd_text)`` when some of ``messages`` carry the payload as XML."""
    if layout(payload.schema) is None:
        return None
    if not any(carried(accepts, m.datacontenttype) for m in messages):
        return None
    return "XmlCodec", f"XmlCodec(models.{payload.model_name}, {py_str(payload.schema)})"


def spark_type(schema: Any) -> SparkType | None:
    found = layout(schema)
    if found is None:
        return None
    from xrgen_runtime.formats.xml import SIMPLE_TYPES

    def of(t: Any) -> SparkType:
        if isinstance(t, XComplex):
            return struct(
                field(f.name, array(of(f.type)) if f.repeated else of(f.type), True)
                for f in t.fields
            )
        if isinstance(t, XEnum):
            return "string"
        return _SPARK[SIMPLE_TYPES[t]]

    return of(found.type)


def json_text(text: str) -> bool:
    """XSD text is not JSON."""
    return False


def select_type(schema: Any, name: str, linked: bool) -> Selected:
    """A type name does not select a part of XSD text: the whole schema."""
    return Selected(schema)
