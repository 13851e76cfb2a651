"""XML payloads described by an XML Schema (standard library only).

``parse_xsd(text)`` reads the subset of XSD that maps to plain records: one global
``xs:element`` (the first) whose type is a ``complexType`` (inline or named) with a
``sequence``/``all`` of elements and ``xs:attribute``s; element types are the XSD built-in
simple types (string, integer types, decimal, float/double, boolean, date, dateTime, time,
anyURI, base64Binary, ...), ``simpleType`` restrictions (an ``enumeration`` becomes an enum,
others their base type), or nested complex types; ``minOccurs="0"`` is optional,
``maxOccurs`` > 1 or ``unbounded`` a list; ``simpleContent`` extensions keep their text as
``value``. Anything else raises ``XsdUnsupported``: the generator then keeps the payload as bytes
(with a warning). The generator builds the pydantic models from the same ``Layout``; the
XSD string types become ``XmlStr``, a ``str`` refusing characters XML 1.0 cannot hold.

``XmlCodec`` writes a model as an XML document (UTF-8, with declaration) following the layout
(namespace-qualified per ``elementFormDefault``; a carriage return as ``&#13;``, so it reads
back as itself) and reads documents back into the model:
``ValueError`` for a document that is not well-formed, has another root element, or does not
validate.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import date, datetime, time
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from .._event import Event

__all__ = [
    "Layout",
    "XComplex",
    "XEnum",
    "XField",
    "XML_CHARS",
    "XmlCodec",
    "XmlStr",
    "XsdUnsupported",
    "parse_xsd",
]

XS = "{http://www.w3.org/2001/XMLSchema}"
#: the characters an XML 1.0 document can hold (its ``Char`` production), as a pattern
XML_CHARS = r"^[\t\n\r\x20-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]*$"
#: a string an XML document can carry: the model field type of the XSD string types
XmlStr = Annotated[str, Field(pattern=XML_CHARS)]
#: XSD built-in simple types -> Python type name used by the models
SIMPLE_TYPES = {
    "string": "str",
    "normalizedString": "str",
    "token": "str",
    "anyURI": "str",
    "language": "str",
    "Name": "str",
    "NCName": "str",
    "ID": "str",
    "IDREF": "str",
    "QName": "str",
    "NMTOKEN": "str",
    "ENTITY": "str",
    "duration": "str",
    "gYear": "str",
    "gYearMonth": "str",
    "gMonth": "str",
    "gMonthDay": "str",
    "gDay": "str",
    "hexBinary": "str",
    "boolean": "bool",
    "decimal": "Decimal",
    "float": "float",
    "double": "float",
    "integer": "int",
    "int": "int",
    "long": "int",
    "short": "int",
    "byte": "int",
    "nonNegativeInteger": "int",
    "positiveInteger": "int",
    "negativeInteger": "int",
    "nonPositiveInteger": "int",
    "unsignedLong": "int",
    "unsignedInt": "int",
    "unsignedShort": "int",
    "unsignedByte": "int",
    "date": "date",
    "dateTime": "datetime",
    "time": "time",
    "base64Binary": "bytes",
}


class XsdUnsupported(ValueError):
    """An XML Schema outside the supported subset (see the module doc)."""


@dataclass(slots=True)
class XEnum:
    name: str
    values: list[str]


@dataclass(slots=True)
class XField:
    #: the XML local name (element or attribute)
    name: str
    #: "element", "attribute" or "text" (simpleContent value)
    kind: str
    #: a SIMPLE_TYPES key, an XEnum or an XComplex
    type: Any
    optional: bool = False
    repeated: bool = False


@dataclass(slots=True)
class XComplex:
    name: str
    fields: list[XField] = field(default_factory=list)


@dataclass(slots=True)
class Layout:
    root: str
    namespace: str | None
    qualified: bool
    type: XComplex
    #: every complex and enum type, in definition order (nested first)
    types: list[Any] = field(default_factory=list)


def _local(qname: str | None) -> str:
    return (qname or "").rpartition(":")[2]


def _tag(tag: str) -> str:
    """The local name of an element tag (``{namespace}name``)."""
    return tag.rpartition("}")[2]


def parse_xsd(text: str | bytes) -> Layout:
    """The layout of the first global element of ``text`` (``XsdUnsupported`` otherwise)."""
    try:
        schema = ET.fromstring(text)
    except ET.ParseError as exc:
        raise XsdUnsupported(f"not well-formed XML: {exc}") from None
    if schema.tag != XS + "schema":
        raise XsdUnsupported("the document is not an xs:schema")
    ns = schema.get("targetNamespace")
    qualified = schema.get("elementFormDefault") == "qualified"
    named_complex = {e.get("name"): e for e in schema.findall(XS + "complexType")}
    named_simple = {e.get("name"): e for e in schema.findall(XS + "simpleType")}
    root = schema.find(XS + "element")
    if root is None or not root.get("name"):
        raise XsdUnsupported("no global xs:element")
    types: list[Any] = []
    done: dict[str, Any] = {}

    def simple(node: ET.Element, name: str) -> Any:
        restriction = node.find(XS + "restriction")
        if restriction is None:
            raise XsdUnsupported(f"simpleType {name!r} is not a restriction")
        values = [e.get("value", "") for e in restriction.findall(XS + "enumeration")]
        if values:
            enum = XEnum(name, values)
            types.append(enum)
            return enum
        return type_of(restriction.get("base"), name)

    def type_of(qname: str | None, hint: str) -> Any:
        local = _local(qname)
        if (
            local in SIMPLE_TYPES
            and (qname or "").count(":") <= 1
            and local not in named_simple
        ):
            return local
        if local in done:
            return done[local]
        if local in named_complex:
            return complex_(named_complex[local], local)
        if local in named_simple:
            t = simple(named_simple[local], local)
            done[local] = t
            return t
        raise XsdUnsupported(f"type {qname!r} is not supported")

    def complex_(node: ET.Element, name: str) -> XComplex:
        if name in done:
            if isinstance(done[name], XComplex) and done[name] not in types:
                raise XsdUnsupported(f"recursive type {name!r}")
            return done[name]  # type: ignore[no-any-return]
        c = XComplex(name)
        done[name] = c
        content = node.find(XS + "simpleContent")
        if content is not None:
            ext = content.find(XS + "extension")
            if ext is None:
                raise XsdUnsupported(f"simpleContent of {name!r} is not an extension")
            c.fields.append(XField("value", "text", type_of(ext.get("base"), name)))
            attrs_from = ext
        else:
            attrs_from = node
            for child in node:
                if child.tag in (XS + "sequence", XS + "all"):
                    for el in child:
                        if el.tag == XS + "annotation":
                            continue
                        if el.tag != XS + "element":
                            raise XsdUnsupported(
                                f"xs:{_tag(el.tag)} in {name!r} is not supported"
                            )
                        c.fields.append(element(el, name))
                elif child.tag in (XS + "attribute", XS + "annotation"):
                    continue
                else:
                    raise XsdUnsupported(
                        f"xs:{_tag(child.tag)} in {name!r} is not supported"
                    )
        for attr in attrs_from.findall(XS + "attribute"):
            aname = attr.get("name")
            if not aname:
                raise XsdUnsupported(
                    f"attribute reference in {name!r} is not supported"
                )
            inline = attr.find(XS + "simpleType")
            t = (
                simple(inline, name + aname.capitalize())
                if inline is not None
                else type_of(attr.get("type", "xs:string"), aname)
            )
            c.fields.append(
                XField(aname, "attribute", t, optional=attr.get("use") != "required")
            )
        types.append(c)
        return c

    def element(el: ET.Element, owner: str) -> XField:
        name = el.get("name")
        if not name:
            raise XsdUnsupported(f"element reference in {owner!r} is not supported")
        inline_c = el.find(XS + "complexType")
        inline_s = el.find(XS + "simpleType")
        if inline_c is not None:
            t: Any = complex_(inline_c, name)
        elif inline_s is not None:
            t = simple(inline_s, name)
        else:
            t = type_of(el.get("type", "xs:string"), name)
        max_occurs = el.get("maxOccurs", "1")
        repeated = max_occurs == "unbounded" or (
            max_occurs.isdigit() and int(max_occurs) > 1
        )
        return XField(
            name, "element", t, optional=el.get("minOccurs") == "0", repeated=repeated
        )

    root_name = root.get("name", "")
    inline = root.find(XS + "complexType")
    if inline is not None:
        rtype = complex_(inline, root_name)
    else:
        rtype = type_of(root.get("type"), root_name)
        if not isinstance(rtype, XComplex):
            raise XsdUnsupported("the root element has a simple type")
    return Layout(root_name, ns, qualified, rtype, types)


# --------------------------------------------------------------------------- codec


def _text(value: Any) -> str:
    if isinstance(value, Enum):
        value = value.value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


class XmlCodec:
    """The XML codec of one payload model (see the module doc)."""

    format = "xml"
    binary = False

    def __init__(self, model: type[BaseModel], xsd: str) -> None:
        self.model = model
        self.layout = parse_xsd(xsd)
        self._validate = model.__pydantic_validator__.validate_python
        self._dump = model.__pydantic_serializer__.to_python
        ns = self.layout.namespace
        self._root_tag = f"{{{ns}}}{self.layout.root}" if ns else self.layout.root
        self._child_ns = ns if ns and self.layout.qualified else None

    def _tag(self, name: str) -> str:
        return f"{{{self._child_ns}}}{name}" if self._child_ns else name

    def encode(self, model: BaseModel, event: Event[Any] | None = None) -> bytes:
        if self._child_ns:
            # a qualified schema: its namespace as the default one, declared on the root
            root = ET.Element(self.layout.root, {"xmlns": self._child_ns})
        else:
            root = ET.Element(self._root_tag)
        self._fill(root, self.layout.type, self._dump(model, by_alias=True), bare=True)
        document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
        # a carriage return in text would be read back as a line feed (end-of-line handling)
        return document.replace(b"\r", b"&#13;")

    def _fill(
        self, node: ET.Element, t: XComplex, values: dict[str, Any], bare: bool = False
    ) -> None:
        """Children of ``node`` for ``values``; ``bare``: element names without namespace (it
        is the default namespace of the document, or there is none)."""
        for f in t.fields:
            value = values.get(f.name)
            if value is None:
                continue
            if f.kind == "attribute":
                node.set(f.name, _text(value))
            elif f.kind == "text":
                node.text = _text(value)
            else:
                for item in value if f.repeated else (value,):
                    child = ET.SubElement(node, f.name if bare else self._tag(f.name))
                    if isinstance(f.type, XComplex):
                        self._fill(child, f.type, item, bare)
                    else:
                        child.text = _text(item)

    def decode(self, data: bytes, event: Event[Any] | None = None) -> BaseModel:
        try:
            root = ET.fromstring(data)
        except ET.ParseError as exc:
            raise ValueError(f"not well-formed XML: {exc}") from None
        if root.tag != self._root_tag:
            raise ValueError(f"root element {root.tag!r} is not {self._root_tag!r}")
        try:
            return self._validate(self._read(root, self.layout.type))  # type: ignore[no-any-return]
        except ValidationError as exc:
            raise ValueError(str(exc)) from None

    def _read(self, node: ET.Element, t: XComplex) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in t.fields:
            if f.kind == "attribute":
                if f.name in node.attrib:
                    out[f.name] = node.attrib[f.name]
            elif f.kind == "text":
                out[f.name] = node.text or ""
            else:
                children = node.findall(self._tag(f.name))
                values = [
                    (
                        self._read(c, f.type)
                        if isinstance(f.type, XComplex)
                        else self._scalar(c, f.type)
                    )
                    for c in children
                ]
                if f.repeated:
                    out[f.name] = values
                elif values:
                    out[f.name] = values[0]
        return out

    @staticmethod
    def _scalar(node: ET.Element, t: Any) -> Any:
        text = node.text or ""
        if t == "base64Binary":
            try:
                return base64.b64decode(text, validate=True)
            except ValueError:
                raise ValueError(f"{text[:20]!r} is not base64") from None
        return text
