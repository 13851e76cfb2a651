"""The dispatch engine's fast paths give exactly what its general code gives.

Each test runs the fast path and the general path it shortcuts (kept in the engine, or
rebuilt here from the same primitives) over the cases the fast path claims to handle and
over the cases where it must fall back.
"""

from __future__ import annotations

import asyncio
import importlib
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel


@pytest.fixture(scope="module")
def dp(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(runtime_package.__name__ + "._dispatch")


@pytest.fixture(scope="module")
def mt(runtime_package: ModuleType) -> ModuleType:
    """The module that compiles and matches definitions."""
    return importlib.import_module(runtime_package.__name__ + "._match")


@pytest.fixture(scope="module")
def patterns(runtime_package: ModuleType) -> ModuleType:
    return importlib.import_module(runtime_package.__name__ + "._patterns")


TEMPLATES = (
    "/synth/g000/devices/{deviceid}",  # one placeholder: the fast path
    "{whole}",
    "/a/{x}/b/{y}",  # several placeholders: UriTemplate.match
    "/a/{x}/b/{x}",  # the same placeholder twice
    "{x}-{y}.{z}",
)
VALUES = st.text(alphabet="abAZ09-._~%/ 2Fe9C3A8", max_size=8)
PARAMS = st.dictionaries(st.sampled_from(["deviceid", "whole", "x", "y", "z"]), VALUES)


def general_fill(
    patterns: ModuleType, template: str, text: str, params: dict[str, str]
) -> bool:
    """What ``Pattern.fill`` does without its one-placeholder shortcut: the general path
    (``UriTemplate.match``), taken by a pattern of the same template without ``single``."""
    general = patterns.Pattern(template)
    general.single = None
    return bool(general.fill(text, params))


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    template=st.sampled_from(TEMPLATES),
    values=st.lists(VALUES, min_size=3, max_size=3),
    params=PARAMS,
    raw=st.one_of(st.none(), VALUES),
)
def test_pattern_fill_equals_template_match(
    patterns: ModuleType,
    template: str,
    values: list[str],
    params: dict[str, str],
    raw: str | None,
) -> None:
    pattern = patterns.Pattern(template)
    assert (pattern.single is not None) == (template.count("{") == 1)
    if raw is None:  # a text built from the template, so that it usually fits
        text = template
        for name, value in zip(
            ("deviceid", "whole", "x", "y", "z"), values * 2, strict=False
        ):
            text = text.replace("{" + name + "}", value)
    else:
        text = raw
    fast, general = dict(params), dict(params)
    ok = pattern.fill(text, fast)
    assert ok == general_fill(patterns, template, text, general)
    if ok:  # on failure the partly filled params are thrown away
        assert fast == general
    again = dict(params)  # a reading remembered by the pattern is the same reading
    assert pattern.fill(text, again) == ok
    if ok:
        assert again == general


@pytest.mark.parametrize(
    ("template", "text", "params", "expected"),
    [
        ("/d/{id}", "/d/dev-1", {}, {"id": "dev-1"}),
        ("/d/{id}", "/d/a%2Fb", {}, {"id": "a/b"}),
        ("/d/{id}", "/d/%C3%A9", {}, {"id": "é"}),
        ("/d/{id}", "/d/%FF", {}, None),  # not UTF-8
        ("/d/{id}", "/d/a/b", {}, None),  # "/" is not unreserved
        ("/d/{id}", "/d/dev-1", {"id": "dev-1"}, {"id": "dev-1"}),
        ("/d/{id}", "/d/dev-1", {"id": "other"}, None),  # disagrees with a placeholder
        ("/{a}/{b}", "/x/%41", {}, {"a": "x", "b": "A"}),
        ("/{a}/{b}", "/x/%FF", {}, None),
        ("/{a}/{b}", "/x/y", {"b": "z"}, None),
        ("/{a}/{a}", "/x/x", {}, {"a": "x"}),
        ("/{a}/{a}", "/x/y", {}, None),
    ],
)
def test_pattern_fill_table(
    patterns: ModuleType,
    template: str,
    text: str,
    params: dict[str, str],
    expected: dict[str, str] | None,
) -> None:
    pattern = patterns.Pattern(template)
    for _ in range(2):  # the second time from what the pattern remembered
        fast, general = dict(params), dict(params)
        ok = pattern.fill(text, fast)
        assert ok == general_fill(patterns, template, text, general) == (expected is not None)
        if expected is not None:
            assert fast == general == expected


def test_remembered_readings_are_bounded(
    patterns: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Patterns remember at most ``SEEN_MAX`` readings together, of texts no longer than a
    cache key; past that they read every text again, with the same results."""
    pattern = patterns.Pattern("/d/{id}")
    long_text = "/d/" + "x" * 300
    assert pattern.fill(long_text, {})
    assert long_text not in pattern.seen
    monkeypatch.setattr(patterns, "_seen_room", 2)
    for i in range(5):
        params: dict[str, str] = {}
        assert pattern.fill(f"/d/{i}", params) and params == {"id": str(i)}
    assert not pattern.fill("/d/a/b", {})
    assert sorted(pattern.seen) == ["/d/0", "/d/1"]
    assert patterns._seen_room == 0


def reference_match(
    mt: ModuleType, c: Any, attrs: dict[str, Any], binding: object, family: str | None
) -> dict[str, str] | None:
    """``CompiledDef.match`` with every check run, none skipped by the flags."""
    if c.family is not None and c.family != family:
        return None
    if not c._attributes_fit(attrs):
        return None
    params: dict[str, str] = {}
    for name, pattern in c.templates:
        value = attrs.get(name)
        text = value if isinstance(value, str) else mt._canonical_or_none(value)
        if text is None or not pattern.fill(text, params):
            return None
    return params if c._options_fit(attrs, binding, params) else None


def match_defs(rt: ModuleType) -> list[Any]:
    A, Opt = rt.AttrDef, rt.OptionDef  # noqa: N806
    source = A("source", "uritemplate", True, "/d/{dev}")

    def ce(i: int, *attrs: Any, **kw: Any) -> Any:
        return rt.MessageDef(
            f"m{i}", "g", "CloudEvents/1.0", "t", (source, *attrs), **kw
        )

    return [
        ce(0),  # templates only: no attribute checks
        ce(1, A("subject", "string", True)),  # required
        ce(2, A("seq", "integer", False, 7)),  # constant
        ce(3, A("flag", "boolean", False, True), A("subject", "string", True)),
        ce(4, A("datacontenttype", "string", False, "application/json; charset=utf-8")),
        ce(5, protocol="KAFKA", options=(Opt(("topic",), "t-{dev}", True),)),
        ce(6, protocol="KAFKA", options=(Opt(("key",), "k"),)),
        ce(7, A("subject", "string", True), protocol="HTTP"),
    ]


ATTRS = st.fixed_dictionaries(
    {"type": st.just("t")},
    optional={
        "source": st.sampled_from(["/d/x", "/d/y", "/e/x", "/d/%41", 5]),
        "subject": st.sampled_from(["s", ""]),
        "seq": st.sampled_from([7, "7", "07", 8, "x", True]),
        "flag": st.sampled_from([True, "true", False, "false", 1]),
        "datacontenttype": st.sampled_from(
            ["application/json", "Application/JSON ; x=1", "text/plain", 3]
        ),
    },
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    attrs=ATTRS,
    topic=st.sampled_from(["t-x", "t-y", "u"]),
    key=st.sampled_from([b"k", None, b"j"]),
    family=st.sampled_from(["KAFKA", "HTTP", None]),
)
def test_match_equals_reference(
    runtime_package: ModuleType,
    mt: ModuleType,
    attrs: dict[str, Any],
    topic: str,
    key: bytes | None,
    family: str | None,
) -> None:
    binding = runtime_package.KafkaBinding(topic, key, 0, ())
    for defn in match_defs(runtime_package):
        c = mt.CompiledDef(defn, 0)
        assert c.checks_attributes == bool(
            c.required or c.constants or c.content_type is not None
        )
        expected = reference_match(mt, c, attrs, binding, family)
        assert c.match(attrs, binding, family) == expected, defn.id


def test_match_fast_path_flags(runtime_package: ModuleType, mt: ModuleType) -> None:
    """Each definition of ``match_defs`` exercises the path its comment says."""
    flags = [
        (mt.CompiledDef(d, 0).checks_attributes, bool(mt.CompiledDef(d, 0).options))
        for d in match_defs(runtime_package)
    ]
    assert flags == [
        (False, False),
        (True, False),
        (True, False),
        (True, False),
        (True, False),
        (False, True),
        (False, True),
        (True, False),
    ]


class Body(BaseModel):
    n: int


@pytest.mark.parametrize(
    "ct",
    [
        None,
        "application/json",  # the shortcut
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/cloudevents+json",
        "text/json",
        "text/plain",
        "application/jsonx",
        "",
        7,  # not a string: not checked
    ],
)
def test_payload_content_type_shortcut(
    runtime_package: ModuleType, mt: ModuleType, ct: object
) -> None:
    """``payload`` skips ``is_json_content_type`` for ``application/json`` only, and
    rejects exactly the string content types that function calls non-JSON."""
    defn = runtime_package.MessageDef("m", "g", "CloudEvents/1.0", "t", model=Body)
    c = mt.CompiledDef(defn, 0)
    attrs: dict[str, Any] = {"type": "t"}
    if ct is not None:
        attrs["datacontenttype"] = ct
    event = runtime_package.Event(attrs, b'{"n": 1}', None)
    json_ct = not isinstance(ct, str) or importlib.import_module(runtime_package.__name__ + "._media").is_json_content_type(ct)
    if json_ct:
        assert c.payload(event) == Body(n=1)
    else:
        payload = importlib.import_module(runtime_package.__name__ + "._payload")
        with pytest.raises(payload.Invalid, match="is not JSON"):
            c.payload(event)


def test_pending_dead_has_no_subclasses(runtime_package: ModuleType) -> None:
    """``_run_sync`` and ``dispatch`` test ``type(x) is PendingDead`` (cheaper than
    ``isinstance``): the same test only while nothing subclasses it."""
    outcome = importlib.import_module(runtime_package.__name__ + "._outcome")
    assert outcome.PendingDead.__subclasses__() == []


def recording_dispatcher(
    rt: ModuleType, dp: ModuleType, typed: bool
) -> tuple[Any, list[Any]]:
    """A dispatcher of one definition (type ``t``, payload ``Body``; ``typed``: an integer
    attribute ``seq``) and the list its handler and dead letter append to."""
    attrs = (rt.AttrDef("seq", "integer"),) if typed else ()
    defn = rt.MessageDef("m", "g", "CloudEvents/1.0", "t", attrs, model=Body)
    got: list[Any] = []
    d = dp.DispatcherBase((defn,), dead_letter=lambda *a: got.append(a))
    d.on("m")(lambda event, params: got.append(event))
    return d, got


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("run_async", [False, True])
def test_handler_event_of_a_wire_message(
    runtime_package: ModuleType, dp: ModuleType, typed: bool, run_async: bool
) -> None:
    """A wire message's event, decoded by the dispatcher, becomes the handler's event: the
    same event ``handler_event`` builds from the decoded one."""
    rt = runtime_package
    d, got = recording_dispatcher(rt, dp, typed)
    headers = (("ce_specversion", b"1.0"), ("ce_id", b"1"), ("ce_source", b"/s"),
               ("ce_type", b"t"), ("ce_seq", b"5"))  # fmt: skip
    msg = rt.KafkaMessage("topic", None, b'{"n": 2}', headers=headers)
    if run_async:
        asyncio.run(d.dispatch_async(msg))
    else:
        d.dispatch(msg)
    expected = d._by_id["m"].handler_event(
        importlib.import_module(rt.__name__ + ".bindings.kafka").decode(msg), Body(n=2)
    )
    assert got == [expected]
    assert got[0].attributes["seq"] == (5 if typed else "5")


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("run_async", [False, True])
def test_handler_event(
    runtime_package: ModuleType, dp: ModuleType, typed: bool, run_async: bool
) -> None:
    """The handler gets what ``handler_event`` builds: a new Event with the validated data,
    declared attributes typed (without typed attributes it skips the copy of the attributes).
    """
    rt = runtime_package
    d, got = recording_dispatcher(rt, dp, typed)
    event = rt.Event({"type": "t", "seq": "5"}, b'{"n": 2}', None)
    if run_async:
        asyncio.run(d.dispatch_event_async(event))
    else:
        d.dispatch_event(event)
    c = d._by_id["m"]
    assert bool(c.typed) is typed
    expected = c.handler_event(event, Body(n=2))
    assert got == [expected]
    assert got[0] is not event and event.data == b'{"n": 2}'  # the input is not changed
    assert got[0].attributes["seq"] == (5 if typed else "5")
