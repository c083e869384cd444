"""The README's first command runs the quick start; it must keep working."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def test_quickstart_runs_and_reports_rates_within_4_sigma() -> None:
    """examples/quickstart.py exits 0, prints a row per rate, a sampled decision and
    drops for fixed trace IDs, and ends with OK."""
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
    probes = [line.split()[-1] for line in lines if line.strip().startswith("trace ")]
    assert "RECORD_AND_SAMPLE" in probes  # the fixed trace IDs show a sampled decision
    assert "DROP" in probes  # and drops


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


def test_jaeger_migration_is_one_line_and_keeps_the_same_traces() -> None:
    """before.py and after.py differ in the sampler import only, and print the same
    probabilistic sample (same trace IDs, same tags)."""
    folder = REPO / "examples" / "jaeger_migration"
    before = (folder / "before.py").read_text().splitlines()
    after = (folder / "after.py").read_text().splitlines()
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [
        (
            "from jaeger_client.sampler import ProbabilisticSampler, RateLimitingSampler",
            "from dsampler.jaeger import ProbabilisticSampler, RateLimitingSampler",
        )
    ]
    outputs = []
    for name in ("before.py", "after.py"):
        proc = subprocess.run(
            [sys.executable, str(folder / name)], capture_output=True, text=True, timeout=120, check=False
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout.splitlines())
    assert outputs[0][0] == outputs[1][0]
    assert outputs[0][0].startswith("ProbabilisticSampler(0.1): kept ")
    assert outputs[1][1].startswith("RateLimitingSampler(2): kept ")
