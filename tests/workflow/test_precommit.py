"""The pre-commit hooks, run by the real pre-commit framework on a temporary git repository.

pre-commit installs xrgen from this checkout's committed HEAD into its own environment
(from PyPI), so this test is slow; it runs the hooks exactly as a user's repository would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _hook(repo: Path, hook: str, home: Path) -> subprocess.CompletedProcess[str]:
    # the hooks generate and compare: they never dispatch, so the runtime they install is built
    # plain (its compiled build, which users' hook environments get once, takes a minute)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "XRGEN_CACHE_DIR": str(home / "xrgen"),
        "XRGEN_RUNTIME_PURE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, "--all-files", "--verbose"],
        cwd=repo, capture_output=True, text=True, env=env, timeout=900,
    )


def test_hooks_regenerate_and_check(tmp_path: Path) -> None:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("pre-commit is not installed (it is in the test extras)")
        pytest.skip("pre-commit is not installed: pip install -e '.[test]'")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("try-repo needs a committed HEAD of this checkout")
    repo = tmp_path / "user-repo"
    (repo / "catalogs").mkdir(parents=True)
    shutil.copy(ROOT / "catalogs" / "acme" / "catalog.json", repo / "catalogs" / "acme.json")
    (repo / "pyproject.toml").write_text(
        '[tool.xrgen]\ncatalogs = ["catalogs/acme.json"]\nout = "src"\npackage = "acme"\nspark = false\n'
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    home = tmp_path / "pc-home"

    first = _hook(repo, "xrgen", home)
    assert first.returncode == 0, first.stdout + first.stderr  # new files: pre-commit tracks none yet
    assert (repo / "src" / "acme" / "producer.py").is_file()
    _git(repo, "add", "-A")
    assert _hook(repo, "xrgen", home).returncode == 0  # up to date: nothing changes
    assert _hook(repo, "xrgen-check", home).returncode == 0

    catalog = repo / "catalogs" / "acme.json"
    catalog.write_text(catalog.read_text().replace("A sensor reading.", "A sensor reading, revised."))
    _git(repo, "add", "-A")
    check = _hook(repo, "xrgen-check", home)
    assert check.returncode == 1  # stale package: the check hook fails with a diff
    assert '+        """A sensor reading, revised."""' in check.stdout
    assert "A sensor reading, revised." not in (repo / "src" / "acme" / "producer.py").read_text()
    regen = _hook(repo, "xrgen", home)
    assert regen.returncode == 1  # the hook rewrote tracked files: pre-commit blocks the commit
    assert "files were modified by this hook" in regen.stdout
    assert "A sensor reading, revised." in (repo / "src" / "acme" / "producer.py").read_text()


def test_compat_hook_blocks_breaking_catalog_changes(tmp_path: Path) -> None:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("pre-commit is not installed (it is in the test extras)")
        pytest.skip("pre-commit is not installed: pip install -e '.[test]'")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("try-repo needs a committed HEAD of this checkout")
    repo = tmp_path / "user-repo"
    (repo / "catalogs").mkdir(parents=True)
    catalog = repo / "catalogs" / "acme.json"
    shutil.copy(ROOT / "catalogs" / "acme" / "catalog.json", catalog)
    (repo / "pyproject.toml").write_text('[tool.xrgen]\ncatalogs = ["catalogs/acme.json"]\n')
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "catalog")
    home = tmp_path / "pc-home"

    text = catalog.read_text()
    catalog.write_text(text.replace("A sensor reading.", "A sensor reading, revised."))
    _git(repo, "add", "-A")
    ok = _hook(repo, "xrgen-compat", home)
    assert ok.returncode == 0, ok.stdout + ok.stderr  # a description never breaks

    catalog.write_text(text.replace('"topic": "acme.readings"', '"topic": "acme.readings.v2"'))
    _git(repo, "add", "-A")
    broken = _hook(repo, "xrgen-compat", home)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "error XRG533: com.acme.Reading: protocol option 'topic' changed" in broken.stdout
