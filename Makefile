# Everything runs from a fresh machine with only python3: each target makes .venv itself.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo quickstart test test-fast lint bench interop clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,jit]'
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

## A developer's quick loop: the same without the tests marked slow (statistical runs,
## subprocesses, servers, the docs' commands); `make test` and CI run them all.
test-fast: export PYTHONDONTWRITEBYTECODE :=
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q $(PYTEST_PARALLEL) -m "not slow" tests benchmarks --benchmark-disable

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check dsampler tests benchmarks examples interop
	$(BIN)/ruff format --check dsampler tests benchmarks examples interop
	$(BIN)/mypy

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
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis .benchmarks demo.png
