"""ParentBasedSampler: the same decisions, attributes and tracestate as OTel's ParentBased."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import (
    ALWAYS_OFF,
    ALWAYS_ON,
    Decision,
    ParentBased,
    Sampler,
    StaticSampler,
    TraceIdRatioBased,
)
from opentelemetry.trace import INVALID_SPAN, NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState

from dsampler import ConfigError, ParentBasedSampler, RatioSampler
from tests.parents import ExplodingContext

TID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
CASES = list(itertools.product([False, True], [False, True], [None, "congo=t61rcWkgMzE"], [None, {"k": "v"}]))


def parent(remote: bool, sampled: bool, header: str | None) -> Context:
    ts = TraceState.from_header([header]) if header else None
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(TID, 0xABC, remote, flags, ts)))


def view(result: Any) -> tuple[Decision, dict[str, Any], str]:
    ts = result.trace_state.to_header() if result.trace_state is not None else ""
    return result.decision, dict(result.attributes), ts


@pytest.mark.parametrize(("remote", "sampled", "header", "attrs"), CASES)
def test_default_delegates_match_otel_parent_based(
    remote: bool, sampled: bool, header: str | None, attrs: dict[str, str] | None
) -> None:
    """For each parent case the result equals OTel ParentBased's, tracestate included."""
    root = RatioSampler(0.5)
    ctx = parent(remote, sampled, header)
    ours = ParentBasedSampler(root).should_sample(ctx, TID, "child", None, attrs)
    theirs = ParentBased(root).should_sample(ctx, TID, "child", None, attrs)
    assert view(ours) == view(theirs)
    assert ours.decision.is_sampled() is sampled


@pytest.mark.parametrize(("remote", "sampled", "header", "attrs"), CASES)
def test_custom_delegates_are_called_like_otel(
    remote: bool, sampled: bool, header: str | None, attrs: dict[str, str] | None
) -> None:
    """Non-default delegates (inverted here) decide exactly as under OTel's ParentBased."""
    delegates: dict[str, Sampler] = {
        "remote_parent_sampled": RatioSampler(0.0),
        "remote_parent_not_sampled": ALWAYS_ON,
        "local_parent_sampled": ALWAYS_OFF,
        "local_parent_not_sampled": RatioSampler(1.0),
    }
    ctx = parent(remote, sampled, header)
    ours = ParentBasedSampler(RatioSampler(0.5), **delegates).should_sample(ctx, TID, "c", None, attrs)
    theirs = ParentBased(RatioSampler(0.5), **delegates).should_sample(ctx, TID, "c", None, attrs)
    assert view(ours) == view(theirs)
    assert ours.decision.is_sampled() is not sampled


@pytest.mark.parametrize("ctx", [None, Context(), set_span_in_context(INVALID_SPAN)])
def test_without_a_valid_parent_the_root_decides(ctx: Context | None) -> None:
    """No span, or an invalid one, in the context means a root decision."""
    assert (
        view(ParentBasedSampler(RatioSampler(1.0)).should_sample(ctx, TID, "r"))[0]
        is Decision.RECORD_AND_SAMPLE
    )
    assert view(ParentBasedSampler(RatioSampler(0.0)).should_sample(ctx, TID, "r"))[0] is Decision.DROP


def test_child_results_without_attributes_or_tracestate_are_prebuilt() -> None:
    """Following a parent without tracestate or attributes allocates no result."""
    sampler = ParentBasedSampler(RatioSampler(0.5))
    ctx = parent(False, True, None)
    assert sampler.should_sample(ctx, TID, "a") is sampler.should_sample(ctx, TID, "b")


def test_description_has_otel_parent_based_format() -> None:
    """The description string is character for character OTel ParentBased's."""
    root = RatioSampler(0.1)
    assert ParentBasedSampler(root).get_description() == ParentBased(root).get_description()
    custom = {
        "remote_parent_sampled": TraceIdRatioBased(0.3),
        "local_parent_not_sampled": StaticSampler(Decision.DROP),
    }
    assert (
        ParentBasedSampler(root, **custom).get_description() == ParentBased(root, **custom).get_description()
    )


@pytest.mark.parametrize(
    "field",
    [
        "root",
        "remote_parent_sampled",
        "remote_parent_not_sampled",
        "local_parent_sampled",
        "local_parent_not_sampled",
    ],
)
def test_non_sampler_arguments_raise_config_error_naming_them(field: str) -> None:
    """Each argument must be an OpenTelemetry Sampler; the error names the argument."""
    kwargs: dict[str, Any] = {"root": RatioSampler(0.1), field: "always_on"}
    with pytest.raises(ConfigError, match=f"^{field}: expected an opentelemetry Sampler, got str"):
        ParentBasedSampler(**kwargs)


def test_unreadable_parent_falls_back_to_the_root_and_counts(caplog: pytest.LogCaptureFixture) -> None:
    """A context that fails to read makes a root decision, counted and logged once."""
    sampler = ParentBasedSampler(RatioSampler(1.0))
    with caplog.at_level(logging.WARNING, logger="dsampler.samplers"):
        assert sampler.should_sample(ExplodingContext(), TID, "x").decision is Decision.RECORD_AND_SAMPLE
        assert sampler.should_sample(ExplodingContext(), TID, "x").decision is Decision.RECORD_AND_SAMPLE
    assert sampler.faults == 2
    assert len(caplog.records) == 1


class RaisingSampler(Sampler):
    """A foreign sampler that breaks the contract by raising."""

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("foreign bug")

    def get_description(self) -> str:
        return "Raising"


def test_a_raising_foreign_root_with_a_broken_parent_still_never_raises() -> None:
    """Even when both the parent lookup and the root sampler fail, the result is DROP."""
    sampler = ParentBasedSampler(RaisingSampler())
    assert sampler.should_sample(ExplodingContext(), TID, "x").decision is Decision.DROP


def test_children_sharing_a_tracestate_reuse_one_result_and_never_a_stale_one() -> None:
    """Siblings under one parent TraceState get one result; another parent gets its own."""
    sampler = ParentBasedSampler(RatioSampler(0.5))
    first = parent(True, True, "a=1")
    second = parent(True, True, "b=2")
    r1 = sampler.should_sample(first, TID, "x")
    assert sampler.should_sample(first, TID, "y") is r1
    r2 = sampler.should_sample(second, TID, "x")
    assert r2.trace_state is not None
    assert r2.trace_state.to_header() == "b=2"
    assert sampler.should_sample(first, TID, "z").trace_state.to_header() == "a=1"


class RaisingForSampledParents(Sampler):
    """A foreign delegate that raises: the child of a sampled local parent hits it."""

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("foreign bug")

    def get_description(self) -> str:
        return "Raising"


@pytest.mark.parametrize(
    "root", [RatioSampler(1.0), RatioSampler(0.0), RaisingSampler()], ids=["sampled", "dropped", "raising"]
)
def test_a_fault_keeps_the_parents_tracestate(root: Sampler) -> None:
    """A delegate that raises: the span is decided as a root, counted, and still carries
    the parent's tracestate (other vendors' entries), whatever the root decides."""
    sampler = ParentBasedSampler(root, local_parent_sampled=RaisingForSampledParents())
    result = sampler.should_sample(parent(False, True, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"), TID, "x")
    assert result.trace_state is not None
    assert result.trace_state.to_header() == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
    assert sampler.faults == 1


def test_a_fault_without_a_parent_tracestate_writes_none() -> None:
    """No tracestate on the parent: the root's own result, as before."""
    sampler = ParentBasedSampler(RatioSampler(1.0), local_parent_sampled=RaisingForSampledParents())
    result = sampler.should_sample(parent(False, True, None), TID, "x")
    assert result.decision is Decision.RECORD_AND_SAMPLE
    assert not result.trace_state
