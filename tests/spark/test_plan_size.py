"""The decoder's plan stays small for Spark's optimizer when a catalog has many payload types.

Spark infers "constraints" for every node of a logical plan from the filters and aliases below
it; an alias whose expression occurs inside constraints already inferred adds a rewritten copy
of each, so a stage of such aliases can double the set once per alias. With many structured
envelope variants (one per JSON payload type) that made the optimizer run for minutes and the
driver run out of memory. These tests count the constraints of every node of the routed plan
and decode one structured and one binary row of every message.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sample_events import own_wires
from test_spark_acme import _kafka_row
from xrgen_runtime.testing import example_event

pytestmark = pytest.mark.spark

#: message definitions with a payload type each (13 typed envelope variants blew up)
TYPES = 16
#: far above what the decoder's plan has (tens), far below the blow-up (tens of thousands)
MAX_CONSTRAINTS = 400


def _catalog(folder: Path) -> Path:
    messages = {}
    for i in range(TYPES):
        mid = f"wide.Event{i}"
        messages[mid] = {
            "messageid": mid,
            "envelope": "CloudEvents/1.0",
            "envelopemetadata": {
                "type": {"value": mid},
                "source": {"value": "/wide"},
            },
            "dataschemaformat": "JsonSchema/draft-07",
            "dataschema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "title": f"Payload{i}",
                "type": "object",
                "properties": {f"f{i}": {"type": "integer"}, "name": {"type": "string"}},
                "required": [f"f{i}"],
            },
            "protocol": "Kafka/3.6",
            "protocoloptions": {"topic": {"type": "string", "value": "wide"}},
        }
    doc = {
        "specversion": "1.0-rc2",
        "registryid": "wide",
        "messagegroups": {"wide": {"messagegroupid": "wide", "messages": messages}},
    }
    path = folder / "wide.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _constraint_counts(df: Any) -> list[int]:
    """The number of constraints Spark infers at each node of ``df``'s analyzed plan."""
    counts = []
    node = df._jdf.queryExecution().analyzed()
    while True:
        counts.append(int(node.constraints().size()))
        children = node.children()
        if children.size() == 0:
            return counts
        node = children.apply(0)


@pytest.mark.slow
def test_many_payload_types_keep_the_plan_small_and_decode(
    spark: Any, generated: Any, tmp_path: Path
) -> None:
    pkg = generated(_catalog(tmp_path), package="wide_spark")
    sp = importlib.import_module(pkg.__name__ + ".spark")
    rows = []
    expected: Counter[str] = Counter()
    for message_id in pkg.MESSAGES:
        event = example_event(pkg, message_id)
        for codec, _mode, wire in own_wires(pkg, message_id, event):
            assert codec == "kafka"
            rows.append(_kafka_row(wire, len(rows)))
            expected[message_id] += 1
    assert sum(expected.values()) == 2 * TYPES  # binary and structured
    df = spark.createDataFrame(rows, sp.LANDING_SCHEMAS["kafka"])
    decoder = sp.decoder("kafka")
    counts = _constraint_counts(decoder.route(df))
    assert max(counts) < MAX_CONSTRAINTS, counts
    outputs, dead = sp.decode_kafka(df)
    got = Counter({mid: frame.count() for mid, frame in outputs.items()})
    assert not dead.collect()
    assert +got == expected
