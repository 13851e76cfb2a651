"""JSON Structure payloads in Spark: ``SCHEMAS`` holds the precise Spark types, the decoders
read JSON Structure's representation natively (64-bit integers and decimals from JSON strings,
tuples from arrays, no UDF), the rows equal what the Python dispatcher reads, and instances
outside their types are dead-lettered as the dispatcher dead-letters them."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from format_samples import CATALOGS, binding
from xrgen_runtime.testing import example_event

CATALOG = CATALOGS / "jsonstructure" / "catalog.json"
ORDER_ID = "example.shop.OrderPlaced"
STAMP = datetime(2024, 1, 1)
MESSAGE_IDS = [
    "example.shop.OrderPlaced",
    "example.shop.ParcelShipped",
    "example.shop.AddressChanged",
    "example.shop.EmployeeHired",
    "example.shop.AnimalSeen",
    "example.shop.PriceList",
]


@pytest.fixture(scope="module")
def shop(generated: Any) -> ModuleType:
    return generated(CATALOG, package="shop_jstruct_spark")  # type: ignore[no-any-return]


def _row(msg: Any, offset: int) -> tuple[Any, ...]:
    return (msg.key, msg.value, msg.topic, 0, offset, STAMP, 0, list(msg.headers))


def _encode(shop: ModuleType, event: Any, mode: str) -> Any:
    topic = getattr(event.binding, "topic", None)
    return binding(shop, "kafka").encode(
        event, mode=mode, **({} if topic else {"topic": "t"})
    )


def test_schemas_hold_the_precise_types(shop: ModuleType) -> None:
    from pyspark.sql import types as T

    sp = __import__(shop.__name__ + ".spark", fromlist=["SCHEMAS"])
    order = sp.SCHEMAS[ORDER_ID]
    want = {
        "orderId": T.StringType(),
        "placedAt": T.TimestampType(),
        "deliveryDate": T.DateType(),
        "total": T.DecimalType(10, 2),
        "weight": T.DoubleType(),
        "ratio": T.FloatType(),
        "tiny": T.ByteType(),
        "byte": T.ShortType(),
        "small": T.ShortType(),
        "port": T.IntegerType(),
        "quantity": T.IntegerType(),
        "stock": T.LongType(),
        "sequence": T.LongType(),
        "serial": T.DecimalType(20, 0),
        "bigId": T.StringType(),
        "receipt": T.BinaryType(),
        "attributes": T.MapType(T.StringType(), T.LongType()),
        "tags": T.ArrayType(T.StringType()),
    }
    for name, dtype in want.items():
        assert order[name].dataType == dtype, name
    assert not order["sequence"].nullable and order["note"].nullable
    assert [f.name for f in order["location"].dataType.fields] == ["lat", "lon"]
    assert [f.name for f in order["payment"].dataType.fields] == ["card", "voucher"]
    # inherited members first; the inline union's selector and every variant's members
    assert sp.SCHEMAS["example.shop.ParcelShipped"].names == [
        "trackingId",
        "carrier",
        "parcels",
        "labels",
    ]
    assert sp.SCHEMAS["example.shop.AddressChanged"].names[0] == "addressType"
    assert sp.SCHEMAS["example.shop.PriceList"] == T.MapType(
        T.StringType(), T.DecimalType(8, 2)
    )


def test_decoded_rows_equal_the_dispatchers_values(
    spark: Any, shop: ModuleType
) -> None:
    sp = __import__(shop.__name__ + ".spark", fromlist=["decode_kafka"])
    events: dict[int, Any] = {}
    rows = []
    for mid in MESSAGE_IDS:
        for seed in range(2):
            event = example_event(shop, mid, seed=seed, shop="s")
            for mode in ("binary", "structured"):
                events[len(rows)] = (mid, event)
                rows.append(_row(_encode(shop, event, mode), len(rows)))
    outputs, dead = sp.decode_kafka(
        spark.createDataFrame(rows, sp.LANDING_SCHEMAS["kafka"])
    )
    assert dead.count() == 0, dead.select("offset", "detail").collect()
    for mid in MESSAGE_IDS:
        got = {
            r["offset"]: r["data"]
            for r in outputs[mid].select("offset", "data").collect()
        }
        assert sorted(got) == [o for o, (m, _) in events.items() if m == mid]
        for offset, data in got.items():
            py = events[offset][1].data
            if mid == ORDER_ID:
                assert data["sequence"] == py.sequence and data["total"] == py.total
                assert (
                    data["orderId"] == str(py.order_id)
                    and data["status"] == py.status.value
                )
                assert (data["location"]["lat"], data["location"]["lon"]) == tuple(
                    py.location
                )
                assert data["placedAt"] == py.placed_at.replace(tzinfo=None)
                assert data["serial"] == (
                    Decimal(py.serial) if py.serial is not None else None
                )
            elif mid == "example.shop.PriceList":
                assert data == py.root


def test_the_specifications_representation_is_read(
    spark: Any, shop: ModuleType
) -> None:
    sp = __import__(shop.__name__ + ".spark", fromlist=["decode_kafka"])
    event = shop.MESSAGES[ORDER_ID].create(
        {
            "orderId": "6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10",
            "placedAt": "2024-05-01T10:00:00Z",
            "deliveryDate": "2024-05-03",
            "total": "1234.50",
            "sequence": "-9223372036854775808",
            "serial": "18446744073709551615",
            "bigId": "-170141183460469231731687303715884105728",
            "status": "paid",
            "lines": [{"sku": "a", "amount": 1, "price": "0.10"}],
            "tiny": -128,
            "byte": 255,
            "stock": 4294967295,
            "location": [1.5, 2.5],
            "payment": {"voucher": "v"},
            "attributes": {"x": "9007199254740993"},
            "receipt": "aGk=",
        },
        shop="s",
    )
    df = spark.createDataFrame(
        [_row(_encode(shop, event, "binary"), 0)], sp.LANDING_SCHEMAS["kafka"]
    )
    outputs, dead = sp.decode_kafka(df)
    (row,) = outputs[ORDER_ID].select("data").collect()
    data = row["data"]
    assert data["sequence"] == -(2**63) and data["serial"] == Decimal(2**64 - 1)
    assert data["bigId"] == "-170141183460469231731687303715884105728"
    assert (data["tiny"], data["byte"], data["stock"]) == (-128, 255, 2**32 - 1)
    assert data["total"] == Decimal("1234.50") and data["deliveryDate"] == date(
        2024, 5, 3
    )
    assert data["attributes"] == {"x": 9007199254740993} and data[
        "receipt"
    ] == bytearray(b"hi")
    assert data["payment"]["voucher"] == "v" and data["payment"]["card"] is None
    assert data["lines"][0]["price"] == Decimal("0.10")


#: instances outside their types, each dead-lettered by the dispatcher and by Spark
INVALID = [
    {"sequence": "12x"},
    {"sequence": "9223372036854775808"},
    {"serial": "18446744073709551616"},
    {"bigId": "170141183460469231731687303715884105728"},
    {"tiny": 200},
    {"byte": 256},
    {"small": 40000},
    {"port": 70000},
    {"stock": -1},
    {"orderId": "nope"},
    {"status": "lost"},
    {"priority": 9},
    {"channel": "phone"},
    {"total": "1.234"},
    {"total": "123456789.5"},
    {"location": [1.0]},
    {"location": [1.0, "x"]},
    {"payment": {"card": {"last4": "1"}, "voucher": "v"}},
    {"payment": {}},
    {"attributes": {"a": "1.5"}},
    {"lines": [{"amount": 1}]},
    {"pointer": "x"},
    {"receipt": "!!"},
]


def test_invalid_instances_are_dead_lettered_like_the_dispatcher(
    spark: Any, shop: ModuleType
) -> None:
    sp = __import__(shop.__name__ + ".spark", fromlist=["decode_kafka"])
    base = _encode(shop, example_event(shop, ORDER_ID, shop="s"), "binary")
    rows = []
    for i, patch in enumerate(INVALID):
        body = {**json.loads(base.value), **patch}
        wire = type(base)(
            base.topic,
            base.key,
            json.dumps(body).encode(),
            base.headers,
            base.partition,
        )
        dead: list[str] = []
        d = shop.consumer.Dispatcher(
            dead_letter=lambda w, r, det, dead=dead: dead.append(r)
        )
        d.on(ORDER_ID)(
            lambda e, p: pytest.fail("an invalid instance reached the handler")
        )
        d.dispatch(wire)
        assert dead == ["validation-error"], patch
        rows.append(_row(wire, i))
    outputs, dead_df = sp.decode_kafka(
        spark.createDataFrame(rows, sp.LANDING_SCHEMAS["kafka"])
    )
    assert outputs[ORDER_ID].count() == 0
    got = {r["offset"]: (r["reason"], r["detail"]) for r in dead_df.collect()}
    assert sorted(got) == list(range(len(INVALID)))
    assert {reason for reason, _ in got.values()} == {"validation-error"}


def test_the_decoder_plan_has_no_python_step(shop: ModuleType) -> None:
    sp = __import__(shop.__name__ + ".spark", fromlist=["STRUCTURE_READS"])
    assert set(sp.STRUCTURE_READS) >= {
        ORDER_ID,
        "example.shop.ParcelShipped",
        "example.shop.PriceList",
    }
    assert (
        sp.decoder("kafka").plan.payloads in (None, "native", "arrow")
        and not sp.decoder("kafka").plan.specs
    )
