"""Every real sample catalog (../shared/catalogs/xrcg-samples) loads and validates without
crashing, and produces exactly the errors we know it has."""

from __future__ import annotations

from pathlib import Path

import pytest

from xrgen.diagnostics import Diagnostics
from xrgen.load import load
from xrgen.model.registry import Registry
from xrgen.validate import validate

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared" / "catalogs" / "xrcg-samples"

if not SAMPLES.is_dir():
    pytest.skip(f"sample catalogs not present at {SAMPLES}", allow_module_level=True)

SOURCES = sorted(
    p.relative_to(SAMPLES).as_posix()
    for p in SAMPLES.rglob("*")
    if p.suffix in (".json", ".yaml") and "split-files" not in p.parts
) + ["split-files"]

#: sample -> its errors (code, pointer); every other sample must have none
KNOWN_ERRORS: dict[str, list[tuple[str, str]]] = {
    # (a template on `time`, as in minimal-avro2, is warning XRG137: time is never a constant)
}


@pytest.fixture()
def in_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES)


def run(source: str) -> tuple[Registry, Diagnostics]:
    diags = Diagnostics()
    reg = load([source], diags)
    validate(reg, diags)
    return reg, diags


def test_all_samples_found() -> None:
    assert len(SOURCES) >= 40


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.usefixtures("in_samples")
def test_sample_loads_and_validates(source: str) -> None:
    reg, diags = run(source)
    errors = [(d.code, d.pointer) for d in diags.sorted() if d.severity == "error"]
    assert errors == KNOWN_ERRORS.get(source, [])
    assert reg.messagegroups or reg.endpoints
    assert all(d.file.startswith(source) for d in diags)  # relative display names


@pytest.mark.usefixtures("in_samples")
def test_split_files_sample_stacks_the_version_file() -> None:
    reg, _ = run("split-files")
    group = reg.messagegroups["Fabrikam.Lumen"]
    assert len(group.messages) == 4
    schema = reg.schemagroups["Fabrikam.Lumen"].schemas["Fabrikam.Lumen.TurnedOnEventData"]
    version = schema.versions["1"]
    assert version.data["schema"]["name"] == "TurnedOnEventData"
    assert version.file.endswith("TurnedOnEventData/versions/1/index.json")


@pytest.mark.usefixtures("in_samples")
def test_legacy_cereg_sample_is_normalized() -> None:
    reg, diags = run("message-definitions/contoso-crm.cereg.yaml")
    msg = reg.messagegroups["Contoso.CRM.Events"].messages["Contoso.CRM.Events.CustomerCreated"]
    assert msg.data["envelope"] == "CloudEvents/1.0"
    assert msg.data["envelopemetadata"]["time"]["type"] == "timestamp"
    assert (
        msg.data["dataschemauri"]
        == "#/schemagroups/Contoso.CRM.Events/schemas/customerCreatedEventData"
    )
    endpoint = reg.endpoints["Contoso.CRM.Eventing.Http"]
    assert endpoint.data["protocol"] == "HTTP" and endpoint.data["usage"] == ["producer"]
    assert not diags.has_errors


@pytest.mark.usefixtures("in_samples")
def test_all_samples_stacked_together() -> None:
    """Stacking every sample in one run must not crash (shared group ids shadow each other)."""
    diags = Diagnostics()
    reg = load(SOURCES, diags)
    validate(reg, diags)
    assert len(reg.sources) == len(SOURCES)
    assert {d.code for d in diags if d.severity == "error"} <= {"XRG135"}


#: the attribute names of the real samples that are neither defined by xRegistry nor
#: extensions: (sample, pointer) of each XRG127/XRG128 warning (and no JSON Schema keyword is
#: misspelled, XRG158); everything else they carry is read, or an extension (note XRG129)
MISSPELLED = {
    ("protocols/nats-consumer-endpoint.xreg.json",
     "/messagegroups/Contoso.Sensors.Temperature/messages/Contoso.Sensors.Temperature.Metrics/schemaformatr"),
}  # fmt: skip
#: extension attributes the samples carry: drafts' `version` and entity-kind `type` tags, and a
#: schema nested in another
EXTENSIONS = {"version", "type", "SparkplugB.Protobuf"}


@pytest.mark.usefixtures("in_samples")
def test_unknown_attribute_names_of_the_samples() -> None:
    """No false positive over the real catalogs: only their misspelling is warned, and what
    they carry beyond xRegistry is noted as extensions."""
    found, extensions = set(), set()
    for source in SOURCES:
        _, diags = run(source)
        for d in diags:
            if d.code in ("XRG127", "XRG128", "XRG158"):
                found.add((source, d.pointer))
            elif d.code == "XRG129":
                extensions.add(d.pointer.rsplit("/", 1)[1])
    assert found == MISSPELLED
    assert extensions == EXTENSIONS
