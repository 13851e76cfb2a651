"""The real sample catalogs (../shared/catalogs/xrcg-samples): which exist, which are broken
on purpose (and the diagnostic each must report), and the package name each generates as.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "catalogs" / "xrcg-samples"
PRESENT = SAMPLES.is_dir()
ABSENT_REASON = "../shared/catalogs/xrcg-samples is not beside the checkout"

#: sample -> the pointer of the broken reference it must report (exit 1)
BROKEN = {
    "protocols/kafka-producer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/kafka-consumer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/nats-producer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "protocols/nats-consumer-endpoint.xreg.json": "#/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/dataschemauri: error XRG210",
    "message-definitions/mqtt-sparkplugB.xreg.json": "#/messagegroups/Eclipse.SparkplugB.Device/messages/DBIRTH/dataschemauri: error XRG210",
}
ALL = sorted(
    str(p.relative_to(SAMPLES))
    for p in SAMPLES.rglob("*")
    if p.suffix in (".json", ".yaml")
    and "separate-schema" not in p.parts
    and "split-files" not in p.parts
) + (["split-files"] if PRESENT else [])
GOOD = [s for s in ALL if s not in BROKEN]


def package_name(sample: str) -> str:
    """The Python package a sample generates as (unique per sample)."""
    return "s_" + "".join(c if c.isalnum() else "_" for c in sample.rsplit(".", 2)[0])
