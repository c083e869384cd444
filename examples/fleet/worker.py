"""One instrumented worker of the fleet: a real TracerProvider whose sampler follows the
strategies `dsampler serve` hands out for its service.

    python examples/fleet/worker.py --service checkout --endpoint http://127.0.0.1:5778

Every tick it starts a burst of root spans and prints the strategy in force and what it
kept, so an edit of the strategies file shows up in its output at the next poll.
"""

from __future__ import annotations

import argparse
import time

from opentelemetry.sdk.trace import TracerProvider

from dsampler.protocol import PerOperationStrategy, ProbabilisticStrategy, RateLimitingStrategy, Strategy
from dsampler.remote import JaegerRemoteSampler

OPERATIONS = {"checkout": ["GET /cart", "POST /pay"], "search": ["GET /search"], "ledger": ["POST /entry"]}


def describe(strategy: Strategy | None) -> str:
    """A short text for the strategy in force."""
    match strategy:
        case None:
            return "initial 0.001"
        case ProbabilisticStrategy(rate=rate):
            return f"probabilistic {rate:g}"
        case RateLimitingStrategy(traces_per_second=limit):
            return f"ratelimiting {limit:g}/s"
        case PerOperationStrategy():
            listed = ", ".join(f"{op.operation} {op.rate:g}" for op in strategy.operations)
            return f"per-operation default {strategy.default_rate:g}, {listed}"
    return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--service", required=True)
    parser.add_argument("--endpoint", required=True, help="dsampler serve's URL")
    parser.add_argument("--poll-interval", type=float, default=1.0, help="seconds between polls")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this long at the latest")
    parser.add_argument("--tick", type=float, default=0.5, help="seconds between bursts")
    parser.add_argument("--spans", type=int, default=400, help="root spans per burst")
    args = parser.parse_args()

    sampler = JaegerRemoteSampler(args.service, args.endpoint, polling_interval_s=args.poll_interval)
    tracer = TracerProvider(sampler=sampler).get_tracer("fleet")
    names = OPERATIONS.get(args.service, ["work"])
    start = time.monotonic()
    while (elapsed := time.monotonic() - start) < args.seconds:
        kept = dict.fromkeys(names, 0)
        for i in range(args.spans):
            name = names[i % len(names)]
            with tracer.start_as_current_span(name) as span:
                kept[name] += span.get_span_context().trace_flags.sampled
        total = sum(kept.values())
        per_op = "  ".join(f"{name}: {n}" for name, n in kept.items())
        print(
            f"[{args.service:8}] t={elapsed:4.1f}s v{sampler.config.version} {describe(sampler.strategy):45} "
            f"kept {total:3}/{args.spans} ({100 * total / args.spans:5.1f}%)  {per_op}",
            flush=True,
        )
        time.sleep(max(0.0, args.tick - (time.monotonic() - start - elapsed)))
    sampler.close()


if __name__ == "__main__":
    main()
