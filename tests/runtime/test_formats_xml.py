"""XML payloads end to end: the package generated from catalogs/xml writes XSD-described payloads
as XML documents (read back by an XML parser: the schema's namespace, attributes, repeated and
optional elements, text values), in every binding and mode (structured mode: the document as a
``data`` string); dispatch hands the handler an instance of the model; a schema outside the
mapped subset keeps its payload as bytes with a warning."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acme_samples import ROUTES
from format_samples import XML_CATALOG as CATALOG
from format_samples import binding
from xrgen_runtime.formats.xml import XsdUnsupported, parse_xsd

from xrgen import api
from xrgen.format import Formatter

PLACED = "example.purchasing.OrderPlaced"
ARCHIVED = "example.purchasing.OrderArchived"
NOTE = "example.purchasing.NoteAdded"
NS = "{urn:example:purchasing}"
ORDER = {
    "orderId": "o-1",
    "revision": 2,
    "shipTo": {"name": "Ann", "street": "Main 1", "city": "Berlin", "country": "DE"},
    "item": [
        {"partNum": "p-1", "productName": "Lamp", "quantity": 2, "price": "12.50", "shipDate": "2024-05-03"},
        {"partNum": "p-2", "productName": "Bulb <LED> & co", "quantity": 1, "price": "0.99"},
    ],
    "priority": "high",
    "placedAt": "2024-05-01T10:00:00Z",
    "total": "25.99",
    "express": True,
    "comment": "ring twice",
}


@pytest.fixture(scope="module")
def po(generated: Any) -> ModuleType:
    return generated(CATALOG, package="po_xml")  # type: ignore[no-any-return]


def test_wire_bytes_are_the_xml_document(po: ModuleType) -> None:
    event = po.MESSAGES[PLACED].create(ORDER, store="s1")
    assert isinstance(event.data, po.models.PurchaseOrder)
    msg = binding(po, "amqp").encode(event)
    assert msg.properties["content-type"] == "application/xml"
    assert msg.body.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    root = ET.fromstring(msg.body)
    assert root.tag == NS + "purchaseOrder"
    assert root.attrib == {"orderId": "o-1", "revision": "2"}
    assert root.find(NS + "shipTo").attrib == {"country": "DE"}  # type: ignore[union-attr]
    assert root.findtext(f"{NS}shipTo/{NS}city") == "Berlin"
    assert root.find(NS + "billTo") is None  # optional, absent
    items = root.findall(NS + "item")
    assert [i.get("partNum") for i in items] == ["p-1", "p-2"]
    assert items[1].findtext(NS + "productName") == "Bulb <LED> & co"
    assert items[0].findtext(NS + "shipDate") == "2024-05-03" and items[1].find(NS + "shipDate") is None
    assert root.findtext(NS + "express") == "true" and root.findtext(NS + "total") == "25.99"
    assert root.findtext(NS + "placedAt") == "2024-05-01T10:00:00+00:00"


@pytest.mark.parametrize("binding_name", sorted(ROUTES))
@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_every_binding_and_mode(po: ModuleType, binding_name: str, mode: str) -> None:
    codec = binding(po, binding_name)
    cases = [(ARCHIVED, ROUTES[binding_name])]
    if binding_name == "amqp":
        cases.append((PLACED, {}))
    for message_id, route in cases:
        info = po.MESSAGES[message_id]
        event = info.create(ORDER, store="s1")
        wire = codec.encode(event, mode=mode, **route)
        got: list[Any] = []
        dead: list[Any] = []
        d = po.consumer.Dispatcher(dead_letter=lambda w, r, detail, dead=dead: dead.append(detail))
        d.on(message_id)(lambda ev, params, got=got: got.append(ev))
        assert d.dispatch(wire), dead
        data = got[0].data
        assert isinstance(data, info.model) and data == event.data
        assert data.total == Decimal("25.99") and data.placed_at == datetime(2024, 5, 1, 10, tzinfo=timezone.utc)
        if mode == "structured" and binding_name != "http":
            # the JSON event format carries the XML text as a data string
            back = codec.decode(wire)
            assert isinstance(back.data, str) and back.data.startswith("<?xml")


def test_structured_document_has_the_xml_as_data(po: ModuleType) -> None:
    event = po.MESSAGES[ARCHIVED].create(ORDER, store="s1")
    doc = json.loads(binding(po, "jsonformat").encode(event))
    assert doc["datacontenttype"] == "application/vnd.example.po+xml"
    assert ET.fromstring(doc["data"]).tag == NS + "purchaseOrder"


def test_bad_documents_are_dead_lettered(po: ModuleType) -> None:
    event = po.MESSAGES[PLACED].create(ORDER, store="s1")
    msg = binding(po, "amqp").encode(event)
    dead: list[str] = []
    d = po.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
    d.on(PLACED)(lambda ev, params: pytest.fail("handler called"))
    wrong_root = msg.body.replace(b"purchaseOrder", b"invoice")
    missing = ET.tostring(ET.Element(NS + "purchaseOrder", {"orderId": "x"}))
    for body in (msg.body[:-10], wrong_root, missing, b'{"orderId": "o-1"}'):
        assert not d.dispatch(dataclasses.replace(msg, body=body))
    assert len(dead) == 4, dead


def test_text_xml_cannot_hold_is_refused_and_carriage_returns_survive(po: ModuleType) -> None:
    info = po.MESSAGES[PLACED]
    for bad in ("\x1f", "a\x00b", "\ufffe"):
        with pytest.raises(ValueError, match="pattern"):
            info.create({**ORDER, "comment": bad}, store="s1")
    text = "line 1\r\nline 2\r \t\u00e9\U0001f600 <&>"
    event = info.create(
        {**ORDER, "comment": text, "shipTo": {**ORDER["shipTo"], "name": text}}, store="s1"  # type: ignore[dict-item]
    )
    msg = binding(po, "amqp").encode(event)
    got: list[Any] = []
    d = po.consumer.Dispatcher()
    d.on(PLACED)(lambda ev, params: got.append(ev))
    assert d.dispatch(msg)
    assert got[0].data.comment == text and got[0].data.ship_to.name == text
    assert got[0].data == event.data


def test_unsupported_xsd_keeps_bytes_with_a_warning(po: ModuleType, tmp_path: Path) -> None:
    assert po.MESSAGES[NOTE].model is None
    event = po.MESSAGES[NOTE].create(b"<note><text>hi</text></note>", store="s1")
    assert event.data == b"<note><text>hi</text></note>"
    assert event.attributes["datacontenttype"] == "application/xml"
    result = api.generate([str(CATALOG)], "po_warn", formatter=Formatter(cache_dir=tmp_path))
    warnings = [d for d in result.diagnostics if d.code == "XRG220"]
    assert len(warnings) == 1 and "xs:choice" in warnings[0].message


def test_parse_xsd_subset() -> None:
    layout = parse_xsd(
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="m"><xs:complexType>'
        '<xs:simpleContent><xs:extension base="xs:decimal"><xs:attribute name="unit" type="xs:string"/>'
        "</xs:extension></xs:simpleContent></xs:complexType></xs:element></xs:schema>"
    )
    assert layout.root == "m" and [(f.name, f.kind) for f in layout.type.fields] == [("value", "text"), ("unit", "attribute")]
    with pytest.raises(XsdUnsupported):
        parse_xsd("<not-a-schema/>")
    with pytest.raises(XsdUnsupported):
        parse_xsd('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="x" type="Nope"/></xs:schema>')
