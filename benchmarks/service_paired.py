"""The real service of ``benchmarks/service.py``, measured in paired rounds.

    python benchmarks/service_paired.py                  # 20 pairs of 3 s loads (about 5 min)
    python benchmarks/service_paired.py --pairs 40 --seconds 2

``service.py`` starts a fresh gunicorn for every round, so each round's figure carries
that process's luck (its start, its heap, what else ran on the machine then), and on
this 2-core VM the rounds of two variants overlap by more than the difference between
them. Here one gunicorn per variant runs for the whole run, and the loads alternate
between them in short pairs (the order flips every pair): a slow drift in the machine's
load hits both sides of a pair alike, so the ratio *within* each pair is the figure to
trust, and its median over the pairs, with the spread of the middle half, says how sure
it is. Each load also reports the CPU the service spent per request (user + system of
master and worker, from ``/proc``), which moves far less than requests per second when
``wrk`` and other jobs compete for the two cores.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer

import service  # the sibling script (its folder is on sys.path): Service, load, variants

PEER = "OTel parentbased_traceidratio"


def _one(svc: service.Service, seconds: float, parent: str | None) -> dict[str, float]:
    cpu = svc.cpu_s()
    out = service.load(svc.port, seconds, parent)
    out["cpu_us"] = (svc.cpu_s() - cpu) / max(out["requests"], 1) * 1e6
    return out


def _quartiles(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return f"{statistics.median(values):.3f} ({q[0]:.3f}-{q[2]:.3f})"


def run(variants: list[str], pairs: int, seconds: float) -> str:
    """The Markdown table of paired ratios against OpenTelemetry's sampler."""
    sink = ThreadingHTTPServer(("127.0.0.1", 0), service._Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    cache = tempfile.mkdtemp(prefix="dsampler-paired-numba-")
    services: dict[str, service.Service] = {}
    ratios: dict[str, dict[str, list[float]]] = {v: {} for v in variants}
    try:
        for v in [PEER, *variants]:  # one at a time: a failed start stops those already up
            services[v] = service.Service(v, 1, sink.server_address[1], cache)
        for svc in services.values():
            service.load(svc.port, 2.0, None)  # warm-up
        for i in range(pairs):
            for kind, parent in (("child", service.TRACEPARENT), ("root", None)):
                for v in variants:
                    order = [PEER, v] if i % 2 == 0 else [v, PEER]
                    got = {name: _one(services[name], seconds, parent) for name in order}
                    for key in ("rps", "cpu_us", "p99_ms"):
                        ratio = got[v][key] / max(got[PEER][key], 1e-9)
                        ratios[v].setdefault(f"{kind}_{key}", []).append(ratio)
    finally:
        for svc in services.values():
            svc.stop()
        sink.shutdown()
        sink.server_close()
        shutil.rmtree(cache, ignore_errors=True)
    lines = [
        f"{pairs} pairs of {seconds:g} s loads per kind; ratio to `{PEER}` within each pair, "
        "median (inter-quartile range)\n",
        "| variant | req/s, sampled parent | CPU/request, sampled parent | p99, sampled parent "
        "| req/s, roots at 10% | CPU/request, roots | p99, roots |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for v in variants:
        cells = [
            _quartiles(ratios[v][f"{kind}_{key}"])
            for kind in ("child", "root")
            for key in ("rps", "cpu_us", "p99_ms")
        ]
        lines.append(f"| {v} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=3.0, help="each load (default 3)")
    others = [v for v in service.VARIANTS if v != PEER]
    parser.add_argument("--variants", nargs="+", default=others[:2], choices=others)
    args = parser.parse_args(argv)
    if args.pairs < 1 or args.seconds <= 0:
        parser.error("--pairs must be >= 1 and --seconds > 0")
    print(run(args.variants, args.pairs, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
