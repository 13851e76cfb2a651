"""Routing rules of the dispatch engine: the most specific definition wins, and uritemplate
matching gives back the producer's values (runtime/xrgen_runtime/_dispatch.py, _match.py, _uritemplate.py).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

T = "com.acme.Reading"


class Reading(BaseModel):
    value: float


@pytest.fixture(scope="module")
def rt(runtime_package: ModuleType) -> ModuleType:
    importlib.import_module(runtime_package.__name__ + "._dispatch")
    for name in ("kafka", "mqtt"):
        importlib.import_module(f"{runtime_package.__name__}.bindings.{name}")
    return runtime_package


def codec(rt: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{rt.__name__}.bindings.{name}")


def defn(rt: ModuleType, mid: str, *attrs: Any, **kw: Any) -> Any:
    return rt.MessageDef(
        id=mid,
        group="g",
        envelope="CloudEvents/1.0",
        type=T,
        attributes=(rt.AttrDef("type", "string", True, T), *attrs),
        datacontenttype="application/json",
        schemaformat="json",
        model=Reading,
        **kw,
    )


def route(
    rt: ModuleType, defs: tuple[Any, ...], wire: Any, handlers: Any = None
) -> Any:
    """The id of the definition whose handler got ``wire`` (or the dead-letter reason)."""
    got: list[str] = []
    d = rt._dispatch.DispatcherBase(defs, dead_letter=lambda _w, r, _d: got.append(r))
    for c in defs:
        if handlers is None or c.id in handlers:
            d.on(c.id)(lambda _e, _p, mid=c.id: got.append(mid))
    d.dispatch(wire)
    assert len(got) == 1, got
    return got[0]


def event(rt: ModuleType, source: str = "/s", **extra: Any) -> Any:
    attrs = {"specversion": "1.0", "id": "1", "source": source, "type": T, **extra}
    return rt.Event(attrs, Reading(value=1.0))


def test_protocol_bound_variant_beats_its_earlier_envelope_only_base(
    rt: ModuleType,
) -> None:
    base = defn(rt, "base")
    variant = defn(
        rt,
        "variant",
        protocol="MQTT/5.0",
        options=(rt.OptionDef(("topic",), "sites/{site}/telemetry", True),),
    )
    ev = event(rt)
    mqtt = codec(rt, "mqtt").encode(ev, topic="sites/a/telemetry", version="5.0")
    kafka = codec(rt, "kafka").encode(ev, topic="sites/a/telemetry")
    for defs in ((base, variant), (variant, base)):
        assert route(rt, defs, mqtt) == "variant"
        assert route(rt, defs, kafka) == "base"  # a bound definition needs its protocol
        # the most specific definition WITH a handler takes it
        assert route(rt, defs, mqtt, handlers={"base"}) == "base"


def test_more_matched_constants_and_templates_win_then_catalog_order(
    rt: ModuleType,
) -> None:
    loose = defn(rt, "loose")
    sourced = defn(rt, "sourced", rt.AttrDef("source", "uritemplate", True, "/p/{p}"))
    subject = defn(rt, "subject", rt.AttrDef("subject", "string", False, "x"))
    both = defn(
        rt,
        "both",
        rt.AttrDef("source", "uritemplate", True, "/p/{p}"),
        rt.AttrDef("subject", "string", False, "x"),
    )
    kafka = codec(rt, "kafka")
    full = kafka.encode(event(rt, "/p/1", subject="x"), topic="t")
    assert route(rt, (loose, sourced, subject, both), full) == "both"
    # one check each: the constant before the template, then catalog order
    assert route(rt, (loose, sourced, subject), full) == "subject"
    other = defn(rt, "other", rt.AttrDef("dataschema", "uri", False, "urn:x"))
    both_const = kafka.encode(
        event(rt, "/p/1", subject="x", dataschema="urn:x"), topic="t"
    )
    assert route(rt, (loose, subject, other), both_const) == "subject"
    assert route(rt, (loose, other, subject), both_const) == "other"
    assert (
        route(rt, (loose, sourced), kafka.encode(event(rt, "/q"), topic="t")) == "loose"
    )


def test_bound_without_checks_beats_protocol_less_with_checks(rt: ModuleType) -> None:
    checked = defn(rt, "checked", rt.AttrDef("subject", "string", False, "x"))
    bound = defn(rt, "bound", protocol="KAFKA")
    wire = codec(rt, "kafka").encode(event(rt, subject="x"), topic="t")
    assert route(rt, (checked, bound), wire) == "bound"


# ------------------------------------------------------------------------ uritemplate matching

SEPARATORS = ".-_/~:@ %"
_literal = st.text(alphabet="ab./-_:~@", max_size=4)
#: values with the separators raw and percent-encoded ("%2F" is a value, written "%252F")
_value = st.lists(
    st.sampled_from([*"aZ09", *SEPARATORS, "é", "😀", "%2F", "%2e"]), max_size=8
).map("".join)


@st.composite
def templates(draw: Any) -> tuple[str, dict[str, str]]:
    """A level-1 template (distinct placeholders) and a value for each placeholder."""
    n = draw(st.integers(1, 5))
    parts = [draw(_literal)]
    values = {}
    for i in range(n):
        parts.append(f"{{p{i}}}")
        parts.append(draw(_literal))
        values[f"p{i}"] = draw(_value)
    return "".join(parts), values


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(templates())
def test_every_expansion_matches_and_gives_back_the_values(
    rt: ModuleType, case: Any
) -> None:
    text, values = case
    tpl = importlib.import_module(rt.__name__ + "._uritemplate").UriTemplate(text)
    expanded = tpl.expand(values)
    found = tpl.match(expanded)
    assert found is not None, (text, values, expanded)
    # what was found expands to the same text: a valid reading of an ambiguous expansion
    assert tpl.expand(found) == expanded
    if tpl.unambiguous:
        assert found == values
    # a placeholder known from elsewhere settles the ambiguity
    assert tpl.match(expanded, {"p0": values["p0"]}) is not None
    assert tpl.match(expanded, {"p0": values["p0"]})["p0"] == values["p0"]  # type: ignore[index]


@settings(max_examples=500, deadline=None)
@given(templates(), st.text(max_size=30))
def test_match_accepts_only_expansions(rt: ModuleType, case: Any, text: str) -> None:
    tpl = importlib.import_module(rt.__name__ + "._uritemplate").UriTemplate(case[0])
    found = tpl.match(text)
    if found is not None:
        assert (
            tpl.expand(found) == text or "%" in text
        )  # %xx may be spelled differently


@pytest.mark.parametrize(
    ("template", "text", "expected"),
    [
        ("{a}.{b}", "x.y.z", {"a": "x", "b": "y.z"}),  # leftmost-shortest
        ("{a}-{b}-{c}", "1-2-3-4", {"a": "1", "b": "2", "c": "3-4"}),
        ("/d/{id}", "/d/a%2Fb", {"id": "a/b"}),
        ("/d/{id}", "/d/a/b", None),  # "/" is not unreserved: an expansion writes %2F
        ("/d/{id}", "/d/%2e%2E", {"id": ".."}),
        ("/d/{id}", "/d/%FF", None),  # not UTF-8
        ("/p/{p}/s/{s}.{p}", "/p/a.b/s/c.d.a.b", {"p": "a.b", "s": "c.d"}),
        ("{a}{b}", "xy", {"a": "", "b": "xy"}),
        ("{a}.{a}", "x.x", {"a": "x"}),
        ("{a}.{a}", "x.y", None),
        ("x{a}x", "x", None),
        ("x{a}x", "xx", {"a": ""}),
        ("abc", "abc", {}),
    ],
)
def test_match_table(rt: ModuleType, template: str, text: str, expected: Any) -> None:
    assert importlib.import_module(rt.__name__ + "._uritemplate").UriTemplate(template).match(text) == expected


def test_dispatcher_settles_an_ambiguous_template_with_another_attribute(
    rt: ModuleType,
) -> None:
    d = defn(
        rt,
        "d",
        rt.AttrDef("source", "uritemplate", True, "{site}.{area}"),
        rt.AttrDef("subject", "uritemplate", False, "sites/{site}"),
    )
    got: list[dict[str, str]] = []
    disp = rt._dispatch.DispatcherBase((d,), dead_letter=lambda *a: got.append({}))
    disp.on("d")(lambda _e, p: got.append(p))
    disp.dispatch_event(event(rt, "a.b.c.d", subject="sites/a.b"))
    assert got == [{"site": "a.b", "area": "c.d"}]


def test_a_constant_beats_a_template_on_the_same_attribute(rt: ModuleType) -> None:
    pattern = defn(rt, "pattern", rt.AttrDef("source", "uritemplate", True, "/p/{p}"))
    exact = defn(rt, "exact", rt.AttrDef("source", "string", True, "/p/1"))
    kafka = codec(rt, "kafka")
    assert (
        route(rt, (pattern, exact), kafka.encode(event(rt, "/p/1"), topic="t"))
        == "exact"
    )
    assert (
        route(rt, (pattern, exact), kafka.encode(event(rt, "/p/2"), topic="t"))
        == "pattern"
    )


def test_generated_package_routes_variants_and_ambiguous_values(generated: Any) -> None:
    """catalogs/specificity through its generated package: protocol variants of a basemessage
    reach their own handlers, and dotted placeholder values come back whole."""
    root = Path(__file__).resolve().parents[2]
    pkg = generated(
        root / "catalogs" / "specificity" / "catalog.json", package="specificity_pkg"
    )
    got: list[tuple[str, dict[str, str]]] = []
    d = pkg.consumer.Dispatcher(dead_letter=lambda _w, r, x: got.append((r, {"d": x})))
    for mid in pkg.MESSAGES:
        d.on(mid)(lambda _e, p, mid=mid: got.append((mid, p)))
    from xrgen_runtime.bindings import kafka, mqtt

    reading = pkg.MESSAGES["com.example.Reading.Mqtt"].create({"value": 1}, plant="p.1")
    d.dispatch(mqtt.encode(reading))
    d.dispatch(kafka.encode(reading, topic="other"))  # the base, on another protocol
    line = pkg.MESSAGES["com.example.Line"].create(
        {"value": 1}, region="eu.west", site="s.1", line="l-2.b"
    )
    d.dispatch(kafka.encode(line, topic="t"))
    assert got == [
        ("com.example.Reading.Mqtt", {"plant": "p.1"}),
        ("com.example.Reading", {"plant": "p.1"}),
        ("com.example.Line", {"region": "eu.west", "site": "s.1", "line": "l-2.b"}),
    ]


def test_a_required_extension_attribute_is_a_check(rt: ModuleType) -> None:
    plain = defn(rt, "plain")
    tagged = defn(rt, "tagged", rt.AttrDef("tenant", "string", True, None))
    # a core attribute every event carries tells nothing apart: catalog order
    sourced = defn(rt, "sourced", rt.AttrDef("source", "string", True, None))
    kafka = codec(rt, "kafka")
    with_tenant = kafka.encode(event(rt, tenant="t1"), topic="t")
    assert route(rt, (plain, tagged), with_tenant) == "tagged"
    assert route(rt, (plain, tagged), kafka.encode(event(rt), topic="t")) == "plain"
    assert route(rt, (plain, sourced), with_tenant) == "plain"


def test_shared_placeholders_are_read_least_ambiguous_first(rt: ModuleType) -> None:
    """Across attributes and protocol options, and again with each ambiguous template first
    when the readings of a shared placeholder disagree."""
    a = rt.AttrDef
    variant = defn(
        rt,
        "variant",
        a("source", "uritemplate", True, "{region}.{site}"),
        protocol="MQTT/5.0",
        options=(rt.OptionDef(("topic",), "sites/{site}", True),),
    )
    two = defn(
        rt,
        "two",
        a("source", "uritemplate", True, "{a}.{b}"),
        a("subject", "uritemplate", False, "{a}-{c}"),
    )
    got: list[tuple[str, dict[str, str]]] = []
    d = rt._dispatch.DispatcherBase(
        (variant, two), dead_letter=lambda *x: got.append(("dead", {}))
    )
    d.on("variant")(lambda _e, p: got.append(("variant", p)))
    d.on("two")(lambda _e, p: got.append(("two", p)))
    mqtt, kafka = codec(rt, "mqtt"), codec(rt, "kafka")
    d.dispatch(mqtt.encode(event(rt, "eu.west.s.1"), topic="sites/s.1", version="5.0"))
    d.dispatch(kafka.encode(event(rt, "x.y.z", subject="x.y-w"), topic="t"))
    assert got == [
        ("variant", {"region": "eu.west", "site": "s.1"}),
        ("two", {"a": "x.y", "b": "z", "c": "w"}),
    ]
