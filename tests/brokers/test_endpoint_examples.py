"""The endpoint examples (examples/endpoints/sync_service.py and async_service.py) run as
scripts on every binding against the real servers: the blocking and the asyncio shape of the
same endpoints, each sending three orders (a receipt each) and handling them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from netutil import free_port

from xrgen import api
from xrgen.write import write

from .conftest import HOST, require_module

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "endpoints"
DOCS = REPO / "docs" / "serving.md"


@pytest.fixture(scope="module")
def shop_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = api.generate([str(EXAMPLES / "catalog.json")], "shop")
    assert result.ok, "\n".join(str(d) for d in result.diagnostics)
    out = tmp_path_factory.mktemp("shop")
    write(out, "shop", result.files)
    return out


def _where(binding: str, request: pytest.FixtureRequest) -> tuple[str, str]:
    if binding == "kafka":
        return tuple(request.getfixturevalue("kafka_bootstrap").rsplit(":", 1))  # type: ignore[return-value]
    if binding == "mqtt":
        return HOST, str(request.getfixturevalue("mqtt_port"))
    if binding == "amqp":
        url = request.getfixturevalue("amqp_url").rsplit("@", 1)[-1]
        return tuple(url.split("//", 1)[-1].rsplit(":", 1))  # type: ignore[return-value]
    if binding == "nats":
        return tuple(request.getfixturevalue("nats_url").split("//", 1)[1].rsplit(":", 1))  # type: ignore[return-value]
    require_module("uvicorn", "uvicorn")
    return HOST, str(free_port())


@pytest.mark.parametrize("shape", ["sync", "async"])
@pytest.mark.parametrize("binding", ["kafka", "mqtt", "amqp", "nats", "http"])
def test_example(
    shop_path: Path, binding: str, shape: str, request: pytest.FixtureRequest
) -> None:
    host, port = _where(binding, request)
    env = {"SHOP_PATH": str(shop_path), "BINDING": binding, "HOST": host, "PORT": port}
    if binding == "amqp":  # RabbitMQ's login, as a deployment sets it
        userinfo = (
            request.getfixturevalue("amqp_url").split("//", 1)[1].rsplit("@", 1)[0]
        )
        user, _, password = userinfo.partition(":")
        env |= {"XRGEN_USERNAME": user, "XRGEN_PASSWORD": password}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{shape}_service.py")],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("sent to ") >= 1, proc.stdout
    assert sorted(re.findall(r"handled (o-\d)", proc.stdout)) == ["o-0", "o-1", "o-2"]


def test_the_docs_show_the_examples_as_they_are() -> None:
    """Every code block of docs/serving.md that names an example file is in that file."""
    text = DOCS.read_text()
    blocks = re.findall(r"```python\n# (examples/\S+)\n(.*?)```", text, re.DOTALL)
    assert len(blocks) >= 2
    for name, body in blocks:
        assert body.strip() in (REPO / name).read_text(), name
