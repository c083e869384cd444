"""examples/fleet runs: dsampler serve and three workers; the edit reaches every worker's
output within the bound run.py states (one poll, the server's reload, one burst, 1 s)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def test_the_fleet_follows_an_edit_of_the_strategies_file() -> None:
    """run.py exits 0 with OK; each worker printed its strategy before and after the edit."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "fleet" / "run.py"), "--seconds", "2.5"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout.splitlines()
    assert out[-1] == "OK: every worker showed its edited strategy within 2.7 s of the edit, and kept it"
    edit = next(i for i, line in enumerate(out) if line.startswith("--- editing"))
    for service, old, new in [
        ("checkout", "per-operation default 0.2, POST /pay 1", "per-operation default 0.05, POST /pay 0.5"),
        ("search", "ratelimiting 5/s", "ratelimiting 50/s"),
        ("ledger", "probabilistic 0.1", "probabilistic 0.5"),
    ]:
        lines = [line for line in out if line.startswith(f"[{service:8}]")]
        assert any(old in line for line in out[:edit] if line in lines)
        after = [line for line in out[edit:] if line in lines]
        first = next(i for i, line in enumerate(after) if new in line)
        assert all(new in line for line in after[first:])  # and nothing else once followed
        (followed,) = [line for line in out if line.startswith(f"{service}: followed the edit after ")]
        assert float(followed.split(" after ")[1].split(" s")[0]) <= 2.7
