"""Run the benchmark suite once and print a Markdown table of dsampler / peer ratios.

    python benchmarks/report.py                  # run (about a minute), then print the table
    python benchmarks/report.py --keep run.json  # same, keeping pytest-benchmark's JSON
    python benchmarks/report.py --json run.json  # print the table of an earlier --benchmark-json run
    python benchmarks/report.py -- -k root       # anything after -- goes to pytest

Peers are timed in the same run and paired by (group, case) through the ``impl`` and
``case`` each benchmark records in ``extra_info``. A ratio below 1 means dsampler is
faster. pytest's own output goes to stderr, so stdout is only the Markdown.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PYTEST_ARGS = ["--benchmark-only", "--benchmark-min-rounds=5", "--benchmark-max-time=2", "-q"]
VERSIONS = ("numba", "numpy", "opentelemetry-sdk", "jaeger-client", "pytest-benchmark")
PEER_NAMES = {
    "root": "OTel `TraceIdRatioBased`",
    "child": "OTel `ParentBased(TraceIdRatioBased)`",
    "jaeger": "jaeger-client `ProbabilisticSampler`",
    "batch": "numpy one-pass floor",
    "import": "`import opentelemetry.sdk.trace`",
}
# DESIGN.md, "Figures to reach".
MAX_DECISION_RATIO = 0.5  # root and child should_sample, dsampler / OTel
MIN_BATCH_IDS_PER_S = 100e6
MAX_IMPORT_MS = 50.0
NOISY_IQR = 0.15  # IQR above this fraction of the median: the machine was busy, rerun


def run_suite(pytest_args: list[str], keep: Path | None = None) -> dict[str, Any]:
    """Run the suite with ``--benchmark-json`` (into ``keep`` or a temporary file) and load it."""
    with tempfile.TemporaryDirectory() as tmp:
        out = keep.resolve() if keep else Path(tmp) / "benchmarks.json"
        cmd = [sys.executable, "-m", "pytest", str(HERE), f"--benchmark-json={out}", *PYTEST_ARGS]
        subprocess.run([*cmd, *pytest_args], check=True, cwd=HERE.parent, stdout=sys.stderr)
        return dict(json.loads(out.read_text()))


def _by_case(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, dict[str, Any]]]:
    """(group, case) -> impl -> benchmark entry."""
    table: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for bench in data["benchmarks"]:
        info = bench["extra_info"]
        table.setdefault((bench["group"], info["case"]), {})[info["impl"]] = bench
    return table


def _verdict(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _ratio(ours: dict[str, Any], peer: dict[str, Any]) -> str:
    ratio = ours["stats"]["median"] / peer["stats"]["median"]
    noisy = any(b["stats"]["iqr"] > NOISY_IQR * b["stats"]["median"] for b in (ours, peer))
    return f"{ratio:.2f}" + (" (noisy)" if noisy else "")


def _decision_row(group: str, case: str, ours: dict[str, Any], peer: dict[str, Any]) -> str:
    ours_ns, peer_ns = ours["stats"]["median"] * 1e9, peer["stats"]["median"] * 1e9
    met = ours_ns <= MAX_DECISION_RATIO * peer_ns
    figure = "" if group == "jaeger" else f"<= {MAX_DECISION_RATIO}x: {_verdict(met)}"
    return _row(group, case, f"{ours_ns:.0f} ns", f"{peer_ns:.0f} ns", _ratio(ours, peer), figure)


def _batch_row(group: str, case: str, ours: dict[str, Any], peer: dict[str, Any]) -> str:
    ours_rate, peer_rate = ours["extra_info"]["ids_per_s"], peer["extra_info"]["ids_per_s"]
    figure = f">= {MIN_BATCH_IDS_PER_S / 1e6:.0f} M/s: {_verdict(ours_rate >= MIN_BATCH_IDS_PER_S)}"
    cells = (f"{ours_rate / 1e6:.0f} M IDs/s", f"{peer_rate / 1e6:.0f} M IDs/s", _ratio(ours, peer))
    return _row(group, case, *cells, figure)


def _import_rows(info: dict[str, Any]) -> list[str]:
    ours, otel = info["median_dsampler_ms"], info["median_otel_ms"]
    waited = info["jit_states_at_first_decision"] != ["loading"]
    return [
        _row(
            "import",
            f"import dsampler after the OTel SDK (median of {info['rounds']})",
            f"{ours:.1f} ms",
            f"{otel:.1f} ms",
            f"{ours / otel:.2f}",
            f"<= {MAX_IMPORT_MS:.0f} ms: {_verdict(ours <= MAX_IMPORT_MS)}",
        ),
        _row(
            "import",
            "first decision while the JIT loads",
            f"{info['median_first_decision_us']:.0f} us",
            f"(JIT ready after {info['median_jit_ready_ms']:.0f} ms)",
            "",
            f"never waits for the JIT: {_verdict(not waited)}",
        ),
    ]


def render(data: dict[str, Any]) -> str:
    """The Markdown report: machine, versions, then one ratio row per (group, case)."""
    machine = data["machine_info"]
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in VERSIONS)
    lines = [
        f"Machine: {machine['cpu'].get('brand_raw', platform.processor())}, "
        f"{machine['cpu'].get('count', '?')} CPUs; Python {machine['python_version']}; {versions}.",
        f"Run: {data['datetime']}. Ratio = dsampler median / peer median (below 1: dsampler faster); "
        f"(noisy): an IQR above {NOISY_IQR:.0%} of its median, the machine was busy: rerun.",
        "",
        "| group | case | dsampler | peer | ratio | DESIGN.md figure |",
        "|---|---|---:|---:|---:|---|",
    ]
    table = _by_case(data)
    for group, peer_name in PEER_NAMES.items():
        lines.append(f"| **{group}** | *peer: {peer_name}* | | | | |")
        for (g, case), impls in table.items():
            if g != group:
                continue
            ours = impls["dsampler"]
            if group == "import":
                lines.extend(_import_rows(ours["extra_info"]))
                continue
            (peer,) = (bench for impl, bench in impls.items() if impl != "dsampler")
            row = _batch_row if group == "batch" else _decision_row
            lines.append(row(group, case, ours, peer))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run (or load) a benchmark JSON and print its ratio table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--json", type=Path, help="render this --benchmark-json file instead of running")
    parser.add_argument("--keep", type=Path, help="also keep the run's --benchmark-json file here")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    data = json.loads(args.json.read_text()) if args.json else run_suite(args.pytest_args, args.keep)
    print(render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
