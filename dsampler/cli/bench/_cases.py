"""``should_sample`` cases: dsampler's OpenTelemetry samplers against OpenTelemetry's.

Groups: root spans (``RatioSampler`` against ``TraceIdRatioBased``), children of a
sampled parent (``ParentBasedSampler`` and ``DSampler``'s default against
``ParentBased(TraceIdRatioBased)``), ``DSampler`` with ten rules, and rate limiting
(OpenTelemetry Python has no rate-limiting sampler, so the peer is ``RatioSampler``
making the same decision).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Decision, ParentBased, Sampler, TraceIdRatioBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context

from dsampler.cli.bench._harness import Case
from dsampler.cli.bench._rows import NAME, Group, Ids, Row

#: dsampler's target for root and child decisions: at most half of OTel's cost.
DECISION_FIGURE = 0.5
#: Passed explicitly, so that no ``Resource.create()`` (environment, hostname) runs.
RESOURCE: Mapping[str, Any] = {"service.name": "dsampler-bench", "cloud.region": "us-east-1"}
#: Ten rules, one of each kind of match and action; the span of the rules group
#: (``GET /x``, server, :data:`SPAN_ATTRIBUTES`) matches none of them, so every rule the
#: resource leaves in (all but "eu") is evaluated; ``GET /healthz`` matches the first.
TEN_RULES: list[dict[str, Any]] = [
    {"name": "health", "match": {"span_name": "GET /healthz"}, "action": "drop"},
    {"name": "admin", "match": {"span_name": {"prefix": "GET /admin/"}}, "action": {"sample": 0.01}},
    {"name": "static", "match": {"span_name": {"glob": "GET /static/*"}}, "action": "drop"},
    {"name": "queue", "match": {"span_kind": "consumer"}, "action": {"sample": 0.05}},
    {"name": "vip", "match": {"attributes": {"tenant": "acme"}}, "action": {"sample": 1.0}},
    {"name": "5xx", "match": {"attributes": {"http.response.status_code": 500}}, "action": {"sample": 1.0}},
    {"name": "eu", "match": {"resource": {"cloud.region": "eu-west-1"}}, "action": {"sample": 0.5}},
    {"name": "bulk", "match": {"span_name": {"prefix": "POST /bulk"}}, "action": {"rate_limit": 10}},
    {
        "name": "beta",
        "match": {"attributes": {"user.tier": {"glob": "beta-*"}}},
        "action": {"rollout": {"steps": [{"after": "0s", "rate": 0.1}, {"after": "1h", "rate": 0.5}]}},
    },
    {
        "name": "pay",
        "match": {"span_name": ["POST /pay", "POST /refund"], "span_kind": "server"},
        "action": {"sample": 0.5},
    },
]
SPAN_ATTRIBUTES: Mapping[str, Any] = {
    "tenant": "other",
    "http.response.status_code": 200,
    "user.tier": "gold",
}


def is_sampled(result: Any) -> bool:
    return result.decision is Decision.RECORD_AND_SAMPLE


def is_dropped(result: Any) -> bool:
    return result.decision is Decision.DROP


def dsampler(stack: ExitStack, rate: float, **settings: Any) -> Any:
    """A DSampler (closed with ``stack``) that never reads the environment for its resource."""
    from dsampler import DSampler

    sampler = DSampler(rate=rate, resource=RESOURCE, **settings)
    stack.callback(sampler.close)
    return sampler


def _decide(key: str, impl: str, sampler: Sampler, ids: Ids, sampled: bool, *rest: Any) -> Case:
    """A root decision of ``sampler`` on the ID both sides sample (or both drop)."""
    args = (None, ids.sampled if sampled else ids.dropped, NAME, *rest)
    return Case(key, impl, sampler.should_sample, args, is_sampled if sampled else is_dropped)


def _root(ids: Ids) -> Group:
    from dsampler.samplers import RatioSampler

    ours, peer = RatioSampler(ids.rate), TraceIdRatioBased(ids.rate)
    cases = (
        _decide("ratio.sampled", f"dsampler RatioSampler({ids.rate})", ours, ids, True),
        _decide("ratio.dropped", f"dsampler RatioSampler({ids.rate})", ours, ids, False),
        _decide("otel.ratio.sampled", f"OTel TraceIdRatioBased({ids.rate})", peer, ids, True),
        _decide("otel.ratio.dropped", f"OTel TraceIdRatioBased({ids.rate})", peer, ids, False),
    )
    rows = (
        Row("root", "sampled", "ratio.sampled", "otel.ratio.sampled", DECISION_FIGURE),
        Row("root", "dropped", "ratio.dropped", "otel.ratio.dropped", DECISION_FIGURE),
    )
    title = f"root span should_sample: RatioSampler({ids.rate}) vs OTel TraceIdRatioBased({ids.rate})"
    return Group("root", title, cases, rows)


def _parent(ids: Ids, remote: bool) -> Context:
    """A sampled parent whose trace ID the rate alone would drop: sampled means followed."""
    parent = SpanContext(ids.dropped, ids.span_id, remote, TraceFlags(TraceFlags.SAMPLED))
    return set_span_in_context(NonRecordingSpan(parent))


def _child(stack: ExitStack, ids: Ids) -> Group:
    from dsampler.samplers import ParentBasedSampler, RatioSampler

    samplers = {
        "parentbased": (
            "dsampler ParentBasedSampler(RatioSampler)",
            ParentBasedSampler(RatioSampler(ids.rate)),
        ),
        "dsampler": ("dsampler DSampler (parent-based by default)", dsampler(stack, ids.rate)),
        "otel.parentbased": ("OTel ParentBased(TraceIdRatioBased)", ParentBased(TraceIdRatioBased(ids.rate))),
    }
    cases = tuple(
        Case(
            f"{key}.{where}",
            impl,
            sampler.should_sample,
            (_parent(ids, where == "remote"), ids.dropped, NAME),
            is_sampled,
        )
        for key, (impl, sampler) in samplers.items()
        for where in ("local", "remote")
    )
    rows = tuple(
        Row(
            "child",
            f"{label}, {where} parent",
            f"{key}.{where}",
            f"otel.parentbased.{where}",
            DECISION_FIGURE,
        )
        for key, label in (("parentbased", "ParentBasedSampler"), ("dsampler", "DSampler"))
        for where in ("local", "remote")
    )
    title = f"child of a sampled parent: vs OTel ParentBased(TraceIdRatioBased({ids.rate}))"
    return Group("child", title, cases, rows)


def _rules(stack: ExitStack, ids: Ids) -> Group:
    server = (SpanKind.SERVER, SPAN_ATTRIBUTES)
    plain, ruled = dsampler(stack, ids.rate), dsampler(stack, ids.rate, rules=TEN_RULES)
    otel = ParentBased(TraceIdRatioBased(ids.rate))
    # The first rule drops GET /healthz whatever the trace ID: given the sampled one,
    # a drop shows the rule decided.
    first = (None, ids.sampled, "GET /healthz", *server)
    cases = (
        _decide("rules.none", "dsampler DSampler, no rules", plain, ids, False, *server),
        _decide("rules.ten", "dsampler DSampler, ten rules", ruled, ids, False, *server),
        Case("rules.first", "dsampler DSampler, ten rules", ruled.should_sample, first, is_dropped),
        _decide("otel.rules", "OTel ParentBased(TraceIdRatioBased)", otel, ids, False, *server),
    )
    rows = (
        Row("rules", "DSampler, no rules", "rules.none", "otel.rules"),
        Row("rules", "DSampler, 10 rules, none matches", "rules.ten", "otel.rules"),
        Row("rules", "DSampler, 10 rules, the first drops", "rules.first", "otel.rules"),
    )
    title = (
        "rules: a server span with 3 attributes, dropped; vs OTel ParentBased(TraceIdRatioBased), no rules"
    )
    return Group("rules", title, cases, rows)


def _drain(sampler: Any, ids: Ids) -> Callable[[], None]:
    """Spends the limiter's bucket, so that the timed calls are the saturated case."""

    def drain() -> None:
        for _ in range(10_000):
            if not sampler.should_sample(None, ids.sampled, NAME).decision.is_sampled():
                return

    return drain


def _ratelimit(ids: Ids) -> Group:
    from dsampler.samplers import RateLimitingSampler

    saturated, credit = RateLimitingSampler(100), RateLimitingSampler(1e9)
    cases = (
        Case(
            "ratelimit.saturated",
            "dsampler RateLimitingSampler(100)",
            saturated.should_sample,
            (None, ids.sampled, NAME),
            is_dropped,
            _drain(saturated, ids),
        ),
        Case(
            "ratelimit.credit",
            "dsampler RateLimitingSampler(1e9)",
            credit.should_sample,
            (None, ids.sampled, NAME),
            is_sampled,
        ),
    )
    rows = (
        Row("ratelimit", "RateLimitingSampler(100/s), saturated", "ratelimit.saturated", "ratio.dropped"),
        Row(
            "ratelimit", "RateLimitingSampler(1e9/s), credit every call", "ratelimit.credit", "ratio.sampled"
        ),
    )
    title = (
        "rate limiting: OTel Python has no rate-limiting sampler; "
        f"the peer is dsampler RatioSampler({ids.rate}) making the same decision"
    )
    return Group("ratelimit", title, cases, rows)


def groups(stack: ExitStack, ids: Ids) -> list[Group]:
    """The decision groups, in the order of the report."""
    return [_root(ids), _child(stack, ids), _rules(stack, ids), _ratelimit(ids)]
