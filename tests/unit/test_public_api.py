"""`xrgen.generate`: the documented Python entry point, returning files and diagnostics."""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath

import pytest

import xrgen
from xrgen.format import Formatter

ORDERS = {
    "messagegroups": {
        "shop.orders": {
            "envelope": "CloudEvents/1.0",
            "messages": {
                "shop.OrderPlaced": {
                    "envelope": "CloudEvents/1.0",
                    "envelopemetadata": {"type": {"value": "shop.OrderPlaced"}, "source": {"value": "/shop"}},
                }
            },
        }
    }
}


def test_generate_returns_files_and_diagnostics(tmp_path: Path) -> None:
    catalog = tmp_path / "orders.json"
    catalog.write_text(json.dumps(ORDERS))
    result = xrgen.generate([str(catalog)], "shop", spark=False, formatter=Formatter(cache_dir=tmp_path / "c"))
    assert isinstance(result, xrgen.Result) and result.ok
    assert PurePosixPath("shop/producer.py") in result.files
    assert "class ShopOrdersProducer" in result.files[PurePosixPath("shop/producer.py")]
    assert [d.code for d in result.diagnostics] == ["XRG112"]  # no messageid: the map key is used
    assert not (tmp_path / "shop").exists()  # nothing written


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        xrgen.no_such_name  # noqa: B018
