"""Run by a bare install's own python (dsampler and its dependencies, nothing else): the
golden vectors of tests/data/vectors decided as their references decided them, through a
real OpenTelemetry TracerProvider.

usage: python golden_decisions.py VECTORS_DIR

- FNV-1a (the default rule): each 16-byte trace ID of fnv1a64.json hashes to its golden
  value, and is sampled at each rate iff that value is below ``rate_to_bound(rate)``;
- xxh3 (the lean rule): sampled iff the XXH3-64 of the ID's 16 bytes, by xxhash, is below
  the rule's bound;
- otel-java: OpenTelemetry Java's own decisions (otel_java_ratio.json; at rate 1 dsampler
  keeps every ID, where Java leaves out two).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import xxhash
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import IdGenerator

import dsampler
from dsampler.hashing import get_scheme

RATES = (0.0, 0.001, 0.1, 0.5, 1.0)


class GivenIds(IdGenerator):
    """The trace IDs of the vectors, in order; random span IDs do not matter here."""

    def __init__(self, trace_ids: Iterator[int]) -> None:
        self._trace_ids = trace_ids

    def generate_span_id(self) -> int:
        return 1

    def generate_trace_id(self) -> int:
        return next(self._trace_ids)


def sampled(trace_ids: list[int], rate: float, rule: str) -> list[bool]:
    """Each root span's sampled flag, under DSampler(rate, hash=rule) in a TracerProvider."""
    provider = TracerProvider(
        sampler=dsampler.DSampler(rate=rate, hash=rule), id_generator=GivenIds(iter(trace_ids))
    )
    tracer = provider.get_tracer("golden")
    flags = []
    for _ in trace_ids:
        with tracer.start_as_current_span("GET /golden") as span:
            flags.append(span.get_span_context().trace_flags.sampled)
    provider.shutdown()
    return flags


def check(label: str, got: list[bool], expected: list[bool]) -> int:
    wrong = [i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e]
    if wrong:
        raise SystemExit(
            f"golden decisions: {label}: {len(wrong)} of {len(got)} wrong, first at row {wrong[0]}"
        )
    return len(got)


def main(vectors: Path) -> None:
    fnv: list[dict[str, Any]] = json.loads((vectors / "fnv1a64.json").read_text(encoding="utf-8"))
    ids = {int(r["input_hex"], 16): int(r["fnv1a64_hex"], 16) for r in fnv if len(r["input_hex"]) == 32}
    assert len(ids) >= 20, "fnv1a64.json holds too few 16-byte trace IDs"
    assert all(dsampler.fnv1a64(trace_id) == golden for trace_id, golden in ids.items())
    count = 0
    for rate in RATES:
        bound = dsampler.rate_to_bound(rate)
        count += check(
            f"fnv1a at {rate}", sampled(list(ids), rate, "fnv1a"), [g < bound for g in ids.values()]
        )
        xxh3 = [xxhash.xxh3_64_intdigest(t.to_bytes(16, "big")) < get_scheme("xxh3").bound(rate) for t in ids]
        count += check(f"xxh3 at {rate}", sampled(list(ids), rate, "xxh3"), xxh3)
    java: list[dict[str, Any]] = json.loads((vectors / "otel_java_ratio.json").read_text(encoding="utf-8"))
    for rate in sorted({r["rate"] for r in java}):
        rows = [r for r in java if r["rate"] == rate]
        expected = [r["sampled"] or rate == 1.0 for r in rows]
        count += check(
            f"otel-java at {rate}",
            sampled([int(r["trace_id"], 16) for r in rows], rate, "otel-java"),
            expected,
        )
    print(f"golden decisions: {count} root spans decided as the references ({dsampler.jit_status()})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
