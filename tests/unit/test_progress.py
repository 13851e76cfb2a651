"""Progress display: a rich bar on a terminal for large outputs, nothing otherwise."""

from __future__ import annotations

import io

import pytest

from xrgen import cli


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli.sys, "stderr", io.StringIO())
    assert cli._progress() is None


def test_bar_on_a_terminal_for_large_outputs_only(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _Tty()
    monkeypatch.setattr(cli.sys, "stderr", tty)
    update = cli._progress()
    assert update is not None
    for i in range(1, 6):
        update("format", i, 5)  # small: no bar
    assert tty.getvalue() == ""
    update2 = cli._progress()
    assert update2 is not None
    for i in range(1, 31):
        update2("format", i, 30)
    # rich wrote to the (fake) terminal and finished the bar
    assert tty.getvalue() != ""
