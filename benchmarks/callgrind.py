"""Counting instructions with valgrind's callgrind, for the scripts whose figure wall
time on a shared machine cannot resolve (``*_callgrind.py``, ``remote_instructions.py``).

Instruction counts are repeatable for the same binary, inputs and environment, whatever
else the machine is doing: each script runs its workload twice (0 and N operations)
and divides the difference by N, so start-up cancels out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["instructions"]


def instructions(args: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Instructions ``python args...`` executes under callgrind.

    Raises:
        SystemExit: valgrind is not installed.
        RuntimeError: callgrind reported no total.
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind not found (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in callgrind's output:\n{proc.stderr[-2000:]}")
    return int(found.group(1))
