"""``python -m xrgen_runtime run MODULE:APP --endpoint ID`` as a real subprocess against the
real servers: it serves, answers the health probes and keeps a ready file while it takes
messages, and a SIGTERM in the middle of a stream drains (the messages in hand finish and are
acknowledged, exit 0): with the rest served by a second process, every message sent was
handled, none twice."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from netutil import free_port

from .conftest import wait_until
from .endpoints_catalog import amqp_login_fixture  # noqa: F401  (fixture)
from .serving_catalog import Binding, binding, srv_fixture  # noqa: F401  (fixture)
from .test_serving import _stream, job

HANDLERS = textwrap.dedent("""
    import os
    import time

    import srv_serving
    from xrgen_runtime.serving import App, Retry

    dispatcher = srv_serving.consumer.Dispatcher()


    @dispatcher.on("srv.Job")
    def handle(event, params):
        time.sleep(0.01)
        with open(os.environ["JOBS_LOG"], "a") as log:
            log.write(f"{event.data.job}\\n")


    app = App(dispatcher, concurrency=4, retry=Retry(attempts=2, delay=0.01))
    """)
TOTAL = 400


@pytest.fixture(params=["amqp", "mqtt5", "jetstream", "kafka"])
def b(request: pytest.FixtureRequest) -> Iterator[Binding]:
    found = binding(request.param, request)
    if found.name == "jetstream":
        asyncio.run(_stream("add", found))
        yield found
        asyncio.run(_stream("delete", found))
    else:
        yield found


def _arguments(b: Binding) -> list[str]:
    args = {**b.where, **b.receiving}
    return [
        f"--arg={k}={json.dumps(v) if not isinstance(v, str) else v}"
        for k, v in args.items()
    ]


def start(
    srv: ModuleType, b: Binding, tmp_path: Path, tag: str, *extra: str
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    (tmp_path / "handlers.py").write_text(HANDLERS)
    log, ready = tmp_path / f"jobs-{tag}.log", tmp_path / f"ready-{tag}"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), str(Path(srv.__file__).parents[1])]
        ),
        "JOBS_LOG": str(log),
        "XRGEN_ENDPOINT": f"srv.{b.prefix}.in",
    }
    argv = [sys.executable, "-m", "xrgen_runtime", "run", "handlers:app"]
    argv += [*_arguments(b), f"--ready-file={ready}", *extra]
    with (tmp_path / f"stderr-{tag}.log").open("wb") as err:
        child = subprocess.Popen(argv, env=env, cwd=tmp_path, stderr=err)
    return child, log, ready


def stderr(tmp_path: Path, tag: str) -> str:
    return (tmp_path / f"stderr-{tag}.log").read_text()


def handled(log: Path) -> list[int]:
    return [int(x) for x in log.read_text().split()] if log.exists() else []


def _probe(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_sigterm_mid_stream_loses_nothing(
    srv: ModuleType, b: Binding, tmp_path: Path
) -> None:
    port = free_port()
    child, log, ready = start(
        srv, b, tmp_path, "first", f"--health-port={port}", "--health-host=127.0.0.1"
    )
    second = None
    try:
        wait_until(lambda: ready.exists() or child.poll() is not None, 60, "ready")
        assert child.poll() is None, stderr(tmp_path, "first")
        assert _probe(port, "/healthz") == 200 and _probe(port, "/readyz") == 200
        extra = {"jetstream": True} if b.name == "jetstream" else {}
        with srv.ENDPOINTS[f"srv.{b.prefix}.out"].sender(**b.where, **extra) as s:
            futures = [s.send(job(srv, n)) for n in range(TOTAL)]
            s.flush(60)
            assert all(f.result(60) for f in futures)  # every one broker-confirmed
        wait_until(
            lambda: len(handled(log)) >= TOTAL // 4 or child.poll() is not None,
            60,
            "a quarter handled",
        )
        assert child.poll() is None, stderr(tmp_path, "first")
        child.send_signal(signal.SIGTERM)
        child.wait(60)
        assert child.returncode == 0, stderr(tmp_path, "first")
        assert not ready.exists()  # not ready from the SIGTERM on
        first = handled(log)
        assert len(first) < TOTAL, "stopped too late to test a drain"
        second, log2, ready2 = start(srv, b, tmp_path, "second", "--idle-timeout=8")
        second.wait(120)
        assert second.returncode == 0, stderr(tmp_path, "second")
        rest = handled(log2)
    finally:
        for proc in (child, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert sorted(first + rest) == list(range(TOTAL))  # none lost, none twice


def test_usage_errors_exit_2(srv: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "handlers.py").write_text(HANDLERS)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(tmp_path), str(Path(srv.__file__).parents[1])]
        ),
        "JOBS_LOG": str(tmp_path / "jobs.log"),
    }
    for argv, expected in [
        (["handlers:app", "--endpoint", "srv.nowhere"], "no endpoint 'srv.nowhere'"),
        (["handlers:nothing", "--endpoint", "srv.amqp.in"], "has no 'nothing'"),
        (["nomodule:app", "--endpoint", "srv.amqp.in"], "cannot import 'nomodule'"),
        (["handlers:app"], "--endpoint ID"),
        (["handlers:app", "--endpoint", "srv.amqp.in", "--arg", "x"], "NAME=VALUE"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "xrgen_runtime", "run", *argv],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 2, (argv, done.stderr)
        assert expected in done.stderr.decode(), (argv, done.stderr)
