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
    main, cpu = (_rows(table) for table in out.split("\n\n")[1:3])
    assert [r[0] for r in main] == ["OTel parentbased_traceidratio", "dsampler (defaults)"]
    assert all(r[-1] == "0" for r in main), out  # no request failed
    assert "MB of OTLP exported" in out
    assert [r[0] for r in cpu] == [r[0] for r in main]  # CPU per request, both loads
    assert all(float(cell.split()[0]) > 0 for r in cpu for cell in r[1:]), out


def _rows(table: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows."""
    lines = [ln for ln in table.splitlines() if ln.startswith("| ") and "variant" not in ln]
    return [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]


@pytest.mark.skipif(
    shutil.which("gunicorn") is None and not (Path(sys.executable).parent / "gunicorn").exists(),
    reason="gunicorn is in the dev extra",
)
def test_paired_service_benchmark_runs_and_prints_ratios() -> None:
    """benchmarks/service_paired.py on one pair of 1 s loads: a row of six positive
    ratios (req/s, CPU per request and p99, with a sampled parent and for roots)."""
    out = _run(
        "benchmarks/service_paired.py", "--pairs", "1", "--seconds", "1", "--variants", "dsampler (defaults)"
    )
    (row,) = _rows(out)
    assert row[0] == "dsampler (defaults)"
    assert len(row) == 7, out
    assert all(float(cell.split()[0]) > 0 for cell in row[1:]), out


@pytest.mark.parametrize("variant", ["OTel parentbased_traceidratio", "dsampler hash=xxh3 (lean)"])
def test_service_callgrind_workload_serves_with_the_variants_sampler(variant: str, tmp_path: Path) -> None:
    """The workload benchmarks/service_callgrind.py counts (run here without valgrind):
    the instrumented app answers 200 to every request (it asserts so), under the sampler
    its variant names."""
    sys.path.insert(0, str(HERE))
    try:
        import service_callgrind
    finally:
        sys.path.remove(str(HERE))
    script = tmp_path / "workload.py"
    script.write_text(service_callgrind.WORKLOAD)
    for parent in (service_callgrind.TRACEPARENT, ""):
        done = subprocess.run(
            [sys.executable, str(script), "3", parent],
            env=service_callgrind._env(variant),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        described = done.stdout.strip().splitlines()[-1]
        assert ("DSampler" in described) == ("dsampler" in variant), described


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


@pytest.mark.parametrize("which", ["plain", "composite"])
def test_consistent_callgrind_workload_decides_as_it_says(which: str, tmp_path: Path) -> None:
    """The workload benchmarks/consistent_callgrind.py counts (run here without valgrind):
    every case runs, and its own checks hold (sampled or dropped as the case says, th on
    the composite's sampled results only, the span through the SDK sampled with that th)."""
    sys.path.insert(0, str(HERE))
    try:
        import consistent_callgrind
    finally:
        sys.path.remove(str(HERE))
    script = tmp_path / "workload.py"
    script.write_text(consistent_callgrind.WORKLOAD)
    for case, n in ((case, n) for case in consistent_callgrind.CASES for n in ("0", "50")):
        done = subprocess.run(
            [sys.executable, str(script), case, which, n],
            env=consistent_callgrind._ENV,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (case, n, done.stderr)


def test_reload_benchmark_runs_and_prints_both_sides() -> None:
    """benchmarks/reload.py on one round of 2,100-entry YAML files: a row per file with
    both sides and their ratio; 2,100 operations over max_operations are refused in one
    line (with rules, 1,890 operations are not over it)."""
    out = _run("benchmarks/reload.py", "--entries", "2100", "--rounds", "1", "--formats", "yaml")
    ratios, stages = ([r for r in _rows(table) if r[0] != "file"] for table in out.split("\n\n")[1:3])
    assert [r[3] for r in ratios] == ["applied", "refused", "applied", "applied"], out
    assert all(float(cell.split()[0]) > 0 for r in ratios for cell in r[4:7]), out
    assert len(stages) == 4
    assert "operations: expected at most max_operations (2000) entries, got 2100 (line 2)" in out


def test_batch_fnv_benchmark_checks_and_prints_its_table() -> None:
    """benchmarks/batch_fnv.py on a tiny load: a row per configuration (this CPU, and
    without AVX-512 where the CPU has it), each bit-identical to the plain loop, naming
    the kernel decide_batch chose."""
    pytest.importorskip("numba", reason="it times numba's kernels: the jit extra")
    out = _run("benchmarks/batch_fnv.py", "--ids", "20000", "--rounds", "2", "--check", "5000")
    rows = [r for r in _rows(out) if r[0] in ("this CPU", "without AVX-512")]
    assert rows, out
    assert rows[0][0] == "this CPU"
    forms = ("plain", "blocks, wide multiply", "blocks, split multiply")
    assert all(r[-1].endswith("identical") and r[1] in forms for r in rows), out


@pytest.mark.parametrize("metrics", ["off", "on"])
def test_request_path_callgrind_workload_counts_as_its_mode_says(metrics: str, tmp_path: Path) -> None:
    """The workload benchmarks/request_path_callgrind.py counts (run here without
    valgrind): every case runs, its engine counts decisions exactly when an SDK
    MeterProvider was set before it (the workload's own check), and the sampled/dropped
    cases found 1,000 IDs of their outcome."""
    sys.path.insert(0, str(HERE))
    try:
        import request_path_callgrind
    finally:
        sys.path.remove(str(HERE))
    script = tmp_path / "workload.py"
    script.write_text(request_path_callgrind.WORKLOAD + "\nassert len(ids) == 1000, len(ids)\n")
    env = {**request_path_callgrind._ENV, "PYTHONPATH": str(HERE.parent)}
    for case in request_path_callgrind.CASES:
        done = subprocess.run(
            [sys.executable, str(script), case, "1000", metrics],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (case, done.stderr)
