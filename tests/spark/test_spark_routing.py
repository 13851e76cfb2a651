"""catalogs/routing through its generated ``spark.py``: definitions that share a CloudEvents
type (or have none) and differ only by a header, property, application property or user
property constant land in the output of their own message, never another's."""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sample_events import own_wires
from test_spark_acme import _kafka_row
from test_streaming_and_bindings import _to_landing
from xrgen_runtime.testing import example_event

pytestmark = pytest.mark.spark
CATALOG = Path(__file__).resolve().parents[2] / "catalogs" / "routing" / "catalog.json"


@pytest.mark.slow
def test_every_routing_message_lands_in_its_own_output(spark: Any, generated: Any) -> None:
    pkg = generated(CATALOG, package="routing_spark")
    sp = importlib.import_module(pkg.__name__ + ".spark")
    rows: dict[str, list[dict[str, Any]]] = {}
    expected: Counter[str] = Counter()
    for message_id in pkg.MESSAGES:
        event = example_event(pkg, message_id)
        for codec, _mode, wire in own_wires(pkg, message_id, event):
            batch = rows.setdefault(codec, [])
            batch.append(_kafka_row(wire, len(batch)) if codec == "kafka" else _to_landing(codec, wire))
            expected[message_id] += 1
    got: Counter[str] = Counter()
    dead: list[Any] = []
    for codec, batch in rows.items():
        df = spark.createDataFrame(batch, sp.LANDING_SCHEMAS[codec])
        outputs, dead_df = getattr(sp, f"decode_{codec}")(df)
        for message_id, frame in outputs.items():
            got[message_id] += frame.count()
        dead += dead_df.select("reason", "detail").collect()
    assert not dead
    assert +got == expected
