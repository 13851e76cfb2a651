"""xrgen.models on real catalogs (xrcg-samples) and on the 1,000-schema synthetic catalog."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, RootModel, ValidationError
from test_models import load

from xrgen.model import ir
from xrgen.models import render_models
from xrgen.naming import Scope, pascal

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
SAMPLES = SHARED / "catalogs" / "xrcg-samples"
SYNTH = SHARED / "tools" / "synth_catalog.py"
ALLOWED_MODULES = {
    "__future__",
    "datetime",
    "decimal",
    "enum",
    "typing",
    "uuid",
    "pydantic",
    # Avro field types that hold what the wire holds (float32, milliseconds)
    "xrgen_runtime.formats",
    "xrgen_runtime.formats.avro",
}



def _family(fmt: str) -> str | None:
    low = fmt.lower()
    return "json" if low.startswith("jsonschema") else "avro" if low.startswith("avro") else None


def _schemas(node: Any, pointer: str, fmt: str | None, out: list[tuple[str, str, Any]]) -> None:
    """Every ``schema``/``dataschema`` with a JSON Schema or Avro format below ``node``."""
    if isinstance(node, dict):
        here = node.get("format") or node.get("dataschemaformat") or fmt
        here = here if isinstance(here, str) else None
        for key, value in node.items():
            family = _family(here) if here else None
            if key in ("schema", "dataschema") and family and isinstance(value, (dict, list)):
                out.append((pointer + "/" + key, family, value))
            else:
                _schemas(value, f"{pointer}/{key}", here, out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _schemas(value, f"{pointer}/{i}", fmt, out)


def sample_payloads() -> list[ir.Payload]:
    found: list[tuple[str, str, Any]] = []
    for f in sorted(SAMPLES.rglob("*")):
        if f.suffix in (".json", ".yaml") and f.is_file():
            text = f.read_text(encoding="utf-8")
            doc = yaml.safe_load(text) if f.suffix == ".yaml" else json.loads(text)
            _schemas(doc, f"{f.relative_to(SAMPLES)}#", None, found)
    keys: dict[str, ir.Payload] = {}
    names = Scope(frozenset({"BaseModel", "Field", "RootModel", "Any"}))
    for loc, family, schema in found:
        key = family + ":" + json.dumps(schema, sort_keys=True)
        if key not in keys:  # the build stage passes identical schemas once
            stem = (
                loc.rsplit("/schemas/", 1)[-1].split("/")[0]
                if "/schemas/" in loc
                else loc.rsplit("/", 2)[-2]
            )
            keys[key] = ir.Payload(key, family, schema, names.claim(pascal(stem))[0], loc)
    return list(keys.values())


needs_samples = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason="../shared/catalogs/xrcg-samples is absent"
)


@needs_samples
def test_sample_catalog_schemas_render_and_validate(tmp_path: Path) -> None:
    payloads = sample_payloads()
    assert (
        sum(p.format == "json" for p in payloads) >= 10
        and sum(p.format == "avro" for p in payloads) >= 5
    )
    src = render_models(payloads)
    unmapped = [d for d in src.diagnostics if d[1] in ("XRG320", "XRG322")]
    assert unmapped == []
    assert src.classes == {p.key: p.model_name for p in payloads}
    imported = {n.module for n in ast.parse(src.code).body if isinstance(n, ast.ImportFrom)}
    assert imported <= ALLOWED_MODULES
    m = load(src, tmp_path)
    required_checked = 0
    for p in payloads:
        cls = getattr(m, p.model_name)
        assert issubclass(cls, BaseModel), p.location
        schema = p.schema
        fields = schema.get("fields", []) if isinstance(schema, dict) else []
        required = (
            schema.get("required")
            if p.format == "json" and isinstance(schema, dict)
            else [f["name"] for f in fields if "default" not in f]
        )
        if required and not issubclass(cls, RootModel):
            with pytest.raises(ValidationError):
                cls.model_validate({})
            required_checked += 1
    assert required_checked >= 10


@needs_samples
def test_sample_catalog_models_are_mypy_strict_clean(tmp_path: Path) -> None:
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    assert mypy, "mypy is a test dependency"
    path = tmp_path / "sample_models.py"
    path.write_text(render_models(sample_payloads()).code, encoding="utf-8")
    proc = subprocess.run(
        [
            mypy,
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy"),
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(not SYNTH.is_file(), reason="../shared/tools/synth_catalog.py is absent")
def test_synthetic_catalog_generates_one_shape(tmp_path: Path) -> None:
    out = tmp_path / "synth.json"
    subprocess.run([sys.executable, str(SYNTH), str(out)], check=True, capture_output=True)
    doc = json.loads(out.read_text(encoding="utf-8"))
    payloads = [
        ir.Payload(
            sid,
            "json",
            s["versions"]["1"]["schema"],
            sid,
            f"synth#/schemagroups/{gid}/schemas/{sid}",
        )
        for gid, group in doc["schemagroups"].items()
        for sid, s in group["schemas"].items()
    ]
    assert len(payloads) == 1000
    src = render_models(payloads)
    assert src.diagnostics == []
    assert src.code.count("(BaseModel)") == 2 and src.code.count("(Event00000Data)") == 999
    m = load(src, tmp_path)
    row = {
        "deviceid": "d",
        "seq": 1,
        "value": 2.5,
        "timestamp": "2024-01-01T00:00:00Z",
        "location": {"lat": 1, "lon": 2},
    }
    last = m.Event00999Data.model_validate(row)
    assert isinstance(last, m.Event00000Data) and isinstance(last.location, BaseModel)
    with pytest.raises(ValidationError):
        m.Event00999Data.model_validate({"deviceid": "d"})
