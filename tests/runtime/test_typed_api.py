"""The generated API under a type checker, as users meet it: a producer built without the
placeholders its constructor can hold requires them in every method, one built with them does
not; handlers receive a ``TypedDict`` of their message's placeholder values; generated modules
import public runtime modules only. Checked by running ``mypy --strict`` on user code."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import CATALOGS, Generated

USER_CODE = '''
from typing import Any

import acme_typed as acme
from acme_typed.consumer import ReadingParams
from acme_typed.producer import ComAcmeBaseProducer

acme.producer.ComAcmeBaseProducer(plant="p1").reading(acme.models.Reading(value=1.5), sensor="s 1")
ComAcmeBaseProducer(plant="p", sensor="s").reading({"value": 1.0})
ComAcmeBaseProducer().reading({"value": 1.0}, plant="p", sensor="s")
annotated: ComAcmeBaseProducer = ComAcmeBaseProducer()
annotated.reading({"value": 1.0})
ComAcmeBaseProducer().reading({"value": 1.0})  # line 13: plant and sensor missing
unbound = ComAcmeBaseProducer()
unbound.alarm({"level": 1}, plant="p", severity=2)  # line 15: sensor missing
d = acme.consumer.Dispatcher()


@d.on_reading
def handle(event: acme.Event[acme.models.Reading], params: ReadingParams) -> None:
    print(params["plant"], params["sensor"])
    print(params["nope"])  # line 22: not a placeholder of Reading


@d.on_alarm  # line 25: a handler typed dict[str, Any] is not an AlarmParams one
def untyped(event: acme.Event[acme.models.Alarm], params: dict[str, Any]) -> None:
    pass
'''


@pytest.fixture(scope="module")
def typed(generated: Generated) -> ModuleType:
    return generated(CATALOGS / "acme" / "catalog.json", package="acme_typed")


def test_mypy_sees_missing_placeholders_and_unknown_params(
    typed: ModuleType, generated: Generated, tmp_path: Path
) -> None:
    pytest.importorskip("mypy")
    (tmp_path / "user.py").write_text(USER_CODE)
    env = {**os.environ, "MYPYPATH": str(generated.root / "acme_typed")}
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
         str(tmp_path / ".mypy"), "--hide-error-context", "--no-error-summary", "user.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    errors = sorted(
        (int(m.group(1)), m.group(2))
        for m in re.finditer(r"^user\.py:(\d+): error: (.*)$", proc.stdout, re.M)
    )
    assert [line for line, _ in errors] == [13, 13, 15, 22, 25], proc.stdout
    assert 'Missing named argument "plant" for "reading"' in errors[0][1] + errors[1][1]
    assert 'Missing named argument "sensor" for "alarm"' in errors[2][1]
    assert 'TypedDict "ReadingParams" has no key "nope"' in errors[3][1]
    assert '"on_alarm"' in errors[4][1] and "AlarmParams" in errors[4][1]


def test_at_run_time_a_missing_placeholder_is_a_type_error(typed: ModuleType) -> None:
    producer = typed.producer.ComAcmeBaseProducer(plant="p1")
    event = producer.reading({"value": 1.0}, sensor="s 1")
    assert event.attributes["source"] == "/plants/p1/sensors/s%201"
    with pytest.raises(TypeError, match="placeholder 'sensor'"):
        producer.reading({"value": 1.0})
    assert typed.consumer.ReadingParams.__required_keys__ == frozenset({"plant", "sensor"})


#: the bundled catalogs that generate (``cycle`` is a catalog with a basemessage cycle: exit 1)
GENERATING = sorted(
    p.name for p in CATALOGS.iterdir() if (p / "catalog.json").is_file() and p.name != "cycle"
)


@pytest.mark.parametrize("catalog", GENERATING)
def test_generated_modules_import_public_runtime_modules_only(
    catalog: str, generated: Generated
) -> None:
    """No ``xrgen_runtime._private`` import (nor a comment naming a runtime module file)."""
    package = f"pub_{catalog}"
    generated(CATALOGS / catalog / "catalog.json", package=package)
    for path in sorted((generated.root / package / package).rglob("*.py")):
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            names = (
                [node.module or ""] if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            )  # fmt: skip
            for name in names:
                if name.startswith("xrgen_runtime"):
                    private = [part for part in name.split(".") if part.startswith("_")]
                    assert not private, f"{path.name} imports {name}"
        assert not re.search(r"``_\w+\.py``", text), path.name
