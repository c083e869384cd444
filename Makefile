# Everything runs from a fresh machine with only python3: each target makes .venv itself.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo quickstart test test-budget test-fast test-installed lint docs bench interop dist clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

## The toolchain's pins (constraints.txt) apply to the dev install only: no extra pins them.
## The version is in the editable install's metadata: a new one reinstalls.
$(VENV)/.installed-dev: pyproject.toml constraints.txt dsampler/_version.py | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev,jit]'
	touch $@

$(VENV)/.installed-dist: | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check 'build>=1.2' 'twine>=6'
	touch $@

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[yaml]'
	touch $@

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[yaml,plot,jit]'
	touch $@

## The README's first command: install (with the plot and jit extras: the demo's workload draws
## with numpy) and run the demo, writing demo.png
## (a 45 s run: 49 s once installed, 84 s from a fresh clone with the install, on a shared 2-core machine).
demo: $(VENV)/.installed-demo
	$(BIN)/dsampler demo --plot demo.png

## Install (with the yaml extra the README's examples use) and run the quick start.
quickstart: $(VENV)/.installed
	$(BIN)/python examples/quickstart.py

## pytest-xdist: one worker per core; --dist loadfile runs each test file on one worker, in
## order (tests/integration/test_docs.py's shell blocks share one virtualenv, made once; a
## module's fixtures are made once). Not loadgroup: pytest-xdist 3.8 marks a group by
## rewriting Item._nodeid, which pytest 9.2 no longer reads, so groups were split across
## workers. PYTEST_PARALLEL= runs everything in one process.
PYTEST_PARALLEL ?= -n auto --dist loadfile

## The README's second command: install (dev and jit), lint, type-check and run the whole test suite, the
## benchmarks' smoke run (each benchmark once, untimed) included, in one pytest run.
## Bytecode is written (as Python does by default) even where PYTHONDONTWRITEBYTECODE is set:
## without it every worker and every subprocess of the suite compiles dsampler's sources again.
test: export PYTHONDONTWRITEBYTECODE :=
test: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) tests benchmarks --benchmark-disable

## The host-wide budget's minute-long runs under real gunicorn and uwsgi (make test runs
## their short versions): tests/integration/test_host_budget.py, two at a time (each run
## keeps about a third of a core busy, and its own service's budget file).
test-budget: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -n 2 --dist load -m long tests/integration/test_host_budget.py

## A developer's quick loop: the same without the tests marked slow (statistical runs,
## subprocesses, servers, the docs' commands); `make test` and CI run them all.
test-fast: export PYTHONDONTWRITEBYTECODE :=
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m "not slow" tests benchmarks --benchmark-disable

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check dsampler tests benchmarks examples interop .ci
	$(BIN)/ruff format --check dsampler tests benchmarks examples interop .ci
	$(BIN)/mypy

## The documentation site with the API reference from the docstrings, into .site/; any
## warning (a docstring that names a parameter the signature lacks, a broken link) fails.
docs: $(VENV)/.installed-dev
	$(BIN)/mkdocs build --strict --quiet

## The release files in dist/: the sdist, and the wheel built from it, which must hold the
## same files with the same bytes as a wheel built from the tree (build/wheel-from-tree);
## the sdist must hold what git tracks, the wheel's dsampler/ what git tracks there
## (.ci/check_dist.py); then twine check, what a package index would refuse.
dist: $(VENV)/.installed-dist
	rm -rf dist build/wheel-from-tree
	$(BIN)/python -m build --outdir dist .
	$(BIN)/python -m build --wheel --outdir build/wheel-from-tree .
	$(BIN)/python .ci/check_dist.py dist build/wheel-from-tree
	$(BIN)/twine check --strict dist/*

## The tests against the wheel as users install it, outside the clone: the bare wheel's
## size and dependencies, then a fresh virtualenv per CPython the wheel claims (3.10-3.13,
## from PATH or pyenv; one not found is skipped, saying so), without numba and with the jit
## extra, the whole suite once each way and the fast one elsewhere (.ci/installed.py).
## INSTALLED_FLAGS='--only 3.12' tests one of them; --keep keeps the virtualenvs.
INSTALLED_FLAGS ?=
test-installed: export PYTHONDONTWRITEBYTECODE :=
test-installed: dist
	$(BIN)/python -u .ci/installed.py dist $(INSTALLED_FLAGS)

## Against the real engines and clients (Jaeger v2, the OpenTelemetry Collector, OpenTelemetry
## Go/Java/JS, jaeger-client-go): builds them into ~/.cache/dsampler-interop (minutes the first
## time, seconds after), runs every scenario on 127.0.0.1, one line each; see interop/README.md.
interop: $(VENV)/.installed-dev
	$(BIN)/python -m interop.build
	$(BIN)/python -m pytest interop -q -p no:cacheprovider

## Benchmarks with timings (a few minutes); results table in docs/benchmarks.md.
bench: $(VENV)/.installed-dev
	$(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-columns=median,iqr,ops --benchmark-sort=name

clean:
	rm -rf $(VENV) .site .pytest_cache .mypy_cache .ruff_cache .hypothesis .benchmarks demo.png dist build
