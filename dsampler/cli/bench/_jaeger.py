"""``is_sampled`` cases: dsampler.jaeger's samplers against jaeger-client's own.

jaeger-client is optional (the ``jaeger`` extra): without it the group is skipped with
a note. Both sides get the same arguments and the same 64-bit trace ID, sampled by
jaeger-client's rule (which ``dsampler.jaeger`` uses by default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dsampler.cli.bench._harness import Case
from dsampler.cli.bench._rows import NAME, Group, Ids, Row

OPERATIONS = 2000
#: One of the 2,000 operations, not the first.
OPERATION = "op-1234"


def _strategies(rate: float) -> dict[str, Any]:
    """An operationSampling strategy with 2,000 operations (the default max_operations)."""
    return {
        "defaultSamplingProbability": rate,
        "defaultLowerBoundTracesPerSecond": 1.0,
        "perOperationStrategies": [
            {"operation": f"op-{i}", "probabilisticSampling": {"samplingRate": rate}}
            for i in range(OPERATIONS)
        ],
    }


def _drain(sampler: Any, trace_id: int) -> Callable[[], None]:
    """Spends the limiter's bucket, so that the timed calls are the saturated case."""

    def drain() -> None:
        for _ in range(10_000):
            if not sampler.is_sampled(trace_id, NAME)[0]:
                return

    return drain


def _decided(expected: bool) -> Callable[[object], bool]:
    def check(result: Any) -> bool:
        return bool(result[0] is expected)

    return check


def _import_jaeger_client() -> Any:
    """jaeger-client's sampler module, or a sentence saying why it cannot be used."""
    try:
        from jaeger_client import sampler
    except ImportError:
        return "jaeger-client is not installed (dsampler's jaeger extra: pip install jaeger-client six)"
    except Exception as exc:  # it imports tornado and six; a broken install is not our failure
        return f"jaeger-client failed to import: {type(exc).__name__}: {exc}"
    return sampler


def _specs(rate: float) -> dict[str, tuple[str, Callable[[Any], Any], str, bool]]:
    """case -> (label, factory given one side's module, operation, sampled?)."""
    return {
        "probabilistic": (
            f"ProbabilisticSampler({rate})",
            lambda m: m.ProbabilisticSampler(rate),
            NAME,
            True,
        ),
        "ratelimiting": (
            "RateLimitingSampler(100/s), saturated",
            lambda m: m.RateLimitingSampler(100),
            NAME,
            False,
        ),
        "guaranteed": (
            f"GuaranteedThroughputProbabilisticSampler(1/s, {rate})",
            lambda m: m.GuaranteedThroughputProbabilisticSampler(NAME, 1.0, rate),
            NAME,
            True,
        ),
        "adaptive": (
            f"AdaptiveSampler, {OPERATIONS:,} operations",
            lambda m: m.AdaptiveSampler(_strategies(rate), OPERATIONS),
            OPERATION,
            True,
        ),
    }


def group(ids: Ids) -> Group | str:
    """The jaeger group, or why it is skipped."""
    jc = _import_jaeger_client()
    if isinstance(jc, str):
        return jc
    from dsampler import jaeger as dj

    tid = ids.jaeger_sampled
    cases: list[Case] = []
    rows: list[Row] = []
    for key, (label, make, operation, sampled) in _specs(ids.rate).items():
        for side, module, who in (("dsampler", dj, "dsampler.jaeger"), ("client", jc, "jaeger-client")):
            sampler = make(module)
            impl = f"{who} {type(sampler).__name__}"
            case = Case(f"jaeger.{side}.{key}", impl, sampler.is_sampled, (tid, operation), _decided(sampled))
            # The one case that drops is the saturated limiter.
            cases.append(case if sampled else replace(case, prepare=_drain(sampler, tid)))
        rows.append(Row("jaeger", label, f"jaeger.dsampler.{key}", f"jaeger.client.{key}"))
    title = "jaeger-client samplers, is_sampled: dsampler.jaeger vs jaeger-client's own, same arguments"
    return Group("jaeger", title, tuple(cases), tuple(rows))
