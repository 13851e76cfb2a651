"""The per-binding examples (examples/bindings/*.py) run as scripts against the real servers.

The acme package is generated once into a temporary folder; each script gets it through
``ACME_PATH`` and its server address through its own environment variable, must exit 0, and
must print the typed handler's line for the very event it produced.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from xrgen import api
from xrgen.write import write

from .conftest import HOST, require_module

pytestmark = pytest.mark.brokers

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "bindings"
CATALOG = REPO / "catalogs" / "acme" / "catalog.json"
#: first line of every example: "sent <id> ..." (or "built <id> ..." without a broker)
PRODUCED = re.compile(r"^(?:sent|built) ([0-9a-f-]{36}) ", re.MULTILINE)


@pytest.fixture(scope="module")
def acme_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the package generated from catalogs/acme (what ACME_PATH points at)."""
    result = api.generate([str(CATALOG)], "acme")
    assert result.ok, "\n".join(str(d) for d in result.diagnostics)
    out = tmp_path_factory.mktemp("examples")
    write(out, "acme", result.files)
    assert (out / "acme" / "consumer.py").is_file()
    return out


def run_example(name: str, acme_path: Path, **env: str) -> str:
    """Run ``examples/bindings/<name>.py``; assert exit code 0 and return its stdout."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        env={**os.environ, "ACME_PATH": str(acme_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode == 0, (
        f"{name}.py exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    )
    return proc.stdout


def assert_handled(stdout: str, event_type: str) -> None:
    """The typed handler printed the event this run produced (same id, same type)."""
    produced = PRODUCED.search(stdout)
    assert produced is not None, stdout
    assert f"handled {event_type} id={produced.group(1)} " in stdout, stdout


def test_kafka_example(acme_path: Path, kafka_bootstrap: str) -> None:
    out = run_example("kafka", acme_path, KAFKA_BOOTSTRAP=kafka_bootstrap)
    assert_handled(out, "com.acme.Reading")
    assert "data=Reading(value=21.5" in out


def test_mqtt_example(acme_path: Path, mqtt_port: int) -> None:
    out = run_example("mqtt", acme_path, MQTT_HOST=HOST, MQTT_PORT=str(mqtt_port))
    assert_handled(out, "com.acme.Alarm")
    assert "'sensor': 's1'" in out


def test_amqp_example(acme_path: Path, amqp_url: str) -> None:
    out = run_example("amqp", acme_path, AMQP_URL=amqp_url)
    assert_handled(out, "com.acme.ops.MaintenanceScheduled")
    assert "machine='press-4'" in out


def test_nats_example(acme_path: Path, nats_url: str) -> None:
    out = run_example("nats", acme_path, NATS_URL=nats_url)
    assert_handled(out, "com.acme.ops.ShiftChanged")
    assert "data=Shift(shift=2, lead='Ana')" in out


def test_http_example(acme_path: Path) -> None:
    require_module("uvicorn", "uvicorn")
    require_module("httpx", "httpx")
    out = run_example("http", acme_path)
    assert_handled(out, "com.acme.ReadingBatch")
    assert ": HTTP 202" in out


def test_pulsar_example(acme_path: Path, pulsar_url: str) -> None:
    out = run_example("pulsar", acme_path, PULSAR_URL=pulsar_url)
    assert_handled(out, "com.acme.ops.Note")
    assert "data=Note(text='line 2 restarted')" in out


def test_rocketmq_example(acme_path: Path) -> None:
    """No RocketMQ broker here: the script converts through the real client's Message."""
    require_module("rocketmq", "rocketmq-python-client")
    out = run_example("rocketmq", acme_path)
    assert_handled(out, "com.acme.ops.Note")
    assert "as Message(topic='acme-notes', tag='notes')" in out
