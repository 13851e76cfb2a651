"""Every message of every real sample catalog through its generated ``spark.py``: events
built by the package's own producers, encoded by its codecs in both content modes, land as
Spark rows of their protocol's landing shape and are decoded into the output of their
message."""

from __future__ import annotations

import importlib
from collections import Counter
from typing import Any

import pytest
from sample_catalogs import ABSENT_REASON, GOOD, PRESENT, SAMPLES, package_name
from sample_events import events, wire_messages
from test_spark_acme import _kafka_row
from test_streaming_and_bindings import _to_landing

pytestmark = pytest.mark.spark
if not PRESENT:
    pytest.skip(ABSENT_REASON, allow_module_level=True)


@pytest.mark.slow
@pytest.mark.parametrize("sample", GOOD)
def test_every_sample_message_decodes_in_spark(spark: Any, generated: Any, sample: str) -> None:
    pkg = generated(SAMPLES / sample, package=package_name(sample))
    sp = importlib.import_module(pkg.__name__ + ".spark")
    built, skipped = events(pkg)
    assert not skipped, skipped
    rows: dict[str, list[dict[str, Any]]] = {}
    expected: Counter[tuple[str, Any, Any]] = Counter()
    for info, event in built:
        for codec, _mode, wire in wire_messages(pkg, info, event):
            batch = rows.setdefault(codec, [])
            batch.append(_kafka_row(wire, len(batch)) if codec == "kafka" else _to_landing(codec, wire))
            # plain protocol messages have neither id nor type
            expected["out", event.attributes.get("id"), info.type] += 1
    got: Counter[tuple[str, Any, Any]] = Counter()
    for codec, batch in rows.items():
        df = spark.createDataFrame(batch, sp.LANDING_SCHEMAS[codec])
        outputs, dead = getattr(sp, f"decode_{codec}")(df)
        for message_id, frame in outputs.items():
            for r in frame.select("id").collect():
                got["out", r["id"], pkg.MESSAGES[message_id].type] += 1
        for r in dead.select("reason", "detail").collect():
            got["dead", r["reason"], r["detail"]] += 1
    assert got == expected
