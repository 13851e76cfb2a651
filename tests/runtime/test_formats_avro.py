"""Avro payloads end to end: the package generated from catalogs/avro creates events whose
wire bytes are real Avro binary (read back by fastavro on its own), in every binding and mode,
with every framing; dispatch hands the handler an instance of the message's model; corrupt
bytes are dead-lettered; bytes interoperate both ways with confluent-kafka's
AvroSerializer/AvroDeserializer and its in-memory schema registry (``mock://``)."""

from __future__ import annotations

import base64
import dataclasses
import importlib
import io
import json
import struct
from datetime import date, datetime, timezone
from decimal import Decimal
from types import ModuleType
from typing import Any
from uuid import UUID

import fastavro
import pytest
from acme_samples import ROUTES
from fastavro.schema import fingerprint, to_parsing_canonical_form
from format_samples import AVRO_CATALOG as CATALOG
from format_samples import ORDER, SHIPMENT, binding
from xrgen_runtime import formats
from xrgen_runtime.formats import avro as avro_format

PLACED = "com.example.shop.OrderPlaced"
SHIPPED = "com.example.shop.OrderShipped"
NOTED = "com.example.shop.OrderNoted"
BINDINGS = tuple(sorted(ROUTES))


@pytest.fixture(scope="module")
def shop(generated: Any) -> ModuleType:
    return generated(CATALOG, package="shop_plain")  # type: ignore[no-any-return]


def schema_of(pkg: ModuleType, model: type) -> Any:
    codec = formats.codec_for(model, "avro")
    assert codec is not None
    return codec.schema  # type: ignore[attr-defined]


def test_models_and_inferred_content_types(shop: ModuleType) -> None:
    info = shop.MESSAGES[PLACED]
    assert info.definition.datacontenttype == "avro/binary"  # inferred from the schema format
    assert shop.MESSAGES[SHIPPED].definition.datacontenttype == "application/vnd.apache.avro+binary"
    assert shop.MESSAGES[NOTED].definition.datacontenttype == "application/json"
    event = info.create(ORDER, shop="s1")
    order = event.data
    assert isinstance(order, shop.models.Order)
    assert order.order_id == UUID(ORDER["orderId"])
    assert order.placed_at == datetime(2024, 5, 1, 10, 0, 0, 123000, tzinfo=timezone.utc)  # ms
    assert order.delivery_date == date(2024, 5, 3)
    assert order.total == Decimal("12.50")
    assert order.status is shop.models.OrderStatus.PAID
    assert isinstance(order.payment, shop.models.BankTransfer)
    assert order.customer.address.country == "DE"  # Avro default


def test_wire_bytes_are_avro_binary_read_back_by_fastavro(shop: ModuleType) -> None:
    event = shop.MESSAGES[PLACED].create(ORDER, shop="s1")
    msg = binding(shop, "kafka").encode(event)
    assert dict(msg.headers)["content-type"] == b"avro/binary"
    parsed = fastavro.parse_schema(schema_of(shop, shop.models.Order))
    buf = io.BytesIO(msg.value)
    record = fastavro.schemaless_reader(buf, parsed, None)
    assert buf.tell() == len(msg.value)
    assert record["orderId"] == UUID(ORDER["orderId"])
    assert record["total"] == Decimal("12.50")
    assert record["status"] == "PAID"
    assert record["lines"][0] == {"sku": "a-1", "quantity": 2, "unitPrice": Decimal("6.25")}
    assert record["payment"] == {"iban": "DE02120300000000202051", "reference": "r-7"}
    assert record["customer"]["address"]["country"] == "DE"
    assert record["attributes"] == {"gift": "yes"}
    assert record["priority"] == "high"
    # and fastavro's bytes of the same record decode into the same model
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, record)
    assert out.getvalue() == msg.value


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_every_binding_and_mode_dispatches_the_model(shop: ModuleType, binding: str, mode: str) -> None:
    codec = importlib.import_module(f"{shop.__name__}.bindings.{binding}")
    for message_id, data in ((PLACED, ORDER), (SHIPPED, SHIPMENT)):
        info = shop.MESSAGES[message_id]
        event = info.create(data, shop="s1")
        route = ROUTES[binding] if (info.definition.protocol is None or binding != "kafka") else {}
        if info.definition.protocol is not None and binding != "kafka":
            continue  # OrderPlaced is bound to Kafka
        wire = codec.encode(event, mode=mode, **route)
        got: list[Any] = []
        dead: list[Any] = []
        d = shop.consumer.Dispatcher(dead_letter=lambda w, r, detail, dead=dead: dead.append((r, detail)))
        d.on(message_id)(lambda ev, params, got=got: got.append(ev))
        assert d.dispatch(wire), dead
        assert not dead
        (ev,) = got
        assert isinstance(ev.data, info.model)
        assert ev.data == event.data
        if mode == "structured":
            # the JSON event format carries the Avro bytes as data_base64
            decoded = codec.decode(wire)
            assert isinstance(decoded.data, bytes)
            parsed = fastavro.parse_schema(schema_of(shop, info.model))
            fastavro.schemaless_reader(io.BytesIO(decoded.data), parsed, None)


def test_structured_document_has_data_base64(shop: ModuleType) -> None:
    event = shop.MESSAGES[SHIPPED].create(SHIPMENT, shop="s1")
    doc = json.loads(binding(shop, "jsonformat").encode(event))
    assert "data" not in doc and doc["datacontenttype"] == "application/vnd.apache.avro+binary"
    raw = base64.b64decode(doc["data_base64"])
    parsed = fastavro.parse_schema(schema_of(shop, shop.models.Shipment))
    assert fastavro.schemaless_reader(io.BytesIO(raw), parsed, None)["carrier"] == "DHL"


def test_avro_described_json_message_stays_json(shop: ModuleType) -> None:
    event = shop.MESSAGES[NOTED].create({"orderId": "o1", "text": "ring twice"}, shop="s1")
    msg = binding(shop, "mqtt").encode(event)
    assert json.loads(msg.payload) == {"orderId": "o1", "text": "ring twice"}
    got: list[Any] = []
    d = shop.consumer.Dispatcher()
    d.on(NOTED)(lambda ev, params: got.append(ev))
    assert d.dispatch(msg)
    assert isinstance(got[0].data, shop.models.OrderNote)


def test_corrupt_and_foreign_bytes_are_dead_lettered(shop: ModuleType) -> None:
    event = shop.MESSAGES[PLACED].create(ORDER, shop="s1")
    msg = binding(shop, "kafka").encode(event)
    dead: list[tuple[str, str]] = []
    d = shop.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append((r, detail)))
    d.on(PLACED)(lambda ev, params: pytest.fail("handler called"))
    for value in (msg.value[:-4], msg.value + b"\x00", b"", json.dumps(ORDER).encode()):
        assert not d.dispatch(dataclasses.replace(msg, value=value))
    assert len(dead) == 4
    assert all(reason == "validation-error" for reason, _ in dead), dead
    # an unknown Avro spelling of the content type still selects Avro; a foreign type does not
    assert formats.wire_format("application/avro; charset=binary") == "avro"
    assert formats.wire_format("Application/VND.Apache.Avro+Binary") == "avro"
    assert formats.wire_format("text/plain") is None


def test_values_that_do_not_fit_the_schema_are_rejected_at_create(shop: ModuleType) -> None:
    bad = {**ORDER, "total": "123456789.123"}  # decimal(10, 2)
    with pytest.raises(ValueError):
        shop.MESSAGES[PLACED].create(bad, shop="s1")


# --------------------------------------------------------------------------- framings


@pytest.fixture(scope="module")
def shop_single(generated: Any) -> ModuleType:
    return generated(CATALOG, package="shop_single", avro_framing="single-object")  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shop_confluent(generated: Any) -> ModuleType:
    return generated(  # type: ignore[no-any-return]
        CATALOG,
        package="shop_confluent",
        avro_framing="confluent",
        avro_framing_messages={SHIPPED: "plain"},
    )


def test_single_object_encoding(shop_single: ModuleType) -> None:
    event = shop_single.MESSAGES[PLACED].create(ORDER, shop="s1")
    value = binding(shop_single, "kafka").encode(event).value
    schema = schema_of(shop_single, shop_single.models.Order)
    fp = int(fingerprint(to_parsing_canonical_form(schema), "CRC-64-AVRO"), 16)
    assert value[:2] == b"\xc3\x01" and value[2:10] == fp.to_bytes(8, "little")
    record = fastavro.schemaless_reader(io.BytesIO(value[10:]), fastavro.parse_schema(schema), None)
    assert record["status"] == "PAID"
    got: list[Any] = []
    dead: list[Any] = []
    d = shop_single.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
    d.on(PLACED)(lambda ev, params: got.append(ev))
    msg = binding(shop_single, "kafka").encode(event)
    assert d.dispatch(msg) and got[0].data == event.data
    # another fingerprint, or plain bytes, are dead-lettered
    other = value[:2] + bytes(8) + value[10:]
    assert not d.dispatch(dataclasses.replace(msg, value=other))
    assert not d.dispatch(dataclasses.replace(msg, value=value[10:]))
    assert "fingerprint" in dead[0]


def _confluent(schema: Any) -> tuple[Any, Any, Any, Any]:
    from confluent_kafka.schema_registry import SchemaRegistryClient
    from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
    from confluent_kafka.serialization import MessageField, SerializationContext

    registry = SchemaRegistryClient.new_client({"url": "mock://formats-test"})
    ser = AvroSerializer(registry, json.dumps(schema))
    de = AvroDeserializer(registry)
    ctx = SerializationContext("shop.orders", MessageField.VALUE)
    return registry, ser, de, ctx


def test_confluent_wire_format_interoperates_both_ways(shop_confluent: ModuleType) -> None:
    pkg = shop_confluent
    schema = schema_of(pkg, pkg.models.Order)
    registry, ser, de, ctx = _confluent(schema)
    avro_format.use_schema_registry(registry)
    try:
        event = pkg.MESSAGES[PLACED].create(ORDER, shop="s1")
        msg = binding(pkg, "kafka").encode(event)
        assert msg.value[0] == 0
        (schema_id,) = struct.unpack(">I", msg.value[1:5])
        assert registry.get_latest_version("shop.orders-value").schema_id == schema_id
        # ours -> confluent-kafka's AvroDeserializer
        record = de(msg.value, ctx)
        assert record["orderId"] == UUID(ORDER["orderId"]) and record["status"] == "PAID"
        assert record["payment"] == {"iban": "DE02120300000000202051", "reference": "r-7"}
        # confluent-kafka's AvroSerializer -> our dispatcher
        theirs = ser(record, ctx)
        assert theirs[0] == 0  # Confluent framing, an id of the same registry
        got: list[Any] = []
        dead: list[Any] = []
        d = pkg.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
        d.on(PLACED)(lambda ev, params: got.append(ev))
        assert d.dispatch(dataclasses.replace(msg, value=theirs)), dead
        assert isinstance(got[0].data, pkg.models.Order) and got[0].data == event.data
        # the per-message override: OrderShipped stays plain Avro binary
        shipped = binding(pkg, "kafka").encode(pkg.MESSAGES[SHIPPED].create(SHIPMENT, shop="s1"), topic="x")
        parsed = fastavro.parse_schema(schema_of(pkg, pkg.models.Shipment))
        assert fastavro.schemaless_reader(io.BytesIO(shipped.value), parsed, None)["carrier"] == "DHL"
    finally:
        avro_format.use_schema_registry(None)


def test_confluent_writer_schema_evolution(shop_confluent: ModuleType) -> None:
    """A producer on a newer schema version (extra field) is read with the registry's writer
    schema and resolved into the catalog's schema."""
    pkg = shop_confluent
    schema = json.loads(json.dumps(schema_of(pkg, pkg.models.Order)))
    schema["fields"].append({"name": "channel", "type": "string", "default": "web"})
    registry, ser, _de, ctx = _confluent(schema)
    codec = formats.codec_for(pkg.models.Order, "avro")
    assert codec is not None
    codec.registry = registry  # type: ignore[attr-defined]
    try:
        newer = {
            "orderId": UUID(ORDER["orderId"]),
            "placedAt": datetime(2024, 5, 1, 10, tzinfo=timezone.utc),
            "deliveryDate": None,
            "total": Decimal("1.00"),
            "status": "PLACED",
            "customer": {"name": "B", "email": None, "address": {"street": "s", "city": "c", "country": "FR"}},
            "lines": [],
            "attributes": {},
            "payment": None,
            "priority": 3,
            "channel": "app",
        }
        theirs = ser(newer, ctx)
        event = pkg.MESSAGES[PLACED].create(ORDER, shop="s1")
        msg = binding(pkg, "kafka").encode(event)
        got: list[Any] = []
        dead: list[Any] = []
        d = pkg.consumer.Dispatcher(dead_letter=lambda w, r, detail: dead.append(detail))
        d.on(PLACED)(lambda ev, params: got.append(ev))
        assert d.dispatch(dataclasses.replace(msg, value=theirs)), dead
        assert got[0].data.customer.address.country == "FR" and got[0].data.priority == 3
    finally:
        codec.registry = None  # type: ignore[attr-defined]


def test_confluent_without_registry_fails_loudly(shop_confluent: ModuleType) -> None:
    event = shop_confluent.MESSAGES[PLACED].create(ORDER, shop="s9")
    codec = formats.codec_for(shop_confluent.models.Order, "avro")
    assert codec is not None
    codec._ids.clear()  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="schema registry"):
        binding(shop_confluent, "kafka").encode(event)


def test_other_avro_spellings_match_the_declared_content_type(shop: ModuleType) -> None:
    """A producer that labels the same bytes with another Avro media type (and parameters)."""
    event = shop.MESSAGES[PLACED].create(ORDER, shop="s1")
    msg = binding(shop, "kafka").encode(event)
    got: list[Any] = []
    d = shop.consumer.Dispatcher()
    d.on(PLACED)(lambda ev, params: got.append(ev))
    for ct in (b"application/vnd.apache.avro+binary", b"application/avro; charset=binary"):
        headers = tuple((k, ct if k == "content-type" else v) for k, v in msg.headers)
        assert d.dispatch(dataclasses.replace(msg, headers=headers))
    assert len(got) == 2 and all(e.data == event.data for e in got)
