"""What telemetry reads of the samplers and pollers it reports on (it imports nothing
of the packages above it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from dsampler.config import SamplingConfig
    from dsampler.engine import CountHistory, Snapshot


class Observed(Protocol):
    """What telemetry reads of a sampler (an :class:`~dsampler.engine.Engine`)."""

    @property
    def config(self) -> SamplingConfig: ...
    @property
    def snapshot(self) -> Snapshot: ...
    @property
    def decision_counts(self) -> CountHistory | None: ...
    @property
    def faults(self) -> int: ...
    @property
    def driver(self) -> object: ...
    def count_decisions(self) -> None: ...


class ObservedPoller(Protocol):
    """What telemetry reads of a remote poller: its service and its polls' outcomes
    (``PollOutcome`` -> how many)."""

    service: str

    @property
    def outcomes(self) -> Mapping[Any, int]: ...
