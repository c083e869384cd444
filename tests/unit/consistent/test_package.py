"""The dsampler.consistent package: its public names, imports that point down only, and
decisions that leave no allocation behind."""

from __future__ import annotations

import random
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from inspect import ismodule
from pathlib import Path

import pytest
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import consistent
from dsampler.consistent import (
    composable_parent_threshold,
    composable_rule_based,
    composable_traceid_ratio_based,
    composite_sampler,
)
from dsampler.consistent._predicates import SpanKindPredicate

PACKAGE = str(Path(consistent.__file__).parent)
ABOVE = (  # the layers above consistent/ (configuration, below, holds the rule language it uses)
    "engine",
    "samplers",
    "remote",
    "adaptive",
    "telemetry",
    "jaeger",
    "cli",
    "_demo",
    "_bench",
)


def test_all_lists_exactly_what_is_exported() -> None:
    """__all__ names every public attribute, and each resolves."""
    public = {n for n in dir(consistent) if not n.startswith("_") and not ismodule(getattr(consistent, n))}
    assert set(consistent.__all__) == public
    assert all(getattr(consistent, name) is not None for name in consistent.__all__)


def test_imports_point_down_only() -> None:
    """Importing every module of the package (in a fresh interpreter) imports none of the
    packages above it, nor numpy."""
    modules = sorted(p.stem for p in Path(PACKAGE).glob("_*.py") if p.stem != "__init__")
    code = (
        "import sys, dsampler.consistent as c\n"
        + "".join(f"import dsampler.consistent.{m}\n" for m in modules)
        + "c.composite_sampler(c.composable_traceid_ratio_based(0.1)).should_sample(None, 5, 'x')\n"
        + "print(sorted(m for m in sys.modules if m.startswith('dsampler.') or m == 'numpy'))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "dsampler.consistent._composite" in loaded
    for package in ABOVE:
        assert f"'dsampler.{package}" not in loaded, package
    assert "'numpy'" not in loaded


def _retained(decide: Callable[[int], object]) -> tuple[int, int]:
    """(bytes, blocks) still allocated from the package's files after 20,000 decisions."""
    rng = random.Random(3)
    ids = [rng.getrandbits(128) for _ in range(64)]
    for t in ids:
        decide(t)
    tracemalloc.start()
    try:
        for i in range(20_000):  # a traced stretch first: what calls keep for reuse (3.10's
            decide(ids[i % 64])  # frames) is in both snapshots; a per-decision leak still shows
        before = tracemalloc.take_snapshot()
        for i in range(20_000):
            decide(ids[i % 64])
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    here = [tracemalloc.Filter(True, f"{PACKAGE}/*")]
    stats = after.filter_traces(here).compare_to(before.filter_traces(here), "lineno")
    return sum(max(s.size_diff, 0) for s in stats), sum(max(s.count_diff, 0) for s in stats)


def _child(ts: TraceState | None) -> object:
    sc = SpanContext(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0xABC, True, TraceFlags(1), ts)
    return set_span_in_context(NonRecordingSpan(sc))


RATIO = composite_sampler(composable_traceid_ratio_based(0.5))
PARENT = composite_sampler(composable_parent_threshold(composable_traceid_ratio_based(0.5)))
RULES = composite_sampler(
    composable_rule_based([(SpanKindPredicate([]), composable_traceid_ratio_based(1.0))])
)


@pytest.mark.parametrize(
    ("label", "sampler", "context"),
    [
        ("root", RATIO, None),
        ("root through rules", RULES, None),
        ("child without tracestate", PARENT, _child(None)),
        ("child with a vendor entry", RATIO, _child(TraceState([("a", "1")]))),
        ("child with th and rv", PARENT, _child(TraceState([("ot", "th:8;rv:ffffffffffffff")]))),
    ],
)
def test_no_memory_retained_per_decision(label: str, sampler: object, context: object) -> None:
    """20,000 decisions leave nothing allocated in the package's code behind, and (with
    one parent, as siblings share it) return at most one result object per outcome."""
    should_sample = sampler.should_sample  # type: ignore[attr-defined]
    assert _retained(lambda t: should_sample(context, t, "op")) == (0, 0), label
    if context is not None:
        kept = [should_sample(context, 0x4BF92F3577B34DA6A3CE929D0E0E4736, "op") for _ in range(200)]
        assert len({id(r.trace_state) for r in kept}) == 1, label
