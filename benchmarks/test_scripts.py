"""Smoke tests of the by-hand benchmark scripts: each runs on a tiny load and prints its
table. The figures themselves are never asserted (they are for a quiet machine)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _run(*args: str, timeout: float = 240) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=timeout, check=False, cwd=HERE.parent
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(
    shutil.which("gunicorn") is None and not (Path(sys.executable).parent / "gunicorn").exists(),
    reason="gunicorn is in the dev extra",
)
def test_service_benchmark_runs_and_prints_its_table() -> None:
    """benchmarks/service.py --smoke: gunicorn under opentelemetry-instrument answers
    both loads without errors, and the table has a row per variant."""
    out = _run(
        "benchmarks/service.py",
        "--smoke",
        "--variants",
        "OTel parentbased_traceidratio",
        "dsampler (defaults)",
    )
    rows = [line for line in out.splitlines() if line.startswith("| ") and "variant" not in line]
    assert [r.split(" | ")[0] for r in rows] == ["| OTel parentbased_traceidratio", "| dsampler (defaults)"]
    assert all(r.rstrip().endswith("| 0 |") for r in rows), out  # no request failed
    assert "MB of OTLP exported" in out


def test_warmup_probe_runs_and_prints_its_table() -> None:
    """benchmarks/warmup.py on one short round: a row per case."""
    out = _run(
        "benchmarks/warmup.py",
        "--rounds",
        "1",
        "--threads",
        "1",
        "--window",
        "1.2",
        "--cases",
        "dsampler xxh3 (xxhash)",
        "OTel TraceIdRatioBased",
    )
    assert "| dsampler xxh3 (xxhash) | 1 |" in out
    assert "| OTel TraceIdRatioBased | 1 |" in out
