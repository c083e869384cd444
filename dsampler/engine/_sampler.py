"""EngineSampler: an OpenTelemetry sampler that holds an engine and decides with the
engine's own ``should_sample``, bound per instance, so a decision costs what the
engine's costs. The engine's hooks (overlays, snapshot, counts, shares) stay the
engine's, for the owners and telemetry that hold it (``sampler.engine``)."""

from __future__ import annotations

from collections.abc import Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.config import SamplingConfig
from dsampler.engine._engine import Engine


class EngineSampler(Sampler):
    """What a sampler built on an :class:`Engine` shows its user: the decision, the
    configuration in force, the faults.

    Attributes:
        engine: the engine that decides (what owners and telemetry use).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.should_sample = engine.should_sample  # type: ignore[method-assign]

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
        # Shadowed per instance in __init__ by the deciding sampler's own bound method.
        engine = self.engine
        return engine.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force (its owners' fields merged), with its ``version``."""
        return self.engine.config

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included; a
        JaegerRemoteSampler's initial sampler's faults too)."""
        return self.engine.faults

    def get_description(self) -> str:
        return self.engine.get_description()
