"""The rc4 endpoint model in the generator (generator/endpoints, protocols/<x>.py ENDPOINTS):
reading older spellings, the names build gives endpoints, message defaults per role, references
into the registry (also for basemessage), and the placeholder rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xrgen import api
from xrgen.diagnostics import Diagnostics
from xrgen.endpoints.normalize import normalize_endpoint_options
from xrgen.endpoints.references import _match
from xrgen.model import ir
from xrgen.naming import short_names


def _normalized(protocol: str, usage: list[str], po: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    data = {"protocol": protocol, "usage": usage, "protocoloptions": po}
    diags = Diagnostics()
    normalize_endpoint_options(data, "c.json", "/endpoints/e", diags)
    return data["protocoloptions"], [f"{d.pointer} {d.code}" for d in diags.sorted()]


def test_older_spellings_are_read_under_rc4_names() -> None:
    po, warned = _normalized(
        "KAFKA",
        ["consumer"],
        {
            "options": {"group.id": "g", "auto.offset.reset": "latest", "topic": "t"},
            "endpoints": ["kafka://b1:9092", {"uri": "SSL://b2:9093", "priority": 1}],
            "enable_auto_commit": {"value": False},
        },
    )
    assert po == {
        "topic": "t",
        "consumergroup": "g",
        "autooffsetreset": "latest",
        "enableautocommit": False,
        "endpoints": [
            {"bootstrap.servers": ["b1:9092"]},
            {"bootstrap.servers": ["SSL://b2:9093"], "priority": 1},
        ],
    }
    assert "/endpoints/e/protocoloptions/options XRG110" in warned
    assert "/endpoints/e/protocoloptions/group.id XRG117" in warned
    assert "/endpoints/e/protocoloptions/enableautocommit XRG117" in warned  # {"value": ...}


def test_the_rc4_spelling_wins_over_a_legacy_one() -> None:
    po, warned = _normalized("AMQP/1.0", ["producer"], {"link-properties": {"a": "1"}, "linkproperties": {"b": "2"}})
    assert po == {"link-properties": {"a": "1"}}
    assert warned == ["/endpoints/e/protocoloptions/linkproperties XRG117"]


@pytest.mark.parametrize(
    ("protocol", "usage", "option", "value", "becomes"),
    [
        ("MQTT/5.0", ["consumer"], "topic", "a/+/b", "topicfilter"),
        ("MQTT/5.0", ["subscriber", "consumer"], "topic", "a/b,c/d", "topicfilter"),
        ("MQTT/5.0", ["consumer"], "topic", "a/{b}/c", "topic"),  # concrete: the topic to read
        ("MQTT/5.0", ["producer"], "topic", "a/+/b", "topic"),  # an error (XRG191), not a filter
        ("NATS", ["consumer"], "subject", "a.*", "subjectfilter"),
        ("NATS", ["consumer"], "subject", "a.b", "subject"),
    ],
)
def test_a_legacy_filter_is_read_as_the_filter_option(
    protocol: str, usage: list[str], option: str, value: str, becomes: str
) -> None:
    po, _ = _normalized(protocol, usage, {option: value})
    assert po == {becomes: value}


def test_map_shapes_are_read_as_rc4_shapes() -> None:
    po, _ = _normalized("KAFKA", ["producer"], {"headers": [{"name": "a", "value": "1"}, {"b": {"value": "2"}}]})
    assert po == {"headers": {"a": "1", "b": "2"}}
    po, _ = _normalized("HTTP", ["producer"], {"headers": {"x-a": "1"}})
    assert po == {"headers": [{"name": "x-a", "value": "1"}]}


def test_short_names_take_the_shortest_distinct_tail() -> None:
    assert short_names(["a.orders.in", "b.orders.in", "a.orders.out"]) == {
        "a.orders.in": "a.orders.in",
        "b.orders.in": "b.orders.in",
        "a.orders.out": "out",
    }
    assert short_names(["x.y", "y"]) == {"y": "y", "x.y": "x.y"}
    assert short_names(["Orders-In", "orders_in.x"]) == {"Orders-In": "Orders-In", "orders_in.x": "x"}


def test_placeholder_match_is_linear_and_exact() -> None:
    assert _match("orders.{region}.{kind}", "orders.eu.placed") == [("region", "eu"), ("kind", "placed")]
    assert _match("orders.{region}", "invoices.eu") is None
    assert _match("{a}{b}", "xy") is None  # touching placeholders split ambiguously: not judged
    # a hostile value against a template of many placeholders answers at once
    template = ".".join(f"{{p{i}}}" for i in range(200))
    assert _match(template, "x" * 200_000) is None


def _analyze(tmp_path: Path, doc: dict[str, Any]) -> api.Analysis:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    return api.analyze([str(path)])


def _message(mid: str, **extra: Any) -> dict[str, Any]:
    return {
        "messageid": mid,
        "envelope": "CloudEvents/1.0",
        "envelopemetadata": {"type": {"value": mid}, "source": {"value": "/s"}},
        **extra,
    }


def _endpoint(catalog: ir.Catalog | None, eid: str) -> ir.Endpoint:
    assert catalog is not None
    return next(e for e in catalog.endpoints if e.id == eid)


def test_http_options_are_message_defaults_of_producer_endpoints_only(tmp_path: Path) -> None:
    group = {"messages": {"m": _message("m")}}
    analysis = _analyze(
        tmp_path,
        {
            "messagegroups": {"g": group},
            "endpoints": {
                "pull": {"usage": ["consumer"], "protocol": "HTTP",
                         "protocoloptions": {"method": "GET"}, "messagegroups": ["/messagegroups/g"]},
            },
        },
    )  # fmt: skip
    assert analysis.catalog is not None
    [m] = analysis.catalog.messages()
    assert m.protocol == "HTTP" and m.options == ()  # GET fetches messages; it is not theirs
    assert dict(_endpoint(analysis.catalog, "pull").options) == {"method": "GET"}


def test_an_endpoint_without_groups_takes_every_message(tmp_path: Path) -> None:
    analysis = _analyze(
        tmp_path,
        {
            "messagegroups": {"g": {"messages": {"m": _message("m")}}, "h": {"messages": {"n": _message("n")}}},
            "endpoints": {
                "any": {"usage": ["consumer"], "protocol": "NATS", "protocoloptions": {"subject": "s"}},
                "far": {"usage": ["consumer"], "protocol": "NATS",
                        "messagegroups": ["https://elsewhere.example.com/messagegroups/g"]},
            },
        },
    )  # fmt: skip
    anyone, far = _endpoint(analysis.catalog, "any"), _endpoint(analysis.catalog, "far")
    assert (anyone.dispatcher_class, anyone.message_ids) == ("Dispatcher", ("m", "n"))
    assert far.message_ids == () and far.dispatcher_class == "FarDispatcher"
    assert [d.code for d in analysis.diagnostics if d.code.startswith("XRG23")] == ["XRG231"]


def test_references_into_the_same_registry(tmp_path: Path) -> None:
    """The root ``self`` makes absolute URLs under it local: for messagegroups, basemessage
    (also with ``/versions/v``) and willmessage."""
    base = _message("base", protocol="MQTT/5.0", protocoloptions={"topic_name": "t", "qos": 1})
    derived = _message(
        "derived", basemessage="https://reg.example.com/messagegroups/g/messages/base/versions/1"
    )
    analysis = _analyze(
        tmp_path,
        {
            "self": "https://reg.example.com/",
            "messagegroups": {"g": {"messages": {"base": base, "derived": derived}}},
            "endpoints": {
                "e": {"usage": ["producer"], "protocol": "MQTT/5.0",
                      "protocoloptions": {"willtopic": "w",
                                          "willmessage": "https://reg.example.com/messagegroups/g/messages/base"},
                      "messagegroups": ["https://reg.example.com/messagegroups/g"]},
            },
        },
    )  # fmt: skip
    assert not [str(d) for d in analysis.diagnostics], "a local reference is no warning"
    assert analysis.catalog is not None
    derived_ir = next(m for m in analysis.catalog.messages() if m.id == "derived")
    assert derived_ir.protocol == "MQTT/5.0"  # merged from its base
    ep = _endpoint(analysis.catalog, "e")
    assert ep.message_ids == ("base", "derived") and dict(ep.options)["willmessage"] == "base"


def test_ancestor_is_read_as_ancestorid(tmp_path: Path) -> None:
    version = {"versionid": "2", "ancestor": "1", "schema": {"type": "object"}}
    schema = {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": {}}, "2": version}}
    analysis = _analyze(tmp_path, {"schemagroups": {"s": {"schemas": {"x": schema}}}})
    assert [(d.code, d.pointer) for d in analysis.diagnostics] == [
        ("XRG110", "/schemagroups/s/schemas/x/versions/2/ancestor")
    ]
    assert analysis.registry is not None
    data = analysis.registry.schemagroups["s"].schemas["x"].versions["2"].data
    assert data["ancestorid"] == "1" and "ancestor" not in data


def test_a_subscriber_only_endpoint_gives_its_messages_nothing(tmp_path: Path) -> None:
    """It manages subscriptions (endpoint-spec: a control-plane endpoint); the producer's
    binding is the messages' binding."""
    analysis = _analyze(
        tmp_path,
        {
            "messagegroups": {"g": {"messages": {"m": _message("m")}}},
            "endpoints": {
                "subs": {"usage": ["subscriber"], "protocol": "HTTP",
                         "protocoloptions": {"endpoints": [{"uri": "https://example.com/subscriptions"}]},
                         "messagegroups": ["#/messagegroups/g"]},
                "out": {"usage": ["producer"], "protocol": "KAFKA",
                        "protocoloptions": {"topic": "t"}, "messagegroups": ["#/messagegroups/g"]},
            },
        },
    )  # fmt: skip
    assert analysis.catalog is not None
    [m] = analysis.catalog.messages()
    assert m.protocol == "KAFKA" and [(o.path, o.value) for o in m.options] == [(("topic",), "t")]
    assert not [d for d in analysis.diagnostics if d.code == "XRG208"]
    assert _endpoint(analysis.catalog, "subs").message_ids == ("m",)


def test_a_missing_group_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """XRG230 is a warning (the specification asks no reference to resolve): the endpoint
    carries the groups that exist; ``--strict`` makes it an error."""
    from xrgen.cli import main

    doc = {
        "messagegroups": {"g": {"messages": {"m": _message("m")}}},
        "endpoints": {
            "e": {"usage": ["consumer"], "protocol": "NATS", "protocoloptions": {"subject": "s"},
                  "messagegroups": ["#/messagegroups/G", "#/messagegroups/g"]},
        },
    }  # fmt: skip
    analysis = _analyze(tmp_path, doc)
    [warning] = [d for d in analysis.diagnostics if d.code == "XRG230"]
    assert warning.severity == "warning" and "did you mean 'g'" in warning.message
    assert _endpoint(analysis.catalog, "e").message_ids == ("m",)
    catalog = str(tmp_path / "catalog.json")
    out = tmp_path / "out"
    assert main(["generate", catalog, "--out", str(out), "--package", "p", "--quiet"]) == 0
    strict = tmp_path / "strict"
    assert main(["generate", catalog, "--out", str(strict), "--package", "p", "--quiet", "--strict"]) == 1
    assert not strict.exists()
