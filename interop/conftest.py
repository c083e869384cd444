"""Fixtures of the interop scenarios (the builds, the trace IDs) and their report: one
line per scenario, PASS, FAIL or SKIP with its reason, after pytest's own summary."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from interop import build
from interop.clients import trace_ids, write_ids

_LINES: dict[str, tuple[str, str]] = {}
_FIGURES: list[str] = []


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    """A SIGTERM (a CI job's timeout, ``kill``) interrupts the run as Ctrl-C does, so the
    scenarios' ``finally`` blocks stop what they started; the processes a run that is
    killed outright leaves are killed by their parent-death signal (``engines.lifeline``)."""
    signal.signal(signal.SIGTERM, _interrupted)


@pytest.fixture
def figures() -> Callable[[str], None]:
    """``figures(line)``: a measured figure, printed after the scenario lines."""
    return _FIGURES.append


@pytest.fixture(scope="session")
def built() -> Callable[[str], Path]:
    """``built(component)``: its build directory; the scenario is skipped when the
    toolchain is missing, and fails when the build does."""

    def get(name: str) -> Path:
        try:
            return build.ensure(name)
        except build.MissingError as exc:
            pytest.skip(f"{name} not built: {exc}")
        except build.BuildFailedError as exc:
            pytest.fail(f"{name} build failed: {exc}")

    return get


@pytest.fixture(scope="session")
def ids() -> list[int]:
    """The 10,000 trace IDs every decision comparison runs on."""
    return trace_ids()


@pytest.fixture(scope="session")
def ids_file(tmp_path_factory: pytest.TempPathFactory, ids: list[int]) -> Path:
    return write_ids(tmp_path_factory.mktemp("ids") / "trace-ids.txt", ids)


def _reason(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    if report.failed:
        text = getattr(report, "longreprtext", "") or str(report.longrepr)
        errors = [line for line in text.splitlines() if line.startswith("E ")]
        return (errors[0][1:].strip() if errors else text.splitlines()[-1])[:300]
    return ""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    name = report.nodeid.removeprefix("interop/")
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}[report.outcome]
        _LINES[name] = (outcome, _reason(report))
    elif report.when == "teardown" and report.failed:
        _LINES[name] = ("FAIL", "teardown: " + _reason(report))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    terminalreporter.section("interop scenarios")
    for name, (outcome, reason) in _LINES.items():
        terminalreporter.write_line(f"{outcome}  {name}" + (f": {reason}" if reason else ""))
    if _FIGURES:
        terminalreporter.section("interop figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)
