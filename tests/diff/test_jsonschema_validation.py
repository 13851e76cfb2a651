"""The JSON Schema rules against a real validator (jsonschema): for each ``json-*`` case
folder, a pool of payloads is validated with OLD's and NEW's schema. Backward breaks exactly
when some payload OLD accepts is rejected by NEW, forward when some payload NEW accepts is
rejected by OLD; the verdicts of ``xrgen diff`` must say the same.

The one place where the rules choose differently from set semantics, as schema registries do
for open content models, is an optional property added or removed while the other side is
open: a payload may carry that property with any value under the open side. Those cases are
listed in ``PRAGMATIC`` and checked to differ only in that way."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from xrgen.diff.jsonschema import compare_json

HERE = Path(__file__).resolve().parent
CASES = sorted(p.name for p in HERE.glob("json-*") if (p / "old.json").is_file())
#: case -> the direction set semantics see broken (a payload with the property at a value of
#: another type) that the rules report as compatible
PRAGMATIC = {"json-optional-property-added": "backward", "json-property-removed": "forward"}
#: cases whose keywords the rules compare only for equality: a change is reported as breaking
#: both ways, so the validator must find no break the rules do not report
CONSERVATIVE = {"json-unanalyzed-keyword-changed"}

BASE = {"id": "a", "amount": 1.5, "status": "new", "note": "n", "customer": {"name": "c", "email": "e"}}


def _variants() -> list[dict[str, Any]]:
    out = [BASE]
    for key in BASE:
        out.append({k: v for k, v in BASE.items() if k != key})
    changes: list[tuple[str, Any]] = [
        ("amount", 2), ("amount", 0.5), ("amount", 0), ("amount", -1), ("note", None),
        ("note", 3), ("status", "paid"), ("status", "refunded"), ("id", 5),
        ("customer", {"name": "c"}), ("extra", {"x": 1}), ("coupon", "c"), ("coupon", 5),
        ("x-a", 5), ("note", "a@example.com"),
    ]  # fmt: skip
    for key, value in changes:
        v = copy.deepcopy(BASE)
        v[key] = value
        out.append(v)
    return out


POOL = _variants()


def _schema(folder: Path, side: str) -> Any:
    doc = json.loads((folder / side).read_text())
    return doc["messagegroups"]["com.ex.shop"]["messages"]["com.ex.Order"]["dataschema"]


def _witness(writer: Any, reader: Any) -> dict[str, Any] | None:
    """A payload the writer's schema accepts and the reader's rejects."""
    formats = jsonschema.Draft7Validator.FORMAT_CHECKER  # generated models enforce formats
    w = jsonschema.Draft7Validator(writer, format_checker=formats)
    r = jsonschema.Draft7Validator(reader, format_checker=formats)
    return next((p for p in POOL if w.is_valid(p) and not r.is_valid(p)), None)


@pytest.mark.parametrize("case", CASES)
def test_verdicts_match_the_validator(case: str) -> None:
    old, new = _schema(HERE / case, "old.json"), _schema(HERE / case, "new.json")
    findings = compare_json(old, new)
    assert findings
    for direction, writer, reader in (("backward", old, new), ("forward", new, old)):
        predicted = any(direction in f.breaks for f in findings)
        witness = _witness(writer, reader)
        if PRAGMATIC.get(case) == direction:
            assert witness is not None and not predicted, (case, direction)
            continue
        if case in CONSERVATIVE:
            assert predicted or witness is None, (case, direction, witness)
            continue
        assert (witness is not None) == predicted, (case, direction, witness, findings)
