"""What a sampler does with input it cannot read: decide anyway, count the fault, log
the first one. ``should_sample`` never raises."""

from __future__ import annotations

import logging
import operator

from opentelemetry.sdk.trace.sampling import Sampler

__all__ = ["FaultCountingSampler", "FaultLog", "integer_value"]


def integer_value(trace_id: object) -> int | None:
    """The int value of an integer that is not an ``int`` (numpy's ``uint64``...), else
    None: such trace IDs are decided by value whether or not the numba kernels serve
    (which would take a numpy integer directly, while the Python schemes cannot)."""
    if isinstance(trace_id, int):
        return None
    try:
        return operator.index(trace_id)  # type: ignore[arg-type]
    except TypeError:
        return None


class FaultLog:
    """Counts a sampler's internal faults and logs the first one with its traceback.

    ``should_sample`` must never raise, so a fault becomes a fallback decision; the
    count (``faults``) and the single log line are how it stays visible.
    """

    __slots__ = ("_logger", "count", "owner")

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.count = 0
        self._logger = logging.getLogger("dsampler.samplers")

    def record(self) -> None:
        """Call from inside an ``except`` block."""
        self.count += 1  # a lost increment under a race is acceptable for a diagnostic
        if self.count == 1:
            self._logger.warning(
                "dsampler: %s fell back after an internal fault; further faults are only counted",
                self.owner,
                exc_info=True,
            )


class FaultCountingSampler(Sampler):
    """Base of dsampler's samplers: exposes the fault count of a :class:`FaultLog`."""

    _fault_log: FaultLog

    @property
    def faults(self) -> int:
        """How many decisions fell back after an internal fault (bad input included)."""
        return self._fault_log.count
