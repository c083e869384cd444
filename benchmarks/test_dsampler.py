"""DSampler (the facade over the configuration store) next to its peers, in the same run.

Groups (``benchmarks/report.py`` renders each as a table):

- ``dsampler``: DSampler with no rules against ``RatioSampler`` and OTel's
  ``TraceIdRatioBased`` (root spans), and against ``ParentBasedSampler`` and OTel's
  ``ParentBased(TraceIdRatioBased)`` (child of a sampled parent).
- ``rules``: DSampler with ten rules of mixed kinds against DSampler with none, same span.
- ``sdk``: span start+end through a real ``TracerProvider`` (no span processor), DSampler
  against OTel's ``ParentBased(TraceIdRatioBased)``, at the same rate and trace IDs.
- ``publish``: the cost of ``sampler.update(rate=...)``, small and large configurations.

Each benchmark records ``impl`` and ``case`` in ``extra_info`` and asserts the decision
it times; no assertion looks at a timing.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import Decision, ParentBased, Sampler, TraceIdRatioBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context
from pytest_benchmark.fixture import BenchmarkFixture

import dsampler

if TYPE_CHECKING:
    from conftest import BenchIds

NAME = "GET /x"
RESOURCE: Mapping[str, Any] = {"service.name": "bench", "cloud.region": "us-east-1"}
# Same settings as test_decision.py: 100 us rounds keep the timer's cost out of the medians.
SCALAR = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 20_000}
SPANS = {"min_time": 1e-4, "warmup": True, "warmup_iterations": 5_000}
PUBLISH = {"warmup": True, "warmup_iterations": 20}

#: Ten rules, one of each kind of match and action. With RESOURCE (us-east-1), "eu only"
#: is compiled away, so a span that matches nothing runs the other nine predicates.
TEN_RULES: list[dict[str, Any]] = [
    {"name": "health", "match": {"span_name": "GET /healthz"}, "action": "drop"},
    {"name": "internal", "match": {"span_name": {"prefix": "GET /internal/"}}, "action": {"sample": 0.01}},
    {"name": "metrics", "match": {"span_name": {"glob": "* /metrics*"}}, "action": "drop"},
    {"name": "consumers", "match": {"span_kind": "consumer"}, "action": {"sample": 0.05}},
    {"name": "acme", "match": {"attributes": {"tenant": "acme"}}, "action": {"sample": 1.0}},
    {
        "name": "errors",
        "match": {"attributes": {"http.response.status_code": 500}},
        "action": {"sample": 1.0},
    },
    {"name": "eu only", "match": {"resource": {"cloud.region": "eu-west-1"}}, "action": {"sample": 0.5}},
    {"name": "batch", "match": {"span_name": {"prefix": "POST /batch"}}, "action": {"rate_limit": 10}},
    {
        "name": "beta",
        "match": {"attributes": {"user.tier": {"glob": "beta-*"}}},
        "action": {"rollout": {"steps": [{"after": "0s", "rate": 0.1}, {"after": "1h", "rate": 0.5}]}},
    },
    {
        "name": "checkout",
        "match": {"span_name": ["POST /checkout", "POST /cart"], "span_kind": "server"},
        "action": {"sample": 0.5},
    },
]
#: A server span with attributes every attribute rule looks at, none with a wanted value.
SPAN_ATTRIBUTES: Mapping[str, Any] = {
    "tenant": "other",
    "http.response.status_code": 200,
    "user.tier": "gold",
}
BIG_OPERATIONS = 2000


def _label(benchmark: BenchmarkFixture, impl: str, case: str) -> None:
    benchmark.extra_info.update(impl=impl, case=case)


# -- DSampler with no rules against RatioSampler and OTel ---------------------------------


def _root_peer(impl: str, rate: float) -> Sampler:
    if impl == "dsampler":
        return dsampler.DSampler(rate=rate, resource=RESOURCE, sampler_tags=True)
    if impl == "ratio":
        return dsampler.RatioSampler(rate, sampler_tags=True)
    return TraceIdRatioBased(rate)


@pytest.mark.benchmark(group="dsampler", **SCALAR)
@pytest.mark.parametrize("impl", ["dsampler", "ratio", "otel"])
@pytest.mark.parametrize("case", ["root sampled", "root dropped"])
def test_dsampler_root(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures a root span's ``should_sample`` through DSampler (no rules) and its peers."""
    _label(benchmark, impl, case)
    sampled = case == "root sampled"
    sampler = _root_peer(impl, ids.rate)

    result = benchmark(sampler.should_sample, None, ids.sampled if sampled else ids.dropped, NAME)

    assert result.decision is (Decision.RECORD_AND_SAMPLE if sampled else Decision.DROP)
    if impl != "otel" and sampled:
        assert result.attributes == {"sampler.type": "probabilistic", "sampler.param": ids.rate}
    if not sampled:
        assert not result.attributes


def _child_peer(impl: str, rate: float) -> Sampler:
    if impl == "dsampler":
        return dsampler.DSampler(
            rate=rate, resource=RESOURCE, sampler_tags=True
        )  # parent_based is the default
    if impl == "parentbased":
        return dsampler.ParentBasedSampler(dsampler.RatioSampler(rate))
    return ParentBased(TraceIdRatioBased(rate))


@pytest.mark.benchmark(group="dsampler", **SCALAR)
@pytest.mark.parametrize("impl", ["dsampler", "parentbased", "otel"])
@pytest.mark.parametrize("case", ["child local", "child remote"])
def test_dsampler_child(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures ``should_sample`` for a child of a sampled parent through DSampler's default
    parent-based mode and its peers."""
    _label(benchmark, impl, case)
    parent = SpanContext(ids.dropped, ids.span_id, case == "child remote", TraceFlags(TraceFlags.SAMPLED))
    context: Context = set_span_in_context(NonRecordingSpan(parent))
    sampler = _child_peer(impl, ids.rate)

    # The trace ID alone would be dropped: a sampled result shows the parent was followed.
    result = benchmark(sampler.should_sample, context, ids.dropped, NAME)

    assert result.decision is Decision.RECORD_AND_SAMPLE
    assert not result.trace_state


# -- ten rules -------------------------------------------------------------------------


def _rules_sampler(impl: str, rate: float, resource: Mapping[str, Any] = RESOURCE) -> dsampler.DSampler:
    rules = TEN_RULES if impl == "ten-rules" else []
    return dsampler.DSampler(rate=rate, rules=rules, resource=resource, sampler_tags=True)


@pytest.mark.benchmark(group="rules", **SCALAR)
@pytest.mark.parametrize("impl", ["ten-rules", "no-rules"])
@pytest.mark.parametrize("case", ["no match, dropped", "no match, sampled", "first rule matches"])
def test_rules(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures a server span with 3 attributes through DSampler with ten rules (no match:
    every compiled rule is evaluated; or the first one matches) and with none."""
    _label(benchmark, impl, case)
    sampler = _rules_sampler(impl, ids.rate)
    name = "GET /healthz" if case == "first rule matches" else NAME
    tid = ids.sampled if case == "no match, sampled" else ids.dropped
    args = (None, tid, name, SpanKind.SERVER, SPAN_ATTRIBUTES)

    result = benchmark(sampler.should_sample, *args)

    route = sampler.explain(tid, name, SpanKind.SERVER, SPAN_ATTRIBUTES)["source"]
    if case == "no match, sampled":
        assert result.decision is Decision.RECORD_AND_SAMPLE
        assert dict(result.attributes) == {
            **SPAN_ATTRIBUTES,
            "sampler.type": "probabilistic",
            "sampler.param": 0.1,
        }
    else:
        assert result.decision is Decision.DROP
    if impl == "ten-rules" and case == "first rule matches":
        assert route == "rules[0] (health)"
        # The rule decided, not the rate: the same span with a trace ID the rate samples is dropped too.
        assert sampler.should_sample(*args[:1], ids.sampled, *args[2:]).decision is Decision.DROP
    else:
        assert route == "default rate"  # so "eu only" (which matches any span) was compiled away
    if impl == "ten-rules":
        # In eu-west-1 the same configuration keeps the resource rule: it decides this span.
        eu = _rules_sampler(impl, ids.rate, {**RESOURCE, "cloud.region": "eu-west-1"})
        expected = "rules[0] (health)" if case == "first rule matches" else "rules[6] (eu only)"
        assert eu.explain(tid, name, SpanKind.SERVER, SPAN_ATTRIBUTES)["source"] == expected


# -- span start+end through the SDK ----------------------------------------------------


class FixedTraceId(IdGenerator):
    """Every trace gets the same ID (so both peers make the same decision on every
    span); span IDs are random from a fixed seed."""

    def __init__(self, trace_id: int) -> None:
        self.trace_id = trace_id
        self._rng = random.Random(1)

    def generate_trace_id(self) -> int:
        return self.trace_id

    def generate_span_id(self) -> int:
        return self._rng.getrandbits(64) | 1


def _provider(impl: str, rate: float, trace_id: int, tags: bool) -> TracerProvider:
    sampler: Sampler
    if impl == "dsampler":
        sampler = dsampler.DSampler(rate=rate, resource=RESOURCE, sampler_tags=tags)
    else:
        sampler = ParentBased(TraceIdRatioBased(rate))
    return TracerProvider(sampler=sampler, id_generator=FixedTraceId(trace_id), shutdown_on_exit=False)


@pytest.mark.benchmark(group="sdk", **SPANS)
@pytest.mark.parametrize("impl", ["dsampler", "otel"])
@pytest.mark.parametrize(
    "case",
    [
        "root sampled",
        "root dropped",
        "root+child sampled",
        "root+child dropped",
        "root sampled, sampler_tags=True",
        "root+child sampled, sampler_tags=True",
    ],
)
def test_sdk_spans(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """Measures ``tracer.start_span(...)`` then ``span.end()`` through a real TracerProvider
    without span processors: one root span, or a root and one child of it; DSampler with
    its defaults (no attributes, as OTel's samplers) and with ``sampler_tags=True``."""
    _label(benchmark, impl, case)
    tags = case.endswith("sampler_tags=True")
    case = case.removesuffix(", sampler_tags=True")
    sampled = case.endswith("sampled")
    tracer = _provider(impl, ids.rate, ids.sampled if sampled else ids.dropped, tags).get_tracer("bench")
    root_context = Context()

    def root_only() -> tuple[Any, ...]:
        span = tracer.start_span(NAME, root_context)
        span.end()
        return (span,)

    def root_and_child() -> tuple[Any, ...]:
        root = tracer.start_span(NAME, root_context)
        child = tracer.start_span("child", set_span_in_context(root))
        child.end()
        root.end()
        return root, child

    spans = benchmark(root_and_child if case.startswith("root+child") else root_only)

    for span in spans:
        assert span.get_span_context().trace_flags.sampled is sampled
        assert span.get_span_context().trace_id == spans[0].get_span_context().trace_id
    if sampled:  # recorded spans (a dropped one is a NonRecordingSpan: no parent, no times)
        assert all(span.end_time is not None for span in spans)
        if len(spans) == 2:
            assert spans[1].parent.span_id == spans[0].get_span_context().span_id
        expected = {"sampler.type": "probabilistic", "sampler.param": ids.rate}
        assert (expected.items() <= dict(spans[0].attributes).items()) is (impl == "dsampler" and tags)


# -- the cost of a publish -------------------------------------------------------------


def _big_config() -> dict[str, Any]:
    """2,000 operations (every other one with its own lower bound) and the ten rules."""
    operations: dict[str, Any] = {
        f"op{i}": {"rate": 0.5, "lower_bound_per_second": 1.0} if i % 2 else 0.25
        for i in range(BIG_OPERATIONS)
    }
    return {"rate": 0.1, "operations": operations, "rules": TEN_RULES}


@pytest.mark.benchmark(group="publish", **PUBLISH)
@pytest.mark.parametrize("case", ["small config", "2,000 operations + 10 rules"])
def test_publish(benchmark: BenchmarkFixture, ids: BenchIds, case: str) -> None:
    """Measures ``sampler.update(rate=...)`` (validate, compile, publish a new version),
    alternating two rates."""
    _label(benchmark, "dsampler", case)
    big = case != "small config"
    sampler = dsampler.DSampler(_big_config() if big else {"rate": 0.1}, resource=RESOURCE)
    rates = itertools.cycle((0.2, 0.1))
    calls = itertools.count(1)

    def publish() -> dsampler.SamplingConfig:
        next(calls)
        return sampler.update(rate=next(rates))

    config = benchmark(publish)

    published = next(calls) - 1
    assert config is sampler.config
    assert config.version == 1 + published
    assert config.rate == (0.2 if published % 2 else 0.1)
    kept = range(max(1, config.version - 15), config.version + 1)  # the default ring of 16
    assert [c.version for c in sampler.history] == list(kept)
    explained = sampler.explain(ids.dropped, NAME)
    assert explained["source"] == "default rate"
    assert explained["rate"] == config.rate
    if big:
        assert len(config.operations) == BIG_OPERATIONS
        assert len(config.rules) == len(TEN_RULES)
        op = sampler.explain(ids.dropped, "op7")
        assert op["source"] == "operations['op7']"
        assert op["rate"] == 0.5
        assert op["lower_bound_per_second"] == 1.0


# -- rule counts against OTel ------------------------------------------------------------


def matching_rule() -> dict[str, Any]:
    """A rule that matches the benchmark's span when it is named ``GET /healthz``."""
    return {"match": {"span_name": "GET /healthz"}, "action": {"sample": 0.5}}


def many_rules(n: int) -> list[dict[str, Any]]:
    """``n`` rules of the kinds a configuration grows (exact span names, prefixes,
    attribute values, a kind with a name), none of which matches the benchmark's span."""
    makers = (
        lambda i: {"match": {"span_name": f"GET /exact/{i}"}, "action": "drop"},
        lambda i: {"match": {"span_name": {"prefix": f"GET /prefix/{i}/"}}, "action": {"sample": 0.5}},
        lambda i: {"match": {"attributes": {"tenant": f"tenant-{i}"}}, "action": {"sample": 1.0}},
        lambda i: {"match": {"span_kind": "consumer", "span_name": f"queue-{i}"}, "action": {"sample": 0.2}},
    )
    return [makers[i % len(makers)](i) for i in range(n)]


@pytest.mark.benchmark(group="rules-count", **SCALAR)
@pytest.mark.parametrize("impl", ["0 rules", "10 rules", "100 rules", "1000 rules", "otel"])
@pytest.mark.parametrize("case", ["dropped", "sampled"])
def test_rule_count(benchmark: BenchmarkFixture, ids: BenchIds, impl: str, case: str) -> None:
    """A server span with 3 attributes through DSampler with 0 to 1,000 rules that do not
    match it, against OpenTelemetry's TraceIdRatioBased at the same rate."""
    _label(benchmark, impl, case)
    sampler: Sampler
    if impl == "otel":
        sampler = TraceIdRatioBased(ids.rate)
    else:
        sampler = dsampler.DSampler(
            rate=ids.rate, rules=many_rules(int(impl.split(maxsplit=1)[0])), resource=RESOURCE
        )
    tid = ids.sampled if case == "sampled" else ids.dropped
    result = benchmark(sampler.should_sample, None, tid, NAME, SpanKind.SERVER, SPAN_ATTRIBUTES)
    assert result.decision is (Decision.RECORD_AND_SAMPLE if case == "sampled" else Decision.DROP)
    if impl != "otel":
        assert sampler.explain(tid, NAME, SpanKind.SERVER, SPAN_ATTRIBUTES)["source"] == "default rate"  # type: ignore[attr-defined]
