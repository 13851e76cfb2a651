"""The decoder's matching: shared branches for many types keep first-match order."""

from __future__ import annotations

import importlib
import itertools
import json
import zlib
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.spark

#: 40 types with the same checks: more than one lookup bucket; some are not ASCII
BULK = [f"bulk.{i}" if i % 3 else f"bulk.é{i}\U0001f600" for i in range(40)]


def _defs(rt: ModuleType) -> list[Any]:
    core = rt
    A = core.AttrDef

    def ce(ce_type: str, source: str | None, kind: str = "string") -> Any:
        attrs = [A("type", kind, True, ce_type)]
        if source is not None:
            attrs.append(A("source", "string", True, source))
        return core.MessageDef(
            id=f"{ce_type}@{source}",
            group="g",
            envelope="CloudEvents/1.0",
            type=ce_type,
            attributes=tuple(attrs),
        )

    # entries are built most specific first: every definition with a literal type and a
    # source (two checks) in catalog order, then 4 (one check: a type template)
    return [
        ce("a", "/s1"),  # 0
        ce("b", "/s1"),  # 1: joins 0
        ce("a", "/s2"),  # 2: other checks
        ce("c", "/s1"),  # 3: joins 0 (2, in between, does not look c up)
        # 4: matches any type t.*; ranked last, so after it nothing joins an entry before it
        ce("t.{x}", None, "uritemplate"),
        ce("d", "/s1"),  # 5: joins 0
        ce("a", "/s1"),  # 6: 2 looks "a" up after 0: new entry; never matches (0 first)
        ce("t.q", "/s1"),  # 7: joins 6; more specific than 4
        ce("b", "/s2"),  # 8: joins 2
        ce("c", "/s1"),  # 9: joins 6, never matches (0 comes first)
        *(ce(t, "/s3") for t in BULK),  # 10..49: one entry
        ce("bulk.1", "/s1"),  # 50: the bulk entry, after 6, holds bulk.1: new entry
        ce("a", "/s3"),  # 51: joins the bulk entry (6 holds a, but comes before it)
    ]


def test_entries_share_branches_in_order(
    spark_rt: ModuleType, runtime_package: ModuleType
) -> None:
    decoder = spark_rt.SparkDecoder(_defs(runtime_package), {}, "json")
    match = importlib.import_module(spark_rt.__name__ + ".match")
    entries = [(t.index, types) for t, types in match.entries(decoder.plan)]
    # most specific first (two checks: the literal type and the source constant, before the
    # type template of 4), then catalog order
    assert entries == [
        (0, {"a": 0, "b": 1, "c": 3, "d": 5}),
        (2, {"a": 2, "b": 8}),
        (6, {"a": 6, "t.q": 7, "c": 9}),  # 2 looks "a" up, between 0 and here
        (10, {**{t: 10 + i for i, t in enumerate(BULK)}, "a": 51}),
        (50, {"bulk.1": 50}),
        (4, {}),
    ]


def test_match_is_the_first_matching_definition(
    spark: Any, spark_rt: ModuleType, runtime_package: ModuleType, monkeypatch: Any
) -> None:
    """``_xr_m`` equals the one-branch-per-definition ``CASE`` (most specific first) on every
    combination."""
    sql = importlib.import_module(spark_rt.__name__ + ".sql")
    columns = importlib.import_module(spark_rt.__name__ + ".columns")
    match = importlib.import_module(spark_rt.__name__ + ".match")

    def per_definition(plan: Any) -> Any:
        ordered = sorted(plan.targets, key=lambda t: t.rank)
        return columns.case(
            [(match.condition(plan, t), sql.lit(t.index)) for t in ordered]
        )

    defs = _defs(runtime_package)
    types = ["a", "b", "c", "d", "t.q", "t.", "bulk.1", "x", *BULK, None]
    sources = ["/s1", "/s2", "/s3", "/x"]
    rows = []
    for i, (ce_type, source) in enumerate(itertools.product(types, sources)):
        event = {"specversion": "1.0", "id": str(i), "source": source}
        if ce_type is not None:
            event["type"] = ce_type
        rows.append((json.dumps(event),))
    df = spark.createDataFrame(rows, "value string")
    ours = spark_rt.SparkDecoder(defs, {}, "json").route(df)
    with monkeypatch.context() as patched:  # the stages are built at the first route
        patched.setattr(match, "match", per_definition)
        reference = spark_rt.SparkDecoder(defs, {}, "json").route(df)
    got = {
        r["_xr_a_id"]: r["_xr_m"] for r in ours.select("_xr_a_id", "_xr_m").collect()
    }
    want = {
        r["_xr_a_id"]: r["_xr_m"]
        for r in reference.select("_xr_a_id", "_xr_m").collect()
    }
    assert got == want and len(got) == len(rows)
    # the cases the entries are about
    by_key = {
        (t, s): got[str(i)]
        for i, (t, s) in enumerate(itertools.product(types, sources))
    }
    assert by_key[("a", "/s1")] == 0 and by_key[("c", "/s1")] == 3
    # 7 fixes type and source: more specific than the type template of 4
    assert by_key[("t.q", "/s1")] == 7 and by_key[("t.q", "/x")] == 4
    assert by_key[("d", "/s1")] == 5
    assert by_key[("bulk.1", "/s1")] == 50 and by_key[("a", "/s3")] == 51
    assert all(by_key[(t, "/s3")] == 10 + i for i, t in enumerate(BULK))
    assert by_key[("x", "/s1")] is None and by_key[(None, "/s1")] is None


def test_type_lookup_buckets_agree_with_spark_crc32(
    spark: Any, spark_rt: ModuleType
) -> None:
    """The buckets are chosen in Python with zlib; Spark must pick the same at run time."""
    sql = importlib.import_module(spark_rt.__name__ + ".sql")
    # and the characters that JSON or SQL text would have to escape: the maps reach the JVM
    # as one JSON literal
    hostile = ['q"uote', "back\\slash", "new\nline", "tab\t", "nul\x00", "{}[]:,", "'"]
    names = [*BULK, "", "ümlaut", "x" * 300, *hostile]
    types = {n: i for i, n in enumerate(names)}
    df = spark.createDataFrame([(n,) for n in [*names, "missing", None]], "t string")
    lookup = importlib.import_module(spark_rt.__name__ + ".columns").type_lookup(
        types, sql.col("t")
    )
    selected = df.selectExpr("t", lookup.alias("i").sql)
    got = {r["t"]: r["i"] for r in selected.collect()}
    assert got == {**types, "missing": None, None: None}
    # the optimizer folds the JSON literal into map literals: no parse per row
    plan = selected._jdf.queryExecution().optimizedPlan().toString()
    assert "from_json" not in plan and "keys: [" in plan


def test_isin_indexes(spark: Any, spark_rt: ModuleType) -> None:
    """Few indexes: ``isin``; many: one SQL ``IN`` list, which the optimizer makes a set."""
    df = spark.createDataFrame([(i,) for i in [*range(40), None]], "_xr_m int")
    for indexes in ([3, 7], list(range(1, 40, 2))):
        test = importlib.import_module(spark_rt.__name__ + ".columns").isin_indexes(
            "_xr_m", indexes
        )
        selected = df.where(test.sql)
        assert sorted(r["_xr_m"] for r in selected.collect()) == indexes
    assert "INSET" in selected._jdf.queryExecution().optimizedPlan().toString().upper()


def test_type_lookup_with_an_empty_bucket(spark: Any, spark_rt: ModuleType) -> None:
    """17 types make two buckets; when all fall in one, the other is an empty map."""
    sql = importlib.import_module(spark_rt.__name__ + ".sql")
    even = (f"t{i}" for i in itertools.count() if zlib.crc32(f"t{i}".encode()) % 2 == 0)
    types = {n: i for i, n in enumerate(itertools.islice(even, 17))}
    odd = next(f"u{i}" for i in itertools.count() if zlib.crc32(f"u{i}".encode()) % 2)
    df = spark.createDataFrame([(n,) for n in [*types, odd]], "t string")
    lookup = importlib.import_module(spark_rt.__name__ + ".columns").type_lookup(
        types, sql.col("t")
    )
    got = {r["t"]: r["i"] for r in df.selectExpr("t", lookup.alias("i").sql).collect()}
    assert got == {**types, odd: None}


def test_protocol_bound_variant_is_matched_before_its_earlier_base(
    spark_rt: ModuleType, runtime_package: ModuleType
) -> None:
    """The dispatcher's most-specific rule: a definition bound to the wire's protocol comes
    before a protocol-less one, whatever the catalog order; on other wires it is left out.
    """
    core = runtime_package
    base = core.MessageDef(
        id="base",
        group="g",
        envelope="CloudEvents/1.0",
        type="t",
        attributes=(core.AttrDef("type", "string", True, "t"),),
    )
    variant = core.MessageDef(
        id="variant",
        group="g",
        envelope="CloudEvents/1.0",
        type="t",
        attributes=(core.AttrDef("type", "string", True, "t"),),
        protocol="MQTT/5.0",
        options=(core.OptionDef(("topic",), "sites/a"),),
    )
    match = importlib.import_module(spark_rt.__name__ + ".match")
    mqtt = spark_rt.SparkDecoder((base, variant), {}, "mqtt")
    assert [t.defn.id for t, _ in match.entries(mqtt.plan)] == ["variant", "base"]
    kafka = spark_rt.SparkDecoder((base, variant), {}, "kafka")
    assert [t.defn.id for t, _ in match.entries(kafka.plan)] == ["base"]
