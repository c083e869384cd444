"""The rows ``dsampler bench`` compares (each a dsampler case against a peer case timed
in the same rounds), their groups, and the fixed inputs they decide.

Inputs are fixed by one seed, so two runs (and two machines) time the same decisions.
Trace IDs are picked so that both sides of a row reach the same decision: the
"sampled" ID is sampled by dsampler's ``fnv1a`` rule *and* by OpenTelemetry's
``TraceIdRatioBased``, the "dropped" one dropped by both; the 64-bit Jaeger IDs are
sampled (or dropped) by jaeger-client's rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from dsampler.cli.bench._harness import Case

SEED = 20_240_601
RATE = 0.1
NAME = "GET /x"
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class Row:
    """One ratio: ``ours`` (a case key) over ``peer`` (a case key).

    ``figure`` is dsampler's target for the ratio (an upper bound), where it has one.
    """

    group: str
    label: str
    ours: str
    peer: str
    figure: float | None = None


@dataclass(frozen=True)
class Group:
    """Rows that share a subject; ``cases`` are the ones the group defines (a row may
    also use a case of an earlier group)."""

    name: str
    title: str
    cases: tuple[Case, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Skipped:
    """A group left out of this run, and why."""

    group: str
    reason: str


@dataclass(frozen=True)
class Ids:
    """The fixed inputs, all at :data:`RATE`."""

    rate: float
    sampled: int  # 128-bit, sampled by dsampler (fnv1a) and by OTel TraceIdRatioBased
    dropped: int  # 128-bit, dropped by both
    span_id: int  # the parent span's ID in child decisions
    jaeger_sampled: int  # 64-bit, sampled by jaeger-client's ProbabilisticSampler
    jaeger_dropped: int  # 64-bit, dropped by it


def _first(rng: random.Random, bits: int, accept: Callable[[int], bool]) -> int:
    """The first non-zero ``bits``-bit value drawn from ``rng`` that ``accept`` takes."""
    while True:
        value = rng.getrandbits(bits)
        if value and accept(value):
            return value


def pick_ids(seed: int = SEED, rate: float = RATE) -> Ids:
    """Trace IDs with a known decision on both sides of every row."""
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

    from dsampler.hashing import fnv1a64_key, rate_to_bound

    rng = random.Random(seed)
    ours = rate_to_bound(rate)
    otel = TraceIdRatioBased.get_bound_for_rate(rate)
    jaeger = rate * float(1 << 64)  # jaeger-client 4.8 compares the ID with this float

    def both(tid: int) -> tuple[bool, bool]:
        return fnv1a64_key(tid >> 64, tid & _MASK64) < ours, (tid & _MASK64) < otel

    return Ids(
        rate=rate,
        sampled=_first(rng, 128, lambda tid: both(tid) == (True, True)),
        dropped=_first(rng, 128, lambda tid: both(tid) == (False, False)),
        span_id=_first(rng, 64, lambda _: True),
        jaeger_sampled=_first(rng, 64, lambda tid: tid < jaeger),
        jaeger_dropped=_first(rng, 64, lambda tid: tid >= jaeger),
    )
