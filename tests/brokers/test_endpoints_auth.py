"""Endpoints whose servers require credentials: a NATS server with a user and a Mosquitto with
a password file, started for the test. The credentials come from the environment variables the
endpoint names; a missing one fails before any connection is tried, a wrong one is refused by the
server, and no credential appears in an error or a ``repr``."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from netutil import free_port
from xrgen_runtime.endpoints import EndpointConnectFailed, MissingCredential, env_names

from .conftest import HOST, ServerProcess, _need_binary, running, unique
from .endpoints_catalog import Inbox, endpoints_fixture, order, svc_fixture  # noqa: F401

USER = "svc-user"
PASSWORD = "pw-" + unique("secret")


@pytest.fixture
def secure_nats(tmp_path: Path) -> Iterator[int]:
    binary = _need_binary("nats-server")
    port = free_port()
    argv = [binary, "-a", HOST, "-p", str(port), "--user", USER, "--pass", PASSWORD]
    with running(ServerProcess(argv, port, tmp_path / "nats.log")):
        yield port


@pytest.fixture
def secure_mosquitto(tmp_path: Path) -> Iterator[int]:
    binary = _need_binary("mosquitto")
    passwd = _need_binary("mosquitto_passwd")
    port = free_port()
    users = tmp_path / "passwd"
    subprocess.run([passwd, "-c", "-b", str(users), USER, PASSWORD], check=True)
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(
        f"listener {port} {HOST}\nallow_anonymous false\npassword_file {users}\nuser root\n"
    )
    with running(ServerProcess([binary, "-c", str(conf)], port, tmp_path / "m.log")):
        yield port


def _login(monkeypatch: pytest.MonkeyPatch, endpoint_id: str, password: str = PASSWORD) -> None:
    user_var, _ = env_names(endpoint_id, "username")
    password_var, _ = env_names(endpoint_id, "password")
    monkeypatch.setenv(user_var, USER)
    monkeypatch.setenv(password_var, password)


def test_nats_credentials_from_the_environment(
    svc: ModuleType, EP: Any, secure_nats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = {"host": HOST, "natsport": str(secure_nats), "run": unique("a").replace("-", "_")}
    out, into = EP["svc.nats.secure.out"], EP["svc.nats.secure.in"]
    with pytest.raises(MissingCredential) as info:
        out.sender(**where)  # nothing set: fails before connecting
    assert "XRGEN_SVC_NATS_SECURE_OUT_USERNAME" in str(info.value)
    _login(monkeypatch, out.id)
    _login(monkeypatch, into.id)
    inbox = Inbox(into)

    async def main() -> int:
        async with into.async_receiver(**where) as r, out.async_sender(**where) as s:
            for i in range(2):
                await s.send(order(svc, i))
            return await r.run(inbox.dispatcher.dispatch_async, max_messages=2, idle_timeout=10)

    assert asyncio.run(main()) == 2
    assert inbox.ids() == ["o-0", "o-1"]

    async def wrong() -> None:
        sender = await out.async_sender(**where, password="not-" + PASSWORD, options={"max_reconnect_attempts": 0, "allow_reconnect": False})
        await sender.close()

    with pytest.raises(Exception) as refused:
        asyncio.run(wrong())
    assert PASSWORD not in str(refused.value) and PASSWORD not in repr(refused.value)


def test_mqtt_credentials_from_the_environment(
    svc: ModuleType, EP: Any, secure_mosquitto: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = {"host": HOST, "mqttport": str(secure_mosquitto), "run": unique("a")}
    out, into = EP["svc.mqtt.secure.out"], EP["svc.mqtt.secure"]
    with pytest.raises(MissingCredential, match="XRGEN_SVC_MQTT_SECURE_PASSWORD"):
        into.receiver(**where)
    monkeypatch.setenv("XRGEN_USERNAME", USER)  # the generic fallback serves both endpoints
    monkeypatch.setenv("XRGEN_PASSWORD", PASSWORD)
    inbox = Inbox(into)
    with into.receiver(**where) as r:
        with out.sender(**where) as s:
            s.send(order(svc, 7)).result(10)
        assert r.run(inbox.dispatcher.dispatch, max_messages=1, idle_timeout=10) == 1
    assert inbox.ids() == ["o-7"]
    with pytest.raises(EndpointConnectFailed, match=r"'svc.mqtt.secure.out': cannot connect to "
                       r"127.0.0.1:\d+: refused: Not authorized") as refused:
        out.sender(**where, password="wrong")
    assert PASSWORD not in str(refused.value)
    assert PASSWORD not in repr(out.config(**where))
