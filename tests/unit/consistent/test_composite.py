"""The composite sampler: th written and erased truthfully through a real TracerProvider,
the parent's tracestate read from its span context and handed on, the span's attributes
kept, the 256-character and 32-entry limits, fresh randomness for unreliable thresholds,
and OpenTelemetry Python's composables mixed with dsampler's, both ways."""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Sequence

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace._sampling_experimental import (
    composable_parent_threshold as otel_parent_threshold,
)
from opentelemetry.sdk.trace._sampling_experimental import composable_rule_based as otel_rule_based
from opentelemetry.sdk.trace._sampling_experimental import composable_traceid_ratio_based as otel_ratio
from opentelemetry.sdk.trace._sampling_experimental import composite_sampler as otel_composite
from opentelemetry.sdk.trace._sampling_experimental._rule_based import AttributeValuesPredicate as OtelValues
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.sdk.trace.sampling import Decision, ParentBased, Sampler
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.consistent import (
    AttributeValuesPredicate,
    SamplingIntent,
    composable_always_on,
    composable_parent_threshold,
    composable_rule_based,
    composable_traceid_ratio_based,
    composite_sampler,
    threshold_of,
)
from dsampler.consistent._composite import CompositeSampler
from dsampler.consistent._tracestate import ot_of
from dsampler.errors import ConfigError
from tests.conftest import Traced

HIGH_R = (0xABC << 64) | (2**56 - 1)  # a trace ID whose randomness is the largest
LOW_R = 0xABC << 64  # randomness 0: sampled only at threshold 0


def remote_parent(trace_state: TraceState | None, *, sampled: bool = True, trace_id: int = HIGH_R) -> Context:
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    return set_span_in_context(NonRecordingSpan(SpanContext(trace_id, 0x1234, True, flags, trace_state)))


class Fixed:
    """A composable sampler of one given intent (what a user may write)."""

    def __init__(self, intent: object) -> None:
        self.intent = intent

    def sampling_intent(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> object:
        return self.intent

    def get_description(self) -> str:
        return "Fixed"


class Ids(RandomIdGenerator):
    """The SDK's generator, with the trace IDs chosen: real spans, known randomness."""

    def __init__(self, *trace_ids: int) -> None:
        self._ids = iter(trace_ids)

    def generate_trace_id(self) -> int:
        return next(self._ids)


def provider(sampler: Sampler, *trace_ids: int) -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    tp = TracerProvider(sampler=sampler, id_generator=Ids(*trace_ids))
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    return tp, exporter


def test_a_trace_keeps_one_th_through_a_real_tracer_provider() -> None:
    """A root sampled at 1/4 carries th:c and its local child (parent threshold) the same
    th; a root with R below th:c is dropped with its child; a remote parent's vendor entry
    and rv are kept byte for byte by the server span and its child."""
    sampler = composite_sampler(composable_parent_threshold(composable_traceid_ratio_based(0.25)))
    tp, exporter = provider(sampler, HIGH_R, LOW_R)
    tracer = tp.get_tracer("test")
    for _ in range(2):
        with tracer.start_as_current_span("root"), tracer.start_as_current_span("child"):
            pass
    child, root = exporter.get_finished_spans()  # the LOW_R trace was dropped whole
    assert root.context.trace_id == child.context.trace_id == HIGH_R
    assert ot_of(root.context.trace_state) == ot_of(child.context.trace_state) == "th:c"
    incoming = TraceState([("congo", "t61rcWkgMzE"), ("ot", "th:c;rv:d29d6a7215ced0")])
    with (
        tracer.start_as_current_span("server", context=remote_parent(incoming)),
        tracer.start_as_current_span("in"),
    ):
        pass
    inner, server = exporter.get_finished_spans()[2:]
    for span in (server, inner):
        assert span.context.trace_state.to_header() == "congo=t61rcWkgMzE,ot=th:c;rv:d29d6a7215ced0"
    tp.shutdown()


def test_the_span_keeps_its_attributes_and_gets_the_intents(traced: Callable[..., Traced]) -> None:
    """Span attributes survive (OpenTelemetry Python's composite replaces them with the
    intent's, None: all lost); the intent's are added; the span's own win a clash."""
    intent = SamplingIntent(0, attributes={"sampler": "fixed", "k": "intent"})
    t = traced(composite_sampler(Fixed(intent)))
    with t.tracer.start_as_current_span("a", attributes={"k": "span", "own": 1}):
        pass
    (span,) = t.finished()
    assert dict(span.attributes) == {"sampler": "fixed", "k": "span", "own": 1}
    theirs = traced(otel_composite(otel_ratio(1.0)))
    with theirs.tracer.start_as_current_span("a", attributes={"own": 1}):
        pass
    assert dict(theirs.finished()[0].attributes) == {}  # the difference, as found in 1.45


@pytest.mark.parametrize(
    ("incoming", "after_drop"),
    [
        ("th:8", None),  # OpenTelemetry Python 1.45 keeps this stale th
        ("th:8;rv:00000000000000", "rv:00000000000000"),
        ("a:1;th:8;b:2", "a:1;b:2"),
        ("th:8;th:c", None),  # malformed: removed
    ],
)
def test_a_drop_erases_th(incoming: str, after_drop: str | None) -> None:
    """A dropped child loses th and only th; the vendor entry stays."""
    ts = TraceState([("vendor", "v"), ("ot", incoming)])
    sampler = composite_sampler(composable_traceid_ratio_based(0.5))
    result = sampler.should_sample(remote_parent(ts, trace_id=LOW_R), LOW_R, "child")
    assert result.decision is Decision.DROP
    assert ot_of(result.trace_state) == after_drop
    assert result.trace_state is not None
    assert result.trace_state.get("vendor") == "v"


def test_unchanged_tracestate_is_handed_on_as_is() -> None:
    """A decision that changes nothing in ot returns the parent's TraceState object."""
    ts = TraceState([("vendor", "v"), ("ot", "th:8;rv:ffffffffffffff")])
    sampler = composite_sampler(composable_parent_threshold(composable_always_on()))
    assert sampler.should_sample(remote_parent(ts), HIGH_R, "child").trace_state is ts
    plain = TraceState([("vendor", "v")])
    dropped = composite_sampler(composable_traceid_ratio_based(0.0)).should_sample(
        remote_parent(plain), 1, "c"
    )
    assert dropped.trace_state is plain


def test_an_ot_entry_that_cannot_take_th_is_left_without_it(caplog: pytest.LogCaptureFixture) -> None:
    """th that would take ot over 256 characters, or a 33rd entry, is left out, counted
    and logged once; the decision stands and the old th is erased."""
    sampler = composite_sampler(composable_traceid_ratio_based(1.0))
    assert isinstance(sampler, CompositeSampler)
    at_limit = "x:" + "a" * 249 + ";th:8"  # 256 characters: th:0 replaces th:8 in place
    fits = sampler.should_sample(remote_parent(TraceState([("ot", at_limit)])), HIGH_R, "c")
    assert ot_of(fits.trace_state) == "x:" + "a" * 249 + ";th:0"
    full = "x:" + "a" * 254
    with caplog.at_level(logging.WARNING, logger="dsampler.consistent"):
        for _ in range(3):
            result = sampler.should_sample(remote_parent(TraceState([("ot", full)])), HIGH_R, "c")
            assert result.decision is Decision.RECORD_AND_SAMPLE
            assert ot_of(result.trace_state) == full
        crowded = TraceState([(f"k{i}", "v") for i in range(32)])
        result = sampler.should_sample(remote_parent(crowded), HIGH_R, "c")
        assert result.decision.is_sampled()
        assert result.trace_state is crowded
    assert sampler.overflows == 4
    assert sum("256 characters" in r.getMessage() for r in caplog.records) == 1


def test_unreliable_thresholds_draw_fresh_randomness() -> None:
    """An unreliable threshold of 1/2 on one trace ID samples about half the time, and
    never writes th; threshold 0 unreliable samples always, without th."""
    half = composite_sampler(Fixed(SamplingIntent(1 << 55, threshold_reliable=False)))
    results = [half.should_sample(None, HIGH_R, "s") for _ in range(4000)]
    kept = sum(r.decision.is_sampled() for r in results)
    assert abs(kept - 2000) <= 4 * math.sqrt(1000)
    assert all(r.trace_state is None for r in results)
    always = composite_sampler(Fixed(SamplingIntent(0, threshold_reliable=False)))
    assert all(always.should_sample(None, LOW_R, "s").decision.is_sampled() for _ in range(100))


def test_update_trace_state_is_applied_and_junk_ignored() -> None:
    """The intent's tracestate change applies to other entries; th is still the
    composite's; a provider returning something that is no TraceState is ignored."""
    add = SamplingIntent(0, update_trace_state=lambda ts: ts.update("mine", "1"))
    result = composite_sampler(Fixed(add)).should_sample(None, LOW_R, "s")
    assert result.trace_state is not None
    assert (result.trace_state.get("mine"), ot_of(result.trace_state)) == ("1", "th:0")
    junk = SamplingIntent(0, update_trace_state=lambda ts: "junk")  # type: ignore[arg-type,return-value]
    result = composite_sampler(Fixed(junk)).should_sample(None, LOW_R, "s")
    assert ot_of(result.trace_state) == "th:0"


def test_root_results_are_shared_and_read_only() -> None:
    """Roots without attributes get one of two prebuilt results, which refuse changes."""
    sampler = composite_sampler(composable_traceid_ratio_based(0.5))
    rng = random.Random(5)
    results = [sampler.should_sample(None, rng.getrandbits(128), "s") for _ in range(500)]
    assert len({id(r) for r in results}) == 2
    with pytest.raises(AttributeError, match="read-only"):
        results[0].trace_state = None


def test_descriptions_are_the_delegates() -> None:
    """The composite's description is its delegate's, as OpenTelemetry Python's."""
    composable = composable_traceid_ratio_based(0.5)
    assert composite_sampler(composable).get_description() == composable.get_description()
    assert (
        ParentBased(composite_sampler(composable)).get_description().startswith("ParentBased{root:Composable")
    )


def test_refuses_what_is_not_composable() -> None:
    """composite_sampler(0.5) is a ConfigError naming delegate."""
    with pytest.raises(ConfigError, match=r"^delegate: "):
        composite_sampler(0.5)  # type: ignore[arg-type]


def test_opentelemetry_pythons_composables_inside_dsamplers() -> None:
    """Their parent threshold under dsampler's composite sees the parent's th (theirs
    reads it from the trace_state argument, which dsampler's composite passes); their rule
    based with dsampler's predicates and composables decides as dsampler's own."""
    ts = TraceState([("ot", "th:c;rv:ffffffffffffff")])
    ours = composite_sampler(otel_parent_threshold(otel_ratio(0.0)))
    result = ours.should_sample(remote_parent(ts), LOW_R, "child")
    assert result.decision.is_sampled()
    assert threshold_of(result.trace_state) == 0xC << 52
    theirs_alone = otel_composite(otel_parent_threshold(otel_ratio(0.0)))  # the SDK passes no trace_state
    assert threshold_of(theirs_alone.should_sample(remote_parent(ts), LOW_R, "child").trace_state) is None
    mixed = otel_rule_based([(AttributeValuesPredicate("k", ["v"]), composable_traceid_ratio_based(0.25))])
    native = composable_rule_based([(OtelValues("k", ["v"]), otel_ratio(0.25))])
    rng = random.Random(9)
    for _ in range(2000):
        trace_id, attrs = rng.getrandbits(128), rng.choice([{"k": "v"}, {"k": "w"}, None])
        a = composite_sampler(mixed).should_sample(None, trace_id, "s", None, attrs)
        b = composite_sampler(native).should_sample(None, trace_id, "s", None, attrs)
        assert (a.decision, ot_of(a.trace_state)) == (b.decision, ot_of(b.trace_state))


def test_dsamplers_composables_inside_opentelemetry_pythons_composite() -> None:
    """dsampler's intents carry the four attributes theirs reads: their composite over
    dsampler's ratio decides and writes th as over their own."""
    rng = random.Random(11)
    theirs_over_ours = otel_composite(composable_traceid_ratio_based(0.1))
    theirs = otel_composite(otel_ratio(0.1))
    for _ in range(2000):
        trace_id = rng.getrandbits(128)
        a, b = theirs_over_ours.should_sample(None, trace_id, "s"), theirs.should_sample(None, trace_id, "s")
        assert (a.decision, ot_of(a.trace_state)) == (b.decision, ot_of(b.trace_state))


class Raising(Fixed):
    """A composable sampler that fails on every span."""

    def sampling_intent(self, *args: object, **kwargs: object) -> object:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("sampler", "trace_id"),
    [
        (composite_sampler(Raising(None)), HIGH_R),  # the delegate raises
        (composite_sampler(composable_traceid_ratio_based(0.5)), "not an id"),  # a trace ID no integer
    ],
)
def test_a_fault_drops_the_span_and_hands_the_parents_tracestate_on_without_th(
    sampler: Sampler, trace_id: object
) -> None:
    """Whatever goes wrong drops the span, counted; the parent's other entries and ot
    members are handed on, its th erased (a parent with no tracestate: nothing)."""
    ts = TraceState([("vendor", "v"), ("ot", "a:1;th:8")])  # no rv: the ID's randomness decides
    result = sampler.should_sample(remote_parent(ts), trace_id, "child")  # type: ignore[arg-type]
    assert result.decision is Decision.DROP
    assert result.trace_state is not None
    assert (ot_of(result.trace_state), result.trace_state.get("vendor")) == ("a:1", "v")
    bare = sampler.should_sample(remote_parent(None), trace_id, "child")  # type: ignore[arg-type]
    assert bare.decision is Decision.DROP
    assert not bare.trace_state
    assert sampler.faults == 2  # type: ignore[attr-defined]
