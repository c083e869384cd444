"""The built-in composables under dsampler's composite sampler: the cases of OpenTelemetry
Python's own tests (composite_sampler/test_always_on.py, test_always_off.py,
test_traceid_ratio.py, test_sampler.py at opentelemetry-python 0a5d76b6), checked here
against dsampler's composables, plus the parent threshold's consistency check."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision
from opentelemetry.trace import (
    NonRecordingSpan,
    SpanContext,
    TraceFlags,
    get_current_span,
    set_span_in_context,
)
from opentelemetry.trace.span import TraceState

from dsampler.consistent import (
    MAX_THRESHOLD,
    composable_always_off,
    composable_always_on,
    composable_parent_threshold,
    composable_traceid_ratio_based,
    composite_sampler,
    explicit_randomness,
    threshold_of,
)
from dsampler.consistent._intent import ComposableSampler
from dsampler.consistent._threshold import INVALID_THRESHOLD
from dsampler.consistent._tracestate import ot_of
from dsampler.errors import ConfigError

TRACE_ID = 0x00112233445566778800000000000000  # its low 56 bits are 0
SPAN_ID = 0x0123456789ABCDEF
N = 10_000


def parent(
    sampled: bool,
    th: str | None = None,
    rv: int | None = None,
    trace_id: int = TRACE_ID,
    remote: bool = False,
) -> Context:
    members = ([f"th:{th}"] if th is not None else []) + ([f"rv:{rv:014x}"] if rv is not None else [])
    ts = TraceState([("ot", ";".join(members))]) if members else None
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(trace_id, SPAN_ID, remote, flags, ts)))


def random_ids(seed: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.getrandbits(128) for _ in range(N)]


def within_4_sigma(count: int, ratio: float) -> bool:
    return abs(count - N * ratio) <= 4 * math.sqrt(N * ratio * (1 - ratio)) + 1e-9


@pytest.mark.parametrize(
    ("sampler", "description", "threshold"),
    [
        (composable_always_on(), "ComposableAlwaysOn", 0),
        (composable_always_off(), "ComposableAlwaysOff", INVALID_THRESHOLD),
    ],
)
def test_always_on_and_off_description_and_threshold(
    sampler: ComposableSampler, description: str, threshold: int
) -> None:
    """Their descriptions and intents' thresholds (0 and -1), as OpenTelemetry Python's."""
    assert sampler.get_description() == description
    assert sampler.sampling_intent(None, "test", None, {}, None, None).threshold == threshold


def test_always_on_samples_every_root_with_th_0() -> None:
    """10,000 random roots: all sampled, each with ot=th:0."""
    sampler = composite_sampler(composable_always_on())
    for trace_id in random_ids(1):
        result = sampler.should_sample(None, trace_id, "span", None, None, None, None)
        assert result.decision is Decision.RECORD_AND_SAMPLE
        assert ot_of(result.trace_state) == "th:0"


def test_always_off_samples_nothing_and_adds_no_tracestate() -> None:
    """10,000 random roots: none sampled, none with a tracestate."""
    sampler = composite_sampler(composable_always_off())
    for trace_id in random_ids(2):
        result = sampler.should_sample(None, trace_id, "span", None, None, None, None)
        assert result.decision is Decision.DROP
        assert not result.trace_state


@pytest.mark.parametrize(
    ("ratio", "shown"),
    [(1.0, "0"), (0.5, "8"), (0.25, "c"), (1e-300, "max"), (0, "max"), (0.1, "e6666666666666")],
)
def test_traceid_ratio_description(ratio: float, shown: str) -> None:
    """ComposableTraceIDRatioBased{threshold=..., ratio=...}, 'max' when it never samples."""
    description = composable_traceid_ratio_based(ratio).get_description()
    assert description == f"ComposableTraceIDRatioBased{{threshold={shown}, ratio={ratio}}}"


@pytest.mark.parametrize(
    ("ratio", "threshold"),
    [
        (1.0, 0),
        (0.5, 36028797018963968),
        (0.25, 54043195528445952),
        (0.125, 63050394783186944),
        (0.0, 72057594037927936),
        (0.45, 39631676720860364),
        (0.2, 57646075230342348),
        (0.13, 62690106812997304),
        (0.05, 68454714336031539),
    ],
)
def test_traceid_ratio_sampling(ratio: float, threshold: int) -> None:
    """10,000 random roots: sampled iff R >= T, each sampled span with exactly T as th and
    no rv, and the count within 4 sigma of ratio * N."""
    sampler = composite_sampler(composable_traceid_ratio_based(ratio))
    count = 0
    for trace_id in random_ids(3):
        result = sampler.should_sample(None, trace_id, "span", None, None, None, None)
        assert result.decision.is_sampled() is ((trace_id & (2**56 - 1)) >= threshold)
        if result.decision.is_sampled():
            count += 1
            assert threshold_of(result.trace_state) == threshold
            assert explicit_randomness(result.trace_state) is None
    assert within_4_sigma(count, ratio)
    if threshold == MAX_THRESHOLD:
        assert (
            composable_traceid_ratio_based(ratio).sampling_intent(None, "s", None, None, None, None).threshold
            == -1
        )


def test_traceid_ratio_with_precision_writes_the_short_th() -> None:
    """precision=4 gives the Collector's and otel-go's e666 for 0.1."""
    sampler = composite_sampler(composable_traceid_ratio_based(0.1, precision=4))
    result = sampler.should_sample(None, 2**56 - 1, "span")
    assert ot_of(result.trace_state) == "th:e666"


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", None])
def test_traceid_ratio_refuses_a_bad_ratio(bad: object) -> None:
    """A ratio outside [0, 1] (OpenTelemetry Python raises ValueError) is a ConfigError,
    which is a ValueError too."""
    with pytest.raises(ConfigError, match=r"^ratio: "):
        composable_traceid_ratio_based(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^ratio: "):
        composable_traceid_ratio_based(bad)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Case:
    sampler: ComposableSampler
    sampled: bool  # the parent's flag
    th: str | None
    rv: int | None
    out_sampled: bool
    out_threshold: int | None
    out_rv: int | None


ON, HALF, RV = composable_always_on(), composable_traceid_ratio_based(0.5), 0x7F99AA40C02744
# test_sampler.py's cases; the fourth is the one deliberate difference (see its comment).
CASES = {
    "min threshold no parent random value": Case(ON, True, None, None, True, 0, None),
    "min threshold with parent random value": Case(
        ON, True, None, RV, True, 0, RV
    ),
    "max threshold": Case(composable_always_off(), True, None, None, False, None, None),
    # OpenTelemetry Python samples here: its parent threshold reads th whatever the flag.
    # The spec's parent-based rule follows the flag and erases a th it does not follow.
    "parent based, th on a parent that was not sampled": Case(
        composable_parent_threshold(ON), False, f"{RV:x}", RV, False, None, RV
    ),
    "parent based in consistent mode": Case(
        composable_parent_threshold(ON), True, f"{RV:x}", RV, True,
        RV, RV,
    ),
    "parent based in legacy mode": Case(
        composable_parent_threshold(ON), True, None, None, True, None, None
    ),
    "half threshold not sampled": Case(
        HALF, True, None, 0x7FFFFFFFFFFFFF, False, None, 0x7FFFFFFFFFFFFF
    ),
    "half threshold sampled": Case(
        HALF, False, None, 0x80000000000000, True, 0x80000000000000, 0x80000000000000
    ),
    "parent violating invariant": Case(
        composable_traceid_ratio_based(1.0), False, "8", 0x80000000000000, True, 0, 0x80000000000000
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_opentelemetry_pythons_composite_cases(case: Case) -> None:
    """Decision, th and rv of each case, with the parent's tracestate read from the parent
    span context (no trace_state argument, as the SDK calls it) and passed as well."""
    context = parent(case.sampled, case.th, case.rv)
    parent_ts = get_current_span(context).get_span_context().trace_state
    sampler = composite_sampler(case.sampler)
    for result in (
        sampler.should_sample(context, TRACE_ID, "name"),
        sampler.should_sample(context, TRACE_ID, "name", trace_state=parent_ts),
    ):
        assert result.decision.is_sampled() is case.out_sampled
        assert threshold_of(result.trace_state) == case.out_threshold
        assert explicit_randomness(result.trace_state) == case.out_rv


def test_parent_threshold_erases_an_inconsistent_th() -> None:
    """A sampled parent whose th is above its R (th:c with rv 1) is followed without th."""
    sampler = composite_sampler(composable_parent_threshold(composable_always_off()))
    result = sampler.should_sample(parent(True, "c", 1), TRACE_ID, "child")
    assert result.decision is Decision.RECORD_AND_SAMPLE
    assert threshold_of(result.trace_state) is None
    assert explicit_randomness(result.trace_state) == 1


def test_parent_threshold_reads_r_from_the_trace_id_without_rv() -> None:
    """Without rv the parent's th is checked against the trace ID's low 56 bits."""
    sampler = composite_sampler(composable_parent_threshold(composable_always_off()))
    high = (1 << 64) | (2**56 - 1)
    followed = sampler.should_sample(parent(True, "8", trace_id=high), high, "child")
    assert threshold_of(followed.trace_state) == 0x80000000000000
    low = 1 << 64
    erased = sampler.should_sample(parent(True, "8", trace_id=low), low, "child")
    assert erased.decision.is_sampled()
    assert threshold_of(erased.trace_state) is None


def test_parent_threshold_defers_roots_to_its_root_sampler() -> None:
    """A root gets the root sampler's intent; the description names it."""
    composable = composable_parent_threshold(composable_traceid_ratio_based(0.25))
    assert composable.get_description() == (
        "ComposableParentThreshold{root=ComposableTraceIDRatioBased{threshold=c, ratio=0.25}}"
    )
    assert composable.sampling_intent(None, "root", None, None, None, None).threshold == 0xC << 52


def test_parent_threshold_refuses_what_is_not_composable() -> None:
    """The root must be a composable sampler: ConfigError naming root."""
    with pytest.raises(ConfigError, match=r"^root: expected a composable sampler"):
        composable_parent_threshold(0.5)  # type: ignore[arg-type]
