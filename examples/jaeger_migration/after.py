"""A jaeger-client app, migrated by changing one line: the sampler import.

before.py imports jaeger-client's samplers, after.py imports dsampler.jaeger's; the files
differ in nothing else. Run both: they keep the same traces with the same tags, because
dsampler.jaeger decides exactly as jaeger-client by default (the rate limiter's count
can differ by one between runs: it starts from a random balance and reads real time).
"""

from __future__ import annotations

import random
import sys

from jaeger_client import Tracer
from jaeger_client.reporter import InMemoryReporter
from dsampler.jaeger import ProbabilisticSampler, RateLimitingSampler


def main() -> int:
    random.seed(2)  # the rate limiters' random initial balance
    for sampler in (ProbabilisticSampler(0.1), RateLimitingSampler(2)):
        reporter = InMemoryReporter()
        tracer = Tracer(service_name="shop", reporter=reporter, sampler=sampler)
        tracer.random = random.Random(42)  # fixed trace IDs, so the two runs can be compared
        for i in range(1000):
            with tracer.start_span("GET /checkout", tags={"request": i}) as span:
                tracer.start_span("SELECT orders", child_of=span).finish()
        tracer.close()
        roots = [s for s in reporter.get_spans() if s.parent_id is None]
        tags = {t.key: (t.vStr, t.vDouble, t.vBool, t.vLong)[t.vType] for t in roots[0].tags} if roots else {}
        checksum = sum(s.trace_id for s in roots) % 10**8
        print(f"{sampler}: kept {len(roots)} of 1000 traces, id checksum {checksum:08d}, tags {tags}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
