"""The compiled per-schema Avro codec writes exactly fastavro's bytes and reads fastavro's bytes
back to fastavro's values, over every Avro type, logical types, unions, nesting and recursion;
corrupt input raises ValueError."""

from __future__ import annotations

import io
import json
import random
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any
from uuid import UUID

import fastavro
import pytest
from xrgen_runtime.formats._avro_compile import compile_codec

UTC = timezone.utc
CASES: list[tuple[Any, list[Any]]] = [
    ("null", [None]),
    ("boolean", [True, False]),
    ("int", [0, 1, -1, 63, 64, -64, -65, 2**31 - 1, -(2**31)]),
    ("long", [0, 300, -300, 2**63 - 1, -(2**63), 123456789012]),
    ("float", [0.0, 1.5, -2.25]),
    ("double", [0.0, 1e300, -3.5]),
    ("bytes", [b"", b"\x00\xff" * 40]),
    ("string", ["", "héllo", "x" * 200]),
    ({"type": "fixed", "name": "F", "size": 3}, [b"abc"]),
    ({"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}, ["A", "C"]),
    ({"type": "array", "items": "long"}, [[], [1, -2, 3000], list(range(100))]),
    ({"type": "map", "values": ["null", "string"]}, [{}, {"a": None, "b": "x"}]),
    (["null", "string", "long", "double", "boolean"], [None, "s", 5, 2.5, True]),
    ({"type": "long", "logicalType": "timestamp-millis"},
     [datetime(2024, 5, 1, 10, 0, 0, 123000, tzinfo=UTC), datetime(1960, 1, 1, tzinfo=UTC)]),
    ({"type": "long", "logicalType": "timestamp-micros"}, [datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=UTC)]),
    ({"type": "int", "logicalType": "date"}, [date(2024, 2, 29), date(1900, 1, 1)]),
    ({"type": "int", "logicalType": "time-millis"}, [time(13, 5, 7, 250000)]),
    ({"type": "long", "logicalType": "time-micros"}, [time(23, 59, 59, 999999)]),
    ({"type": "string", "logicalType": "uuid"}, [UUID("6f1c1d3e-0b7a-4c55-9a43-0d5e3d2f1a10")]),
    ({"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3},
     [Decimal("0.000"), Decimal("-1.500"), Decimal("123456789.123"), Decimal("-0.001"), Decimal("128.000")]),
    ({"type": "fixed", "name": "D", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 2},
     [Decimal("-12.34"), Decimal("99999999.99")]),
    (
        {
            "type": "record", "name": "Node", "namespace": "t",
            "fields": [
                {"name": "value", "type": "int"},
                {"name": "children", "type": {"type": "array", "items": "Node"}},
                {"name": "next", "type": ["null", "Node"]},
            ],
        },
        [{"value": 1, "children": [{"value": 2, "children": [], "next": None}],
          "next": {"value": 3, "children": [], "next": None}}],
    ),
    (
        {
            "type": "record", "name": "U", "namespace": "t",
            "fields": [{"name": "p", "type": [
                "null",
                {"type": "record", "name": "A", "fields": [{"name": "a", "type": "string"}]},
                {"type": "record", "name": "B", "fields": [{"name": "b", "type": "long"}]},
            ]}],
        },
        [{"p": None}, {"p": {"a": "x"}}, {"p": {"b": 7}}],
    ),
    (["null", {"type": "map", "values": "long"}, {"type": "array", "items": "string"}],
     [None, {"k": 1, "j": 2}, ["a"]]),
]


def _fastavro_bytes(parsed: Any, datum: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, datum)
    return out.getvalue()


@pytest.mark.parametrize(("schema", "data"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_same_bytes_and_values_as_fastavro(schema: Any, data: list[Any]) -> None:
    parsed = fastavro.parse_schema(schema)
    encode, decode = compile_codec(parsed)
    for datum in data:
        theirs = _fastavro_bytes(parsed, datum)
        assert encode(datum) == theirs, datum
        assert decode(theirs) == fastavro.schemaless_reader(io.BytesIO(theirs), parsed, None)


def test_random_longs_and_strings() -> None:
    rnd = random.Random(7)
    parsed = fastavro.parse_schema({"type": "record", "name": "R", "fields": [
        {"name": "n", "type": "long"}, {"name": "s", "type": "string"},
        {"name": "xs", "type": {"type": "array", "items": "double"}}]})
    encode, decode = compile_codec(parsed)
    for _ in range(300):
        datum = {
            "n": rnd.randint(-(2**63), 2**63 - 1) >> rnd.randint(0, 63),
            "s": "".join(chr(rnd.randint(32, 0x2FFF)) for _ in range(rnd.randint(0, 80))),
            "xs": [rnd.uniform(-1e6, 1e6) for _ in range(rnd.randint(0, 5))],
        }
        theirs = _fastavro_bytes(parsed, datum)
        assert encode(datum) == theirs
        assert decode(theirs) == datum


@pytest.mark.parametrize(
    ("schema", "datum"),
    [
        ("int", 2**31),
        ("long", 2**64),
        ({"type": "enum", "name": "E", "symbols": ["A"]}, "Z"),
        ({"type": "fixed", "name": "F", "size": 2}, b"abc"),
        ({"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 1}, Decimal("1.25")),
        (["null", "long"], "text"),
        ({"type": "record", "name": "R", "fields": [{"name": "a", "type": "long"}]}, {"b": 1}),
    ],
)
def test_values_that_do_not_fit_raise_value_error(schema: Any, datum: Any) -> None:
    encode, _ = compile_codec(fastavro.parse_schema(schema))
    with pytest.raises(ValueError):
        encode(datum)


def test_corrupt_bytes_raise_value_error() -> None:
    parsed = fastavro.parse_schema({"type": "record", "name": "R", "fields": [
        {"name": "s", "type": "string"}, {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}},
        {"name": "u", "type": ["null", "long"]}]})
    encode, decode = compile_codec(parsed)
    good = encode({"s": "abc", "e": "A", "u": 5})
    for bad in (good[:-1], good + b"\x00", b"\x7f", b"\x06abc\x02\x00", b"\x06abc\x00\x06", b"\xff" * 12, b""):
        with pytest.raises(ValueError):
            decode(bad)


def test_spark_mode_gives_the_values_of_sparks_avro_mapping() -> None:
    """``compile_codec(..., spark=True)``: what ``from_avro`` gives (the Spark decoder's Arrow
    path): union branches as ``memberN``, ``[int, long]`` plain, ``uuid`` and ``time-millis``
    as their underlying values, a recursive reference as JSON text."""
    schema = {
        "type": "record",
        "name": "Node",
        "fields": [
            {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
            {"name": "at", "type": {"type": "int", "logicalType": "time-millis"}},
            {"name": "either", "type": ["null", "int", "string"]},
            {"name": "wide", "type": ["int", "long"]},
            {"name": "next", "type": ["null", "Node"]},
        ],
    }
    parsed = fastavro.parse_schema(schema)
    leaf = {"id": str(UUID(int=1)), "at": 5, "either": None, "wide": 3, "next": None}
    datum = {**leaf, "either": "x", "next": leaf}
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, datum)
    _, decode = compile_codec(parsed, spark=True)
    got = decode(out.getvalue())
    assert got["id"] == str(UUID(int=1)) and got["at"] == 5
    assert got["either"] == {"member1": "x"} and got["wide"] == 3
    assert json.loads(got["next"]) == {**leaf, "id": str(UUID(int=1))}
    # the default mode keeps the model values
    assert compile_codec(parsed)[1](out.getvalue())["id"] == UUID(int=1)


TIMES = {
    "type": "record",
    "name": "Times",
    "fields": [
        {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {
            "name": "lms",
            "type": {"type": "long", "logicalType": "local-timestamp-millis"},
        },
        {
            "name": "lus",
            "type": {"type": "long", "logicalType": "local-timestamp-micros"},
        },
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    ],
}


def _times(ms: int, us: int, day: int) -> bytes:
    out = io.BytesIO()
    parsed = fastavro.parse_schema(
        {
            **TIMES,
            "fields": [
                {"name": f["name"], "type": f["type"]["type"]} for f in TIMES["fields"]
            ],
        }
    )
    fastavro.schemaless_writer(
        out, parsed, {"ms": ms, "us": us, "lms": ms, "lus": us, "day": day}
    )
    return out.getvalue()


@pytest.mark.parametrize(
    ("ms", "us", "day"),
    [
        (1714557600123, 1714557600123456, 19846),
        (0, 0, 0),
        (-1, -1, -1),
        # the ends of what datetime and date hold
        (-62135596800000, -62135596800000000, -719162),
        (253402300799999, 253402300799999999, 2932896),
    ],
)
def test_spark_mode_gives_times_as_arrows_numbers(ms: int, us: int, day: int) -> None:
    """Spark mode: timestamps as microseconds and dates as days since the epoch (what
    Arrow stores for Spark's timestamp, timestamp_ntz and date), the same instants as the
    default mode's ``datetime`` and ``date`` values."""
    parsed = fastavro.parse_schema(TIMES)
    data = _times(ms, us, day)
    got = compile_codec(parsed, spark=True)[1](data)
    model = compile_codec(parsed)[1](data)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    micro = timedelta(microseconds=1)
    assert got == {"ms": ms * 1000, "us": us, "lms": ms * 1000, "lus": us, "day": day}
    assert (model["ms"] - epoch) // micro == got["ms"]
    assert (model["us"] - epoch) // micro == got["us"]
    assert (model["lms"] - epoch.replace(tzinfo=None)) // micro == got["lms"]
    assert (model["day"] - date(1970, 1, 1)).days == got["day"]


@pytest.mark.parametrize(
    ("ms", "us", "day"),
    [
        (253402300800000, 0, 0),
        (0, 253402300800000000, 0),
        (-62135596800001, 0, 0),
        (0, 0, 2932897),
        (0, 0, -719163),
    ],
)
def test_spark_mode_times_out_of_range_fail_as_in_the_default_mode(
    ms: int, us: int, day: int
) -> None:
    parsed = fastavro.parse_schema(TIMES)
    data = _times(ms, us, day)
    errors = []
    for spark in (False, True):
        with pytest.raises(ValueError) as info:
            compile_codec(parsed, spark=spark)[1](data)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_spark_mode_keeps_datetimes_in_a_recursive_references_json() -> None:
    """A recursive reference becomes JSON text in Spark mode: its times stay ISO 8601 text
    there, so the whole codec keeps ``datetime`` values."""
    schema = {
        "type": "record",
        "name": "Step",
        "fields": [
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "next", "type": ["null", "Step"]},
        ],
    }
    parsed = fastavro.parse_schema(schema)
    at = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)
    out = io.BytesIO()
    fastavro.schemaless_writer(
        out, parsed, {"at": at, "next": {"at": at, "next": None}}
    )
    got = compile_codec(parsed, spark=True)[1](out.getvalue())
    assert got["at"] == at
    assert json.loads(got["next"])["at"].startswith("2024-05-01")


def test_unions_beyond_63_branches_and_blocks_with_byte_sizes() -> None:
    """A union index past one varint byte takes the decoded path; an array block written
    with a negative count and its byte size (as block-writing encoders do) reads back."""
    enums = [{"type": "enum", "name": f"E{i}", "symbols": [f"S{i}"]} for i in range(70)]
    parsed = fastavro.parse_schema(enums)
    encode, decode = compile_codec(parsed)
    for i in (0, 63, 64, 69):
        theirs = _fastavro_bytes(parsed, (f"E{i}", f"S{i}"))
        assert decode(theirs) == fastavro.schemaless_reader(io.BytesIO(theirs), parsed, None)
    array = fastavro.parse_schema({"type": "array", "items": "long"})
    _, decode_array = compile_codec(array)
    # count -2 (zigzag 3), block size 2 bytes, items 1 and -1, end of blocks
    assert decode_array(b"\x03\x04\x02\x01\x00") == [1, -1]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x01", "-1 does not fit Avro union index"),  # a negative index
        (b"\x04", "2 does not fit Avro union index"),
        (b"\x8c\x01", "70 does not fit Avro union index"),  # a two-byte index
        (b"\x02" + b"\xff" * 11 + b"\x01", "Avro varint too long"),  # timestamp
        (b"\x02\xff\xff", "not Avro binary of the schema"),  # truncated timestamp
    ],
)
def test_bad_union_indexes_and_varints_name_the_problem(data: bytes, message: str) -> None:
    schema = ["null", {"type": "long", "logicalType": "timestamp-millis"}]
    for spark in (False, True):
        _, decode = compile_codec(fastavro.parse_schema(schema), spark=spark)
        with pytest.raises(ValueError, match=message):
            decode(data)
