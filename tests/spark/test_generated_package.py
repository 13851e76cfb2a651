"""A package generated from a real sample catalog: its spark.py decodes its own producers' events."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
CATALOG = (
    ROOT.parent
    / "shared/catalogs/xrcg-samples/message-definitions/inkjet-jsonschema.xreg.json"
)
STARTED = "Fabrikam.InkJetPrinter.PrintJobStarted"


@pytest.fixture(scope="module")
def inkjet(tmp_path_factory: pytest.TempPathFactory, spark: Any) -> Any:
    if not CATALOG.exists():
        pytest.skip(f"sample catalogs not present at {CATALOG}")
    from xrgen.api import generate

    result = generate([str(CATALOG)], "inkjet_spark")
    assert result.files, result.diagnostics
    out = tmp_path_factory.mktemp("gen")
    for rel, text in result.files.items():
        target = out / str(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    sys.path.insert(0, str(out))
    try:
        return importlib.import_module("inkjet_spark")
    finally:
        sys.path.remove(str(out))


def test_generated_spark_module_decodes_produced_events(
    spark: Any, inkjet: Any
) -> None:
    spark_mod = importlib.import_module("inkjet_spark.spark")
    kafka = importlib.import_module("inkjet_spark.bindings.kafka")
    data = {
        "tenantid": "t1",
        "deviceid": "d1",
        "jobId": "j1",
        "documentName": "a.pdf",
        "startTime": "2024-05-01T10:00:00Z",
    }
    rows = []
    for i, mode in enumerate(["binary", "structured"]):
        ev = inkjet.MESSAGES[STARTED].create(data, tenantid="t1", deviceid=f"d{i}")
        msg = kafka.encode(ev, mode=mode, topic="printers")
        rows.append((msg.key, msg.value, msg.topic, 0, i, None, 0, list(msg.headers)))
    rows.append((None, b"{}", "printers", 0, 9, None, 0, [("ce_type", b"x")]))
    df = spark.createDataFrame(rows, spark_mod.LANDING_SCHEMAS["kafka"])
    outputs, dead = spark_mod.decode_kafka(df)
    assert set(outputs) == set(spark_mod.EVENT_SCHEMAS)
    got = outputs[STARTED].collect()
    assert sorted(r["params"]["deviceid"] for r in got) == ["d0", "d1"]
    assert {r["data"]["jobId"] for r in got} == {"j1"}
    assert [r["reason"] for r in dead.collect()] == ["decode-error"]
    assert outputs[STARTED].columns[: len(spark_mod.EVENT_SCHEMAS[STARTED])] == (
        spark_mod.EVENT_SCHEMAS[STARTED].fieldNames()
    )


def test_decoder_is_reused_across_calls(spark: Any, inkjet: Any) -> None:
    """``decode_kafka`` keeps one decoder, whose column expressions serve every later frame
    with the same columns: a second, different frame decodes by its own rows."""
    spark_mod = importlib.import_module("inkjet_spark.spark")
    kafka = importlib.import_module("inkjet_spark.bindings.kafka")
    assert spark_mod.decoder("kafka") is spark_mod.decoder("kafka")
    assert spark_mod.decoder("kafka") is not spark_mod.decoder("json")
    data = {"tenantid": "t1", "deviceid": "d1", "jobId": "j1", "documentName": "a.pdf"}
    data["startTime"] = "2024-05-01T10:00:00Z"
    built = spark_mod.decoder("kafka")._built
    seen, memo = [], []
    for device in ("first", "second"):
        ev = inkjet.MESSAGES[STARTED].create(data, tenantid="t1", deviceid=device)
        msg = kafka.encode(ev, topic="printers")
        row = (msg.key, msg.value, msg.topic, 0, 0, None, 0, list(msg.headers))
        df = spark.createDataFrame([row], spark_mod.LANDING_SCHEMAS["kafka"])
        outputs, dead = spark_mod.decode_kafka(df)
        seen.append([r["params"]["deviceid"] for r in outputs[STARTED].collect()])
        assert dead.count() == 0
        memo.append({key: id(value) for key, value in built.items()})
    assert seen == [["first"], ["second"]]
    # the first call built (or found) the route and split of these columns; the second
    # call built nothing more and replaced nothing (other tests may have used the decoder)
    assert ("route", tuple(df.columns)) in memo[0]
    assert memo[1] == memo[0]
