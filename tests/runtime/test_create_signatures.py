"""``MESSAGES[id].create`` shows in its signature every keyword it needs: each placeholder and
each required free attribute is a keyword-only parameter without a default, and a call with
exactly those (and the payload) builds the event. The group producers keep their constructor
defaults. Checked on the bundled acme catalog and every real sample catalog."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sample_catalogs import ABSENT_REASON, GOOD, PRESENT, SAMPLES, package_name
from xrgen_runtime.testing import ExampleError
from xrgen_runtime.testing._examples import payload_instance

from xrgen import api
from xrgen.model import ir

from conftest import CATALOGS


def _catalog(source: Path) -> ir.Catalog:
    analysis = api.analyze([str(source)])
    assert analysis.catalog is not None
    return analysis.catalog


def _needed(m: ir.Message) -> set[str]:
    """What the IR says ``create`` needs: every placeholder and required free attribute."""
    return {p.py_name for p in m.placeholders} | {
        a.py_name for a in m.attributes if a.py_name and a.required
    }


def _value(parameter: inspect.Parameter) -> Any:
    text = str(parameter.annotation)
    return 7 if text == "int" else True if text == "bool" else b"\x01" if text == "bytes" else "v"


def check_creates(pkg: ModuleType, catalog: ir.Catalog) -> int:
    """Assert the contract for every message; return how many take a group-wide placeholder."""
    group_wide = 0
    for g in catalog.groups:
        common = {p.py_name for p in g.common_placeholders}
        for m in g.messages:
            create = pkg.MESSAGES[m.id].create
            params = inspect.signature(create).parameters
            required = {
                n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and p.default is p.empty
            }
            assert required == _needed(m), m.id
            group_wide += bool(common & required)
            info = pkg.MESSAGES[m.id]
            try:
                data: Any = payload_instance(info.model, 0) if info.model is not None else b"opaque"
            except ExampleError:
                data = None
            if data is None:
                continue
            kwargs = {n: _value(params[n]) for n in required}
            event = create(data, **kwargs)
            assert event.attributes.get("type", m.ce_type) == m.ce_type
            for name in required:  # each one is needed: leaving it out is a TypeError
                with pytest.raises(TypeError):
                    create(data, **{k: v for k, v in kwargs.items() if k != name})
    return group_wide


def test_acme_creates_require_the_group_placeholders(acme: ModuleType) -> None:
    catalog = _catalog(CATALOGS / "acme" / "catalog.json")
    assert check_creates(acme, catalog) > 0  # the case at hand: group-wide placeholders
    params = inspect.signature(acme.MESSAGES["com.acme.Reading"].create).parameters
    assert [n for n, p in params.items() if p.default is p.empty] == ["data", "plant", "sensor"]
    ev = acme.MESSAGES["com.acme.Reading"].create({"value": 1.5}, plant="p1", sensor="s 1")
    assert ev.attributes["source"] == "/plants/p1/sensors/s%201"
    # the group producer keeps its constructor defaults
    by_producer = acme.producer.ComAcmeBaseProducer(plant="p1").reading(
        acme.models.Reading(value=1.5), sensor="s 1"
    )
    assert by_producer.attributes["source"] == ev.attributes["source"]
    assert by_producer.binding == ev.binding
    with pytest.raises(TypeError, match="plant"):
        acme.producer.ComAcmeBaseProducer().reading({"value": 1.5}, sensor="s 1")


@pytest.mark.skipif(not PRESENT, reason=ABSENT_REASON)
@pytest.mark.parametrize("sample", GOOD)
def test_sample_creates_show_what_they_need(generated: Any, sample: str) -> None:
    pkg = generated(SAMPLES / sample, package=package_name(sample))
    check_creates(pkg, _catalog(SAMPLES / sample))
