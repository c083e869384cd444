"""The README's first command runs the quick start; it must keep working."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def test_quickstart_runs_and_reports_rates_within_4_sigma() -> None:
    """examples/quickstart.py exits 0, prints a row per rate and ends with OK."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "OK"
    assert sum(line.split()[0] in {"0.01", "0.1", "0.5"} for line in lines if line.strip()) == 3


def test_otel_app_example_updates_reloads_and_rolls_back() -> None:
    """examples/otel_app.py runs its update/reload/rollback story and ends with OK."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "otel_app.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "OK"
    assert "GET /healthz" not in proc.stdout  # dropped by its rule in every version
    assert proc.stdout.count("version ") >= 4
