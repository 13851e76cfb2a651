"""``[tool.xrgen]`` settings: validation, relative paths and flag precedence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xrgen.config import ConfigError, Settings, load


def write(folder: Path, body: str) -> str:
    path = folder / "pyproject.toml"
    path.write_text("[tool.xrgen]\n" + body, encoding="utf-8")
    return str(path)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_key(here: Path) -> None:
    path = write(
        here,
        'catalogs = ["a.json", "https://r.example/registry"]\nout = "src"\npackage = "p"\n'
        "spark = false\nstrict = true\npyproject = true\n",
    )
    assert load(path) == Settings(
        catalogs=["a.json", "https://r.example/registry"],
        out="src",
        package="p",
        spark=False,
        strict=True,
        pyproject=True,
    )


def test_defaults(here: Path) -> None:
    assert load(None) == Settings()  # no pyproject.toml here
    assert load(write(here, "")) == Settings(catalogs=[], spark=True, strict=False, pyproject=False)
    (here / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load(None) == Settings()


def test_catalogs_may_be_one_string(here: Path) -> None:
    assert load(write(here, 'catalogs = "a.json"\n')).catalogs == ["a.json"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('spark = "false"\n', '[tool.xrgen] spark: input should be a valid boolean, got \'false\''),
        ("strict = 1\n", "[tool.xrgen] strict: input should be a valid boolean, got 1"),
        ("catalogs = 3\n", "[tool.xrgen] catalogs: input should be a valid list, got 3"),
        ('catalogs = ["a.json", 3]\n', "[tool.xrgen] catalogs[1]: input should be a valid string, got 3"),
        ('catalogs = [""]\n', "[tool.xrgen] catalogs[0]: string should have at least 1 character"),
        ("out = false\n", "[tool.xrgen] out: input should be a valid string, got False"),
        ('sprak = false\n', "[tool.xrgen] sprak: unknown key (known: catalogs, out, package, spark, strict, pyproject, fetch-timeout, max-document-bytes, avro-framing, avro-framing-messages)"),
        ("[tool.xrgen.nested]\n", "[tool.xrgen] nested: unknown key"),
    ],
)
def test_wrong_keys_and_types_name_the_key(here: Path, body: str, message: str) -> None:
    path = write(here, body)
    with pytest.raises(ConfigError) as e:
        load(path)
    assert str(e.value).startswith(f"{path}: {message}")


def test_every_problem_is_reported(here: Path) -> None:
    path = write(here, 'spark = "no"\nextra = 1\n')
    with pytest.raises(ConfigError) as e:
        load(path)
    lines = str(e.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == ["[tool.xrgen] spark", "[tool.xrgen] extra"]


def test_unreadable_files(here: Path) -> None:
    with pytest.raises(ConfigError, match="missing.toml: cannot read"):
        load("missing.toml")  # named on the command line: it must exist
    (here / "bad.toml").write_text("[tool.xrgen\n")
    with pytest.raises(ConfigError, match="bad.toml: cannot read"):
        load("bad.toml")
    (here / "scalar.toml").write_text("tool.xrgen = 1\n")
    with pytest.raises(ConfigError, match=r"\[tool.xrgen\] must be a table, got 1"):
        load("scalar.toml")


def test_paths_are_relative_to_the_file(here: Path) -> None:
    (here / "proj").mkdir()
    path = write(here / "proj", 'catalogs = ["c/a.json", "/abs/b.json", "https://x/y"]\nout = "src"\n')
    settings = load(os.path.relpath(path))
    assert settings.catalogs == [os.path.join("proj", "c/a.json"), "/abs/b.json", "https://x/y"]
    assert settings.out == os.path.join("proj", "src")
    # in the current folder they stay as written
    assert load(write(here, 'catalogs = ["c/a.json"]\n')).catalogs == ["c/a.json"]


def test_flags_override_the_file() -> None:
    file = Settings(catalogs=["a.json"], out="src", spark=False, strict=True)
    assert file.merged(catalogs=[], strict=None, spark=None) == file  # nothing given
    merged = file.merged(catalogs=["b.json"], strict=False, spark=True, pyproject=True, out="o")
    assert merged == Settings(
        catalogs=["b.json"], out="o", spark=True, strict=False, pyproject=True
    )
