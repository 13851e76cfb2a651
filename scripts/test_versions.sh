#!/usr/bin/env bash
# The generator and the generated runtime on the newer Pythons this machine has (3.12, 3.13):
# each gets a fresh venv with the "test" extra and runs the suites that need neither Spark nor
# brokers (generator, codecs, dispatch, generated packages, error catalogs). `make test` runs
# everything on the main interpreter (3.11, the oldest supported); the mypy runs over generated
# packages need the client libraries and pyspark, so they stay there (tests named *spark*
# need pyspark and are deselected here, as are tests marked clients, which need the bindings'
# client libraries; test_asgi_serving.py imports httpx at module level).
# An interpreter that is not installed is reported and skipped: 3.11 is the supported floor.
# 3.12 runs the compiled runtime (mypyc, as `make test` does on 3.11), 3.13 the plain Python one
# (XRGEN_RUNTIME_PURE=1), so both builds are tested on every run.
set -euo pipefail
cd "$(dirname "$0")/.."

# pythonX.Y on PATH (Debian, deadsnakes, ...), else an installed pyenv version (its shims only
# run the versions made active, so they are not enough)
find_python() {
    local version=$1 candidate
    local candidates=("python$version")
    if command -v pyenv >/dev/null 2>&1; then
        candidates+=("$(pyenv root)"/versions/"$version".*/bin/python"$version")
    fi
    for candidate in "${candidates[@]}"; do
        if "$candidate" -c "import sys; assert sys.version_info[:2] == (${version/./, })" \
            >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

ran=0
for version in 3.12 3.13; do
    if ! python=$(find_python "$version"); then
        echo "test-versions: Python $version is not installed here; skipped"
        continue
    fi
    venv=".venv-$version"
    if [ "$version" = 3.13 ]; then export XRGEN_RUNTIME_PURE=1; else unset XRGEN_RUNTIME_PURE; fi
    # (re)installed when a pyproject.toml changed since, as make setup does
    if [ ! -f "$venv/.installed" ] || [ pyproject.toml -nt "$venv/.installed" ] \
        || [ runtime/pyproject.toml -nt "$venv/.installed" ] \
        || [ runtime/setup.py -nt "$venv/.installed" ]; then
        "$python" -m venv "$venv"
        "$venv/bin/pip" install -q --upgrade pip
        "$venv/bin/pip" install -q -e ./runtime --config-settings editable_mode=compat
        "$venv/bin/pip" install -q -e ".[test]"
        touch "$venv/.installed"
    fi
    echo "test-versions: Python $("$venv/bin/python" -c 'import platform, xrgen_runtime; print(platform.python_version(), "compiled" if xrgen_runtime.compiled() else "plain")')"
    # pytest-xdist workers as in make test (PYTEST_WORKERS, default one per core)
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -n "${PYTEST_WORKERS:-auto}" --dist loadgroup \
        tests/unit tests/runtime tests/e2e tests/errors tests/interop \
        --ignore=tests/runtime/test_asgi_serving.py \
        -k "not mypy_strict and not spark and not clients"
    ran=$((ran + 1))
done
echo "test-versions: $ran newer Python version(s) tested"
