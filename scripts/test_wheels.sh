#!/usr/bin/env bash
# What users install: build the wheels and sdists of xrgen and xrgen-runtime, install the wheels
# into a fresh virtual environment (not editable, no client library, no pyspark), and run the
# installed-package checks and the generated-package suites against them there. The sdists are
# checked by building wheels from them and comparing the files they hold. Then the README's
# install from a clone, `pip install ./runtime .` at the root, runs as written in another fresh
# virtual environment, and the installed-package checks run there too.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
dist=$(mktemp -d)
venv=$(mktemp -d)/venv
clone_venv=$(mktemp -d)/venv
# setuptools builds in the tree (build/) and never removes a file there, so a module that became
# a package would ride along into the wheel: no build folder before the run, none after it
rm -rf build runtime/build
trap 'rm -rf "$dist" "$(dirname "$venv")" "$(dirname "$clone_venv")" build runtime/build' EXIT
# test tools only: no client library, no pyspark (what a user of the codecs and dispatchers has)
TEST_TOOLS=(pytest syrupy hypothesis mypy)

# --no-isolation: the build backend (setuptools, wheel) comes from the dev venv, no download
"$PY" -m build --no-isolation --sdist --wheel --outdir "$dist" . >/dev/null
"$PY" -m build --no-isolation --sdist --wheel --outdir "$dist" runtime >/dev/null
ls "$dist"
# the runtime's wheel holds the compiled modules (mypyc); built where no C compiler works, it
# holds the plain modules only, and the build still succeeds
# (the listings are read whole: grep -q closing a pipe would fail the script under pipefail)
listing=$(unzip -Z1 "$dist"/xrgen_runtime-*.whl)
grep -q '^xrgen_runtime/_dispatch\..*\.so$' <<<"$listing"
plain=$(mktemp -d)
rm -rf runtime/build
CC=/bin/false "$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$plain" ./runtime 2>/dev/null
listing=$(unzip -Z1 "$plain"/xrgen_runtime-*.whl)
if grep -q '\.so$' <<<"$listing"; then
    echo "test-wheels: a build without a C compiler holds extension modules" >&2
    exit 1
fi
grep -q '^xrgen_runtime/_dispatch\.py$' <<<"$listing"
echo "test-wheels: runtime wheel compiled; without a C compiler plain"
rm -rf "$plain" runtime/build

# a wheel built from each sdist holds the same files as the wheel built from the tree
for sdist in "$dist"/*.tar.gz; do
    rebuilt=$(mktemp -d)
    "$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$rebuilt" "$sdist"
    name=$(basename "$rebuilt"/*.whl)
    diff <(unzip -Z1 "$dist/$name" | grep -v '\.dist-info/RECORD$' | sort) \
         <(unzip -Z1 "$rebuilt/$name" | grep -v '\.dist-info/RECORD$' | sort)
    rm -rf "$rebuilt"
done

"$PY" -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "$dist"/xrgen_runtime-*.whl "$dist"/xrgen-*.whl
"$venv/bin/pip" install -q "${TEST_TOOLS[@]}"
echo "test-wheels: installed $("$venv/bin/pip" list 2>/dev/null | grep -i '^xrgen' | tr -s ' ' | paste -sd ' ')"
XRGEN_WHEEL_TEST=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/wheels
"$venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/runtime/test_generated_acme.py tests/runtime/test_runtime_package.py \
    tests/runtime/test_dispatch.py tests/runtime/test_codec_roundtrip.py

# the README's install from a clone (README.md "Install"), as written
"$PY" -m venv "$clone_venv"
"$clone_venv/bin/pip" install -q --upgrade pip
"$clone_venv/bin/pip" install -q ./runtime .
"$clone_venv/bin/pip" install -q "${TEST_TOOLS[@]}"
echo "test-wheels: pip install ./runtime . installed $("$clone_venv/bin/pip" list 2>/dev/null | grep -i '^xrgen' | tr -s ' ' | paste -sd ' ')"
XRGEN_WHEEL_TEST=1 "$clone_venv/bin/python" -m pytest -q -p no:cacheprovider tests/wheels
