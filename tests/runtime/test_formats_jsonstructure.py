"""JSON Structure payloads end to end: the package generated from catalogs/jsonstructure types
every JSON Structure construct exactly (checked against the ``json-structure`` package's
instance validator, the reference), writes each type in its JSON representation, round-trips
through every binding and content mode, dead-letters invalid instances with the reason, and
the example factories make valid instances; the specification's examples validate."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from types import ModuleType
from typing import Any
from uuid import UUID

import pytest
from acme_samples import ROUTES
from format_samples import CATALOGS, binding
from hypothesis import HealthCheck, given, settings
from json_structure import InstanceValidator
from pydantic import ValidationError
from xrgen_runtime.testing import example_event, example_events

CATALOG = CATALOGS / "jsonstructure" / "catalog.json"
MESSAGE_IDS = [
    "example.shop.OrderPlaced", "example.shop.ParcelShipped", "example.shop.AddressChanged",
    "example.shop.EmployeeHired", "example.shop.AnimalSeen", "example.shop.PriceList",
]
ORDER_ID = "example.shop.OrderPlaced"
ORDER = {
    "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
    "note": "ring twice",
    "placedAt": "2024-05-01T10:00:00.123456Z",
    "deliveryDate": "2024-05-03",
    "pickupTime": "10:30:00",
    "handlingTime": "PT2H30M",
    "total": "1234.50",
    "weight": 2.5,
    "ratio": 0.5,
    "score": 7,
    "count": 3,
    "tiny": -128,
    "byte": 255,
    "small": -32768,
    "port": 65535,
    "quantity": 2147483647,
    "stock": 4294967295,
    "sequence": "-9223372036854775808",
    "serial": "18446744073709551615",
    "bigId": "170141183460469231731687303715884105727",
    "hugeId": "340282366920938463463374607431768211455",
    "gift": True,
    "receipt": "aGVsbG8gd29ybGQ=",
    "page": "https://example.com/o/1",
    "pointer": "#/lines/0/sku",
    "status": "paid",
    "channel": "web",
    "priority": 2,
    "tags": ["red", "big"],
    "lines": [{"sku": "a-1", "amount": 2, "price": "6.25"}, {"sku": "b-2", "amount": 1}],
    "attributes": {"weight": "9007199254740993"},
    "location": [47.61, -122.33],
    "payment": {"card": {"last4": "4242", "expires": "2027-01-31"}},
    "shipTo": {"street": "Main 1", "city": "Seattle"},
    "reference": 42,
    "coupon": None,
    "extra": {"any": ["json", 1, None]},
    "customer": {"name": "Ann", "vip": True},
}


@pytest.fixture(scope="module")
def shop(generated: Any) -> ModuleType:
    return generated(CATALOG, package="shop_jstruct")  # type: ignore[no-any-return]


def _schema(message_id: str) -> dict[str, Any]:
    """The JSON Structure document of a message of the catalog (deep links applied)."""
    catalog = json.loads(CATALOG.read_text())
    groups = catalog["schemagroups"]["example.shop.schemas"]["schemas"]
    message = catalog["messagegroups"]["example.shop"]["messages"][message_id]
    if "dataschema" in message:
        return dict(message["dataschema"])
    ref = message["dataschemauri"].split("/")
    document = dict(groups[ref[4]]["versions"]["1"]["schema"])
    if len(ref) > 7:
        document["$root"] = "#/" + "/".join(ref[7:])
    return document


def _reference(message_id: str, instance: Any) -> list[str]:
    """The reference validator's errors for ``instance`` (a fresh validator each time: the
    package's validator keeps errors across calls)."""
    return [str(e) for e in InstanceValidator(_schema(message_id)).validate_instance(instance)]


def test_every_primitive_has_its_exact_python_type(shop: ModuleType) -> None:
    data = shop.MESSAGES[ORDER_ID].create(ORDER, shop="s1").data
    assert isinstance(data, shop.models.Order)
    assert data.order_id == UUID(ORDER["orderId"])
    assert data.placed_at == datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=timezone.utc)
    assert data.delivery_date == date(2024, 5, 3)
    assert data.handling_time == timedelta(hours=2, minutes=30)
    assert data.total == Decimal("1234.50")
    assert (data.sequence, data.serial) == (-(2**63), 2**64 - 1)
    assert (data.big_id, data.huge_id) == (2**127 - 1, 2**128 - 1)
    assert (data.tiny, data.byte, data.small, data.port, data.stock) == (-128, 255, -32768, 65535, 2**32 - 1)
    assert data.receipt == b"hello world"
    assert data.status is shop.models.Status.paid
    assert data.location == shop.models.Point(lat=47.61, lon=-122.33)
    assert data.payment.card.last_4 == "4242" and data.payment.voucher is None
    assert data.attributes == {"weight": 9007199254740993}
    assert data.lines[0].price == Decimal("6.25") and data.lines[1].price is None


def test_the_json_representation_is_json_structures(shop: ModuleType) -> None:
    event = shop.MESSAGES[ORDER_ID].create(ORDER, shop="s1")
    body = json.loads(binding(shop, "kafka").encode(event).value)
    # 64-bit and larger integers and decimals as strings, binary as base64, tuples as arrays
    assert body["sequence"] == "-9223372036854775808" and body["serial"] == "18446744073709551615"
    assert body["total"] == "1234.50" and body["attributes"] == {"weight": "9007199254740993"}
    assert body["receipt"] == "aGVsbG8gd29ybGQ=" and body["location"] == [47.61, -122.33]
    assert body["handlingTime"] == "PT2H30M" and body["placedAt"] == "2024-05-01T10:00:00.123456Z"
    assert body["payment"] == {"card": {"last4": "4242", "expires": "2027-01-31"}}
    # what the package writes is valid for the reference validator
    assert _reference(ORDER_ID, body) == []


#: (member, value): each breaks the type its member declares
INVALID = [
    ("sequence", 5),  # int64 is a string
    ("sequence", "12x"),
    ("sequence", "9223372036854775808"),
    ("serial", "-1"),
    ("tiny", 128),
    ("byte", 256),
    ("small", 40000),
    ("port", -1),
    ("quantity", 2147483648),
    ("stock", -1),
    ("orderId", "not-a-uuid"),
    ("placedAt", "yesterday"),
    ("total", 1234.5),  # decimal is a string
    ("total", "1e3"),
    ("total", "123456789.5"),  # more whole digits than precision 10, scale 2 leave
    ("status", "lost"),
    ("channel", "phone"),
    ("priority", 4),
    ("tags", ["a", "a"]),  # a set
    ("location", [1.0]),  # a tuple of two
    ("payment", {"card": {"last4": "4242"}, "voucher": "v"}),  # a choice of one
    ("payment", {}),
    ("shipTo", {"city": "X", "floor": 3}),  # additionalProperties: false
    ("note", "x" * 81),  # maxLength
    ("lines", [{"amount": 1}]),  # required sku
    ("receipt", "not base64!"),
    ("pointer", "no-slash"),
]


@pytest.mark.parametrize(("member", "value"), INVALID)
def test_invalid_instances_are_refused_like_the_reference_validator(
    shop: ModuleType, member: str, value: Any
) -> None:
    doc = {**ORDER, member: value}
    with pytest.raises(ValidationError):
        shop.models.Order.model_validate_json(json.dumps(doc), strict=True)
    # the reference agrees, where it checks the rule (it ignores precision and scale, the
    # number syntax of decimals, binary text, maxLength, and the enum and closed members of a
    # type reached through a $ref)
    if member not in ("total", "receipt", "note", "status", "shipTo"):
        assert _reference(ORDER_ID, doc), (member, value)


@pytest.mark.parametrize("message_id", MESSAGE_IDS)
def test_every_binding_round_trips_in_both_modes(shop: ModuleType, message_id: str) -> None:
    event = example_event(shop, message_id, shop="s1")
    bound = shop.MESSAGES[message_id].definition.protocol
    for name, route in ROUTES.items():
        if bound is not None and not bound.lower().startswith(name):
            continue  # a message bound to Kafka is received on Kafka only
        codec = binding(shop, name)
        for mode in ("binary", "structured"):
            wire = codec.encode(event, mode=mode, **(route if bound is None else {}))
            got: list[Any] = []
            d = shop.consumer.Dispatcher(dead_letter=lambda w, r, det, got=got: got.append((r, det)))
            d.on(message_id)(lambda e, p, got=got: got.append(e))
            d.dispatch(wire)
            assert len(got) == 1 and not isinstance(got[0], tuple), (name, mode, got)
            assert got[0].data == event.data, (name, mode)
            assert type(got[0].data) is shop.MESSAGES[message_id].model


@pytest.mark.parametrize(("member", "value"), INVALID[:8] + INVALID[-8:])
def test_dispatch_dead_letters_invalid_instances(shop: ModuleType, member: str, value: Any) -> None:
    event = shop.MESSAGES[ORDER_ID].create(ORDER, shop="s1")
    wire = binding(shop, "kafka").encode(event)
    body = json.loads(wire.value)
    body[member] = value
    dead: list[tuple[str, str]] = []
    d = shop.consumer.Dispatcher(dead_letter=lambda w, r, det: dead.append((r, det)))
    d.on(ORDER_ID)(lambda e, p: pytest.fail("an invalid instance reached the handler"))
    d.dispatch(dataclasses.replace(wire, value=json.dumps(body).encode()))
    assert len(dead) == 1 and dead[0][0] == "validation-error", dead
    assert member in dead[0][1] or "Order" in dead[0][1]


def test_extends_is_inheritance_and_abstract_bases_keep_extra_members(shop: ModuleType) -> None:
    m = shop.models
    assert issubclass(m.Shipment, m.Tracked)
    shipped = m.Shipment.model_validate_json(
        '{"trackingId": "t-1", "parcels": 2, "labels": {"a": "b"}, "note": "fragile"}', strict=True
    )
    assert shipped.tracking_id == "t-1" and shipped.model_extra == {"note": "fragile"}
    with pytest.raises(ValidationError):  # additionalProperties: {"type": "string"}
        m.Shipment.model_validate_json('{"trackingId": "t", "parcels": 1, "n": 3}', strict=True)
    with pytest.raises(ValidationError):  # inherited required member
        m.Shipment.model_validate_json('{"parcels": 1}', strict=True)


def test_inline_union_is_discriminated_by_the_selector(shop: ModuleType) -> None:
    """The specification's inline union example (3.2.3.7.2)."""
    m = shop.models
    street = {"addressType": "StreetAddress", "street": "123 Main St", "city": "Seattle", "state": "WA", "zip": "98101"}
    box = {"addressType": "PostOfficeBoxAddress", "poBox": "1234", "city": "Seattle", "state": "WA", "zip": "98101"}
    a = m.AddressChoice.model_validate_json(json.dumps(street), strict=True)
    b = m.AddressChoice.model_validate_json(json.dumps(box), strict=True)
    assert isinstance(a.root, m.StreetAddress) and isinstance(b.root, m.PostOfficeBoxAddress)
    assert isinstance(a.root, m.Address) and a.root.street == "123 Main St"
    with pytest.raises(ValidationError):
        m.AddressChoice.model_validate_json('{"addressType": "Moon", "city": "x"}', strict=True)
    # the selector is written even when the producer leaves it to its default
    made = m.AddressChoice(m.AddressChoicePostOfficeBoxAddress(po_box="9"))
    assert json.loads(made.model_dump_json(by_alias=True, exclude_unset=True)) == {
        "poBox": "9",
        "addressType": "PostOfficeBoxAddress",
    }
    for instance in (street, box):
        assert _reference("example.shop.AddressChanged", instance) == []


def test_tagged_choice_tuple_and_required_sets_follow_the_specification(shop: ModuleType) -> None:
    m = shop.models
    assert m.Point.__mro__[1] is tuple  # a NamedTuple: JSON ["Alice", 42]-style arrays
    assert m.Order.model_validate_json(json.dumps({**ORDER, "payment": {"voucher": "v-1"}})).payment.voucher == "v-1"
    # required as alternative sets: fins or legs, not both (3.7.3)
    ok_fins = m.Animal.model_validate_json('{"name": "carp", "fins": 7}', strict=True)
    ok_legs = m.Animal.model_validate_json('{"name": "dog", "legs": 4, "wings": 0}', strict=True)
    assert ok_fins.fins == 7 and ok_legs.legs == 4
    for bad in ('{"name": "x", "fins": 1, "legs": 2}', '{"name": "x"}', '{"fins": 1}'):
        with pytest.raises(ValidationError):
            m.Animal.model_validate_json(bad, strict=True)


def test_deep_link_and_root_types(shop: ModuleType) -> None:
    m = shop.models
    boss = m.Employee.model_validate_json('{"name": "a", "team": [{"name": "b", "manager": {"name": "a"}}]}')
    assert boss.team[0].manager.name == "a"
    prices = shop.MESSAGES["example.shop.PriceList"].create({"tea": "2.50"}, shop="s").data
    assert prices.root == {"tea": Decimal("2.50")}
    with pytest.raises(ValidationError):
        m.PriceList.model_validate_json('{"tea": "123456789.00"}', strict=True)


@pytest.mark.parametrize("message_id", [m for m in MESSAGE_IDS if m != "example.shop.AnimalSeen"])
def test_example_events_are_valid_for_the_reference(shop: ModuleType, message_id: str) -> None:
    """(The reference validator does not know ``required`` as alternative sets.)"""
    for seed in range(3):
        event = example_event(shop, message_id, seed=seed, shop="s")
        body = json.loads(binding(shop, "jsonformat").encode(event))["data"]
        assert _reference(message_id, body) == [], body


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=__import__("hypothesis").strategies.data())
def test_example_events_strategy_draws_valid_orders(shop: ModuleType, data: Any) -> None:
    event = data.draw(example_events(shop, ORDER_ID, shop="s"))
    body = json.loads(binding(shop, "jsonformat").encode(event))["data"]
    assert shop.models.Order.model_validate_json(json.dumps(body), strict=True) == event.data
