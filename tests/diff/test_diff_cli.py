"""``xrgen diff`` beyond the case folders: JSON output, usage and input errors, ``--versions``
along ``ancestor`` (``_transitive`` included) and ``--against`` a git revision (files and
split-file folders)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from xrgen import cli

HERE = Path(__file__).resolve().parent


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], cwd: Path | None = None
) -> tuple[int, str, str]:
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        code = cli.main(["diff", *args])
    finally:
        os.chdir(old)
    got = capsys.readouterr()
    return code, got.out, got.err


def test_json_lists_every_change_with_its_modes(capsys: pytest.CaptureFixture[str]) -> None:
    case = HERE / "json-type-widened"
    code, out, _ = run(["old.json", "new.json", "--json"], capsys, case)
    assert code == 0  # widening breaks forward only; the default mode is backward
    changes = json.loads(out)
    assert changes and all(
        set(c) >= {"code", "pointer", "message", "kind", "modes"} for c in changes
    )
    order = next(c for c in changes if c["message"] == "com.ex.Order")
    assert order["code"] == "XRG554"
    assert (
        order["pointer"]
        == "/messagegroups/com.ex.shop/messages/com.ex.Order/dataschema/properties/note/type"
    )
    assert order["kind"] == "compatible" and order["modes"] == ["forward", "full"]
    code, out, _ = run(["old.json", "new.json", "--json", "--mode", "full"], capsys, case)
    assert code == 1
    assert {c["kind"] for c in json.loads(out)} == {"breaking"}


def test_json_for_removed_message_and_api_change(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["old.json", "new.json", "--json"], capsys, HERE / "message-removed")
    assert code == 1
    by_code = {c["code"]: c for c in json.loads(out)}
    assert by_code["XRG500"]["modes"] == ["backward", "full"]
    assert by_code["XRG591"]["kind"] == "api" and by_code["XRG591"]["modes"] == []
    assert by_code["XRG591"]["api"] is True and by_code["XRG500"]["kind"] == "breaking"
    code, out, _ = run(
        ["old.json", "new.json", "--json", "--api", "--mode", "forward"],
        capsys,
        HERE / "message-removed",
    )
    assert code == 1  # only the API change breaks in forward mode, and --api makes it an error
    kinds = {c["code"]: c["kind"] for c in json.loads(out)}
    assert kinds == {"XRG500": "compatible", "XRG591": "breaking"}


def test_summary_counts_wire_api_and_compatible_changes_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A removed producer method (XRG591) and constructor argument (XRG592) break code that
    imports the package: the summary counts them as generated-API changes, never as compatible."""
    code, _, err = run(["old.json", "new.json"], capsys, HERE / "api-placeholder-renamed")
    assert code == 0
    assert err.splitlines()[-1] == (
        "xrgen diff: compatible on the wire, generated API changed (0 breaking wire changes,"
        " 5 generated-API changes, 4 compatible changes; mode backward; API changes are warnings)"
    )
    code, _, err = run(["old.json", "new.json", "--api"], capsys, HERE / "api-placeholder-renamed")
    assert code == 1
    assert err.splitlines()[-1] == (
        "xrgen diff: NOT compatible (0 breaking wire changes, 5 generated-API changes,"
        " 4 compatible changes; mode backward; --api: API changes are errors)"
    )
    code, _, err = run(["old.json", "new.json", "--mode", "forward"], capsys, HERE / "message-removed")
    assert code == 0
    assert err.splitlines()[-1] == (
        "xrgen diff: compatible on the wire, generated API changed (0 breaking wire changes,"
        " 1 generated-API change, 1 compatible change; mode forward; API changes are warnings)"
    )
    code, _, err = run(["old.json", "new.json"], capsys, HERE / "message-removed")
    assert code == 1
    assert err.splitlines()[-1] == (
        "xrgen diff: NOT compatible (1 breaking wire change, 1 generated-API change,"
        " 0 compatible changes; mode backward; API changes are warnings)"
    )
    code, _, err = run(["old.json", "new.json"], capsys, HERE / "descriptions-only")
    assert (code, err.splitlines()[-1]) == (
        0,
        "xrgen diff: compatible (0 breaking wire changes, 0 generated-API changes,"
        " 0 compatible changes; mode backward)",
    )


def test_usage_and_input_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    case = HERE / "descriptions-only"
    assert run(["old.json"], capsys, case)[0] == 2
    code, _, err = run(["old.json", "missing.json"], capsys, case)
    assert code == 2 and "XRG100" in err
    (tmp_path / "bad.json").write_text("{not json")
    code, _, err = run([str(case / "old.json"), str(tmp_path / "bad.json")], capsys)
    assert code == 2 and "XRG101" in err
    broken = json.loads((case / "old.json").read_text())
    broken["messagegroups"]["com.ex.shop"]["messages"]["com.ex.Ping"]["envelopemetadata"]["type"][
        "required"
    ] = False
    (tmp_path / "invalid.json").write_text(json.dumps(broken))
    code, out, err = run([str(case / "old.json"), str(tmp_path / "invalid.json")], capsys)
    assert code == 2 and "XRG130" in err and out == ""
    with pytest.raises(SystemExit) as e:
        cli.main(["diff", "a", "b", "--mode", "sideways"])
    assert e.value.code == 2
    assert run(["--versions", "--against", "HEAD", "x"], capsys)[0] == 2


# --------------------------------------------------------------------------- --versions


def _versions_catalog(
    compat: str, versions: dict[str, tuple[str | None, list[dict[str, Any]]]]
) -> dict[str, Any]:
    return {
        "specversion": "1.0-rc2",
        "schemagroups": {
            "g": {
                "schemas": {
                    "s": {
                        "meta": {"compatibility": compat},
                        "format": "Avro/1.11.0",
                        "versions": {
                            vid: {
                                "versionid": vid,
                                **({"ancestorid": anc} if anc else {}),
                                "schema": {"type": "record", "name": "S", "fields": fields},
                            }
                            for vid, (anc, fields) in versions.items()
                        },
                    }
                }
            }
        },
    }


A = {"name": "a", "type": "int"}
B_DEFAULT = {"name": "b", "type": "string", "default": ""}
C = {"name": "c", "type": "int"}


@pytest.mark.parametrize(
    ("compat", "versions", "codes", "exit_code"),
    [
        # v2 adds b with a default, v3 removes it again: backward holds between neighbours ...
        (
            "backward",
            {"1": (None, [A]), "2": ("1", [A, B_DEFAULT]), "3": ("2", [A])},
            {"XRG565", "XRG566"},
            0,
        ),
        # ... and transitively (v3 vs v1: nothing changed)
        (
            "backward_transitive",
            {"1": (None, [A]), "2": ("1", [A, B_DEFAULT]), "3": ("2", [A])},
            {"XRG565", "XRG566"},
            0,
        ),
        # c added without a default in v2: backward breaks at v2
        ("backward", {"1": (None, [A]), "2": ("1", [A, C])}, {"XRG565"}, 1),
        # forward: OLD readers of v1 read v2 data fine (c is skipped) ...
        ("forward", {"1": (None, [A]), "2": ("1", [A, C])}, {"XRG565"}, 0),
        # ... but c removed again in v3 without a default breaks forward v2 -> v3 only
        (
            "forward",
            {"1": (None, [A]), "2": ("1", [A, C]), "3": ("2", [A])},
            {"XRG565", "XRG566"},
            1,
        ),
        # ancestry, not the order of the map: v3 descends from v1 (the branch v2 is separate)
        ("full", {"1": (None, [A]), "3": ("1", [A, B_DEFAULT]), "2": ("1", [A])}, {"XRG565"}, 0),
        # an ancestor that does not exist
        ("backward", {"1": (None, [A]), "2": ("9", [A])}, {"XRG596"}, 1),
    ],
)
def test_versions_along_ancestor(
    compat: str,
    versions: dict[str, tuple[str | None, list[dict[str, Any]]]],
    codes: set[str],
    exit_code: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(_versions_catalog(compat, versions)))
    code, out, _ = run(["--versions", str(path), "--json"], capsys)
    assert {c["code"] for c in json.loads(out)} == codes
    assert code == exit_code


def test_versions_transitive_checks_every_ancestor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # v2 adds b with a default; v3 drops the default. v3 reads v2 data (which has b) fine, but
    # not v1 data (which lacks b): only the transitive check compares v3 with v1
    b_plain = {"name": "b", "type": "string"}
    versions = {"1": (None, [A]), "2": ("1", [A, B_DEFAULT]), "3": ("2", [A, b_plain])}
    for compat, expected in (("backward", 0), ("backward_transitive", 1)):
        path = tmp_path / f"{compat}.json"
        path.write_text(json.dumps(_versions_catalog(compat, versions)))
        code, out, _ = run(["--versions", str(path)], capsys)
        assert code == expected, out
    assert "version '3' (ancestor '1'): field 'b' added without a default" in out
    # --mode overrides the declared mode, _transitive included
    code, out, _ = run(
        ["--versions", str(tmp_path / "backward.json"), "--mode", "backward_transitive"], capsys
    )
    assert code == 1 and "(ancestor '1')" in out


def test_versions_without_declared_compatibility_are_not_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _versions_catalog("backward", {"1": (None, [A]), "2": ("1", [A, C])})
    del doc["schemagroups"]["g"]["schemas"]["s"]["meta"]
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(doc))
    assert run(["--versions", str(path)], capsys)[:2] == (0, "")
    code, out, _ = run(["--versions", str(path), "--mode", "backward"], capsys)
    assert code == 1 and "XRG565" in out


# --------------------------------------------------------------------------- --against


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    return repo


def _split(folder: Path, doc: dict[str, Any]) -> None:
    """Write ``doc`` as a split-file folder: index.json per group and per message."""
    groups = doc["messagegroups"]
    root = {k: v for k, v in doc.items() if k not in ("messagegroups", "schemagroups", "endpoints")}
    root["messagegroups"] = {
        gid: {k: v for k, v in g.items() if k != "messages"} for gid, g in groups.items()
    }
    root["schemagroups"] = doc.get("schemagroups", {})
    root["endpoints"] = doc.get("endpoints", {})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.json").write_text(json.dumps(root))
    for gid, g in groups.items():
        for mid, m in g["messages"].items():
            p = folder / "messagegroups" / gid / "messages" / mid
            p.mkdir(parents=True, exist_ok=True)
            (p / "index.json").write_text(json.dumps(m))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_against_a_revision_file_and_split_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = _repo(tmp_path)
    old = json.loads((HERE / "kafka-topic-changed" / "old.json").read_text())
    new = json.loads((HERE / "kafka-topic-changed" / "new.json").read_text())
    (repo / "catalogs").mkdir()
    (repo / "catalogs" / "shop.json").write_text(json.dumps(old))
    _split(repo / "split", old)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "catalog")
    assert run(["--against", "HEAD", "catalogs/shop.json"], capsys, repo)[0] == 0
    assert run(["--against", "HEAD", "split"], capsys, repo)[0] == 0

    (repo / "catalogs" / "shop.json").write_text(json.dumps(new))
    shutil.rmtree(repo / "split")
    _split(repo / "split", new)
    code, out, _ = run(["--against", "HEAD", "catalogs/shop.json"], capsys, repo)
    assert code == 1 and "XRG533" in out and "'orders' to 'orders.v2'" in out
    assert out.startswith(
        "catalogs/shop.json#/messagegroups/com.ex.shop/messages/com.ex.Order/protocoloptions/topic"
    )
    code, out, _ = run(["--against", "HEAD", "split"], capsys, repo)
    assert code == 1 and "'orders' to 'orders.v2'" in out
    # from a subfolder, and with [tool.xrgen] catalogs instead of an argument
    (repo / "pyproject.toml").write_text('[tool.xrgen]\ncatalogs = ["catalogs/shop.json"]\n')
    assert run(["--against", "HEAD"], capsys, repo)[0] == 1
    assert run(["--against", "HEAD", "shop.json"], capsys, repo / "catalogs")[0] == 1
    # a catalog that did not exist at REV has nothing to stay compatible with
    (repo / "catalogs" / "more.json").write_text(json.dumps(new))
    code, out, _ = run(["--against", "HEAD", "catalogs/more.json"], capsys, repo)
    assert code == 0 and "XRG501" in out
    code, _, err = run(["--against", "no-such-rev", "catalogs/shop.json"], capsys, repo)
    assert code == 2 and "unknown revision" in err
    # errors in the committed catalog name it as REV:path
    broken = json.loads(json.dumps(old))
    broken["messagegroups"]["com.ex.shop"]["messages"]["com.ex.Ping"]["envelopemetadata"]["type"][
        "required"
    ] = False
    (repo / "catalogs" / "shop.json").write_text(json.dumps(broken))
    _git(repo, "commit", "-qam", "broken")
    (repo / "catalogs" / "shop.json").write_text(json.dumps(new))
    code, _, err = run(["--against", "HEAD", "catalogs/shop.json"], capsys, repo)
    assert code == 2 and err.startswith(
        "HEAD:catalogs/shop.json#/messagegroups/com.ex.shop/messages/com.ex.Ping"
    ), err


def test_every_diff_code_is_documented() -> None:
    import re

    root = HERE.parents[1]
    used = set()
    for path in (root / "generator" / "diff").glob("*.py"):
        used |= set(re.findall(r'"(XRG5\d\d)"', path.read_text()))
    table = (root / "docs" / "diagnostics.md").read_text()
    rules = (root / "docs" / "diff.md").read_text()
    assert used and all(f"| {code} |" in table for code in used), used
    assert all(code in rules for code in used), [c for c in used if c not in rules]
