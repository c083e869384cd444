"""EngineSampler: DSampler's face to its user, an OpenTelemetry sampler that holds an
engine and decides with the engine's own ``should_sample``, bound per instance: a
decision costs what the engine's costs. The engine's hooks (overlays, snapshot, counts,
shares) stay the engine's, for the owners and telemetry that hold it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace.sampling import Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler.config import SamplingConfig
from dsampler.engine import Engine


class EngineSampler(Sampler):
    """What a sampler built on an :class:`Engine` shows its user: the decision, the
    configuration in force and its history, the faults."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.should_sample = engine.should_sample  # type: ignore[method-assign]

    @property
    def engine(self) -> Engine:
        """The engine that decides (what owners and telemetry use)."""
        return self._engine

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
        # Shadowed per instance in __init__ by the engine's own bound method.
        engine = self._engine
        return engine.should_sample(parent_context, trace_id, name, kind, attributes, links, trace_state)

    def explain(
        self, trace_id: int, name: str, kind: SpanKind | None = None, attributes: Attributes = None
    ) -> dict[str, Any]:
        """How a root span would be decided now, without spending any token."""
        return self._engine.explain(trace_id, name, kind, attributes)

    @property
    def config(self) -> SamplingConfig:
        """The configuration in force (its owners' fields merged), with its ``version``."""
        return self._engine.config

    @property
    def base(self) -> SamplingConfig:
        """The base configuration in force: the configuration without its owners' fields."""
        return self._engine.base

    @property
    def history(self) -> tuple[SamplingConfig, ...]:
        """The last published configurations, oldest first."""
        return self._engine.history

    @property
    def resource(self) -> Mapping[str, Any]:
        """This process's resource attributes, as rules match them."""
        return self._engine.resource

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included)."""
        return self._engine.faults

    def get_description(self) -> str:
        return self._engine.get_description()
