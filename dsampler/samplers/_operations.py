"""Per-operation sampling with a guaranteed lower bound (Jaeger's per-operation and
adaptive strategies), as an OpenTelemetry sampler."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import DEFAULT_MAX_OPERATIONS
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.config import DEFAULT_RATE, parse_config
from dsampler.engine import Engine
from dsampler.hashing import DEFAULT_SCHEME
from dsampler.telemetry import track


class PerOperationSampler(Sampler):
    """Per span name: a probabilistic rate plus a lower bound of traces per second.

    A root span is sampled if the trace-ID rule samples it at its operation's rate (a
    lower-bound credit is spent anyway), else if its operation's lower bound has a
    credit. Names not listed are decided at ``default_rate``, with a lower bound of their
    own when ``default_lower_bound_per_second`` is above 0, up to ``max_operations``.
    :meth:`update` keeps limiter balances (pro-rated when a bound changes).

    Args:
        operations: ``{name: rate}`` or ``{name: {"rate": r, "lower_bound_per_second": n}}``.
        default_rate: for other names (default 0.001).
        default_lower_bound_per_second: Jaeger's ``defaultLowerBoundTracesPerSecond``.
        max_operations: most operations tracked (default 2000).
        hash: hash scheme (default ``fnv1a``).
        sampler_tags: tag sampled spans with ``sampler.type`` (``probabilistic`` or
            ``lowerbound``) and ``sampler.param``, as Jaeger's clients do (default off).
        clock: time source of the lower-bound buckets.

    Raises:
        ConfigError: an invalid rate, bound or name, naming it.
    """

    def __init__(
        self,
        operations: Mapping[str, float | Mapping[str, Any]] | None = None,
        *,
        default_rate: float = DEFAULT_RATE,
        default_lower_bound_per_second: float = 0.0,
        max_operations: int = DEFAULT_MAX_OPERATIONS,
        hash: str = DEFAULT_SCHEME,
        sampler_tags: bool = False,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        config = parse_config(
            {
                "rate": default_rate,
                "hash": hash,
                "parent_based": False,
                "max_operations": max_operations,
                "default_lower_bound_per_second": default_lower_bound_per_second,
                "operations": dict(operations or {}),
                "sampler_tags": sampler_tags,
            }
        )
        self._sampler = Engine(config, resource={}, clock=clock, name="PerOperationSampler")
        track(self._sampler)

    def update(
        self,
        operations: Mapping[str, float | Mapping[str, Any]] | None = None,
        *,
        default_rate: float | None = None,
        default_lower_bound_per_second: float | None = None,
    ) -> None:
        """Apply new strategies in place; the arguments left out keep their values.

        Raises:
            ConfigError: a change is invalid; nothing changes.
        """
        changes: dict[str, Any] = {
            "operations": None if operations is None else dict(operations),
            "rate": default_rate,
            "default_lower_bound_per_second": default_lower_bound_per_second,
        }
        self._sampler.update(**{k: v for k, v in changes.items() if v is not None})

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included)."""
        return self._sampler.faults

    @property
    def operations(self) -> Mapping[str, Any]:
        """The configured operations and their strategies."""
        return self._sampler.config.operations

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        return self._sampler.should_sample(parent_context, trace_id, name, kind, attributes, links)

    def get_description(self) -> str:
        c = self._sampler.config
        return (
            f"PerOperationSampler{{default_rate={c.rate},operations={len(c.operations)},"
            f"default_lower_bound_per_second={c.default_lower_bound_per_second},hash={c.hash}}}"
        )
