"""Shared fixtures: the test data in tests/data, compiled kernels, a real TracerProvider."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Sampler

import dsampler

# Timing never decides a test: no example fails for taking long on a busy machine. CI
# (.ci/run) draws the same examples for the same code, so what it runs at a stop is what
# ran before it; a developer's run draws new ones each time, to find what CI will not.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

REPO = Path(__file__).resolve().parents[1]
#: The dsampler under test: the clone's dsampler/ under make test (an editable install),
#: the one installed in a fresh virtualenv in the installed-wheel stage (.ci/installed.py),
#: which runs a copy of tests/ and benchmarks/ beside no dsampler/ of its own.
PACKAGE = Path(dsampler.__file__).resolve().parent
# Everything the suite reads lives in the repository, so a clone passes on its own;
# tests/data/README.md says where each file comes from.
DATA = REPO / "tests" / "data"


def data_json(relative: str) -> Any:
    """Load a JSON file from tests/data; a missing file fails the test, never skips it."""
    path = DATA / relative
    if not path.is_file():
        pytest.fail(f"test data {path} is missing (see tests/data/README.md)")
    return json.loads(path.read_text(encoding="utf-8"))


def pytest_configure(config: pytest.Config) -> None:
    """The package under test is the one the installed-wheel stage installed, where it
    says which (``DSAMPLER_TESTED_PACKAGE``), never a source tree on the path.

    Under pytest-xdist (``-n``), the controller loads the kernels once before its workers
    start: on a cold cache it compiles them and writes numba's cache, which every worker
    then reads, instead of each worker compiling the same kernels at once."""
    installed = os.environ.get("DSAMPLER_TESTED_PACKAGE")
    if installed and Path(installed).resolve() != PACKAGE:
        raise pytest.UsageError(f"the tests imported dsampler from {PACKAGE}, not from {installed}")
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        dsampler.wait_for_jit(120)


@pytest.fixture(scope="session", autouse=True)
def _kernels_loaded_before_tests() -> None:
    """Let the background import of numpy and numba finish before any test runs.

    Code that peeks into ``sys.modules`` (hypothesis does, for numpy) can otherwise see
    a half-initialised numpy from the loader thread. The loading phase itself is tested
    in subprocesses (tests/integration/test_jit_loading.py).
    """
    dsampler.wait_for_jit(120)


@pytest.fixture(scope="session")
def jit() -> None:
    """Compiled numba kernels serving (tests of the jitted path need them; they skip
    where numba, the ``jit`` extra, is not installed)."""
    pytest.importorskip("numba", reason="the compiled kernels are the jit extra: pip install 'dsampler[jit]'")
    assert dsampler.wait_for_jit(120), f"numba kernels unavailable: {dsampler.jit_status()}"


class Traced:
    """A real TracerProvider with an in-memory exporter, for end-to-end decisions."""

    def __init__(self, sampler: Sampler) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(sampler=sampler)
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("dsampler-tests")

    def finished(self) -> Any:
        return self.exporter.get_finished_spans()


@pytest.fixture
def traced() -> Iterator[Callable[[Sampler], Traced]]:
    """Factory of real tracer providers; shut down after the test."""
    made: list[Traced] = []

    def make(sampler: Sampler) -> Traced:
        t = Traced(sampler)
        made.append(t)
        return t

    yield make
    for t in made:
        t.provider.shutdown()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``long`` run only when ``-m`` names them (``make test-budget``)."""
    if "long" in (config.option.markexpr or ""):
        return
    skip = pytest.mark.skip(reason="a minute-long run: make test-budget")
    for item in items:
        if item.get_closest_marker("long") is not None:
            item.add_marker(skip)
