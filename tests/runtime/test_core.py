"""The runtime core: canonical attribute forms, parsing, checks, and static quality gates."""

from __future__ import annotations

import importlib
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType

import pytest

UTC = timezone.utc
ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "runtime" / "xrgen_runtime"


def _module(runtime_package: ModuleType, name: str) -> ModuleType:
    """A module of the runtime package (``_attributes``, ``_time``, ...)."""
    return importlib.import_module(f"{runtime_package.__name__}.{name}")


def test_to_canonical(runtime_package: ModuleType) -> None:
    c = _module(runtime_package, "_attributes").to_canonical
    assert c(True) == "true" and c(False) == "false"
    assert c(-2147483648) == "-2147483648" and c(2147483647) == "2147483647"
    with pytest.raises(ValueError):
        c(2**31)
    assert c(b"\x00\xff") == "AP8="
    assert c(datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2024-01-02T03:04:05Z"
    assert c(datetime(2024, 1, 2, 3, 4, 5, 120, tzinfo=UTC)) == "2024-01-02T03:04:05.000120Z"
    plus2 = timezone(timedelta(hours=2))
    assert c(datetime(2024, 1, 2, 3, 0, tzinfo=plus2)) == "2024-01-02T01:00:00Z"
    assert c(datetime(2024, 1, 2)) == "2024-01-02T00:00:00Z"  # naive counts as UTC
    with pytest.raises(TypeError):
        c(1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02T03:04:05Z", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2024-01-02t03:04:05z", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2024-01-02T03:04:05.1Z", datetime(2024, 1, 2, 3, 4, 5, 100000, tzinfo=UTC)),
        ("2024-01-02T03:04:05.123456789Z", datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)),
        ("2024-01-02T05:04:05+02:00", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)),
    ],
)
def test_parse_time(runtime_package: ModuleType, text: str, expected: datetime) -> None:
    assert _module(runtime_package, "_time").parse_time(text) == expected


@pytest.mark.parametrize(
    "text",
    ["2024-01-02", "2024-01-02T03:04Z", "2024-01-02 03:04:05Z", "2024-01-02T03:04:05",
     "2024-13-02T03:04:05Z", "2024-01-02T03:04:05+24:00", "２０２４-01-02T03:04:05Z",
     "2024-W01-1T03:04:05Z", "2024-01-02T03:04:05,5Z"],
)
def test_parse_time_rejects(runtime_package: ModuleType, text: str) -> None:
    with pytest.raises(ValueError):
        _module(runtime_package, "_time").parse_time(text)


def test_parse_attribute_kinds(runtime_package: ModuleType) -> None:
    core = runtime_package
    attributes = _module(runtime_package, "_attributes")
    p = attributes.parse_attribute
    assert p("x", "true", "boolean") is True
    assert p("x", "-5", "integer") == -5
    assert p("x", "AP8=", "binary") == b"\x00\xff"
    assert p("time", "2024-01-02T03:04:05Z") == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert p("ext", "2024-01-02T03:04:05Z") == "2024-01-02T03:04:05Z"  # unknown stays str
    for kind, text in [("boolean", "True"), ("integer", "+1"), ("integer", "01"),
                       ("integer", "2147483648"), ("integer", "1.0"), ("binary", "A"),
                       ("uri", "no-scheme")]:
        with pytest.raises(core.DecodeError) as exc:
            p("x", text, kind)
        assert exc.value.reason == "invalid-attribute"
    assert attributes.coerce_attribute("x", "7", "integer") == 7
    assert attributes.coerce_attribute("x", 7, "integer") == 7
    with pytest.raises(core.DecodeError):
        attributes.coerce_attribute("x", True, "integer")


def test_names_and_json_content_types(runtime_package: ModuleType) -> None:
    core = _module(runtime_package, "_media")
    is_attribute_name = _module(runtime_package, "_cloudevents").is_attribute_name
    assert is_attribute_name("abc123")
    for bad in ("", "data", "Abc", "a_b", "a-b", "ä"):
        assert not is_attribute_name(bad)
    for ct in (None, "application/json", "TEXT/JSON", "application/cloudevents+json",
               "application/vnd.x+json ; charset=utf-8", "x/json;a=b"):
        assert core.is_json_content_type(ct), ct
    for ct in ("text/plain", "application/jsonx", "json", "application/json-seq", "+json"):
        assert not core.is_json_content_type(ct), ct


def test_data_bytes(runtime_package: ModuleType) -> None:
    rt = runtime_package
    event = _module(rt, "_event")
    assert event.data_bytes(rt.Event({}, None)) is None
    assert event.data_bytes(rt.Event({}, "é")) == "é".encode()
    assert event.data_bytes(rt.Event({}, {"a": [1]})) == b'{"a":[1]}'
    assert event.encode_data(bytearray(b"x")) == (b"x", False)


@pytest.mark.slow
def test_mypy_strict_on_runtime() -> None:
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "-p", "xrgen_runtime"],
        cwd=RUNTIME.parent, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_black_and_ruff_clean() -> None:
    black = subprocess.run([sys.executable, "-m", "black", "--check", "-q", str(RUNTIME)],
                           capture_output=True, text=True)
    assert black.returncode == 0, black.stderr
    ruff = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated",
         "--select", "E,F,W,I,B,UP", "--ignore", "E501", "--target-version", "py310",
         str(RUNTIME)],
        capture_output=True, text=True,
    )
    assert ruff.returncode == 0, ruff.stdout
