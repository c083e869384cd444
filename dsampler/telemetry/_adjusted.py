"""Adjusted counts: the sum of ``1/p`` over sampled local roots carrying a ``th``
(Horvitz-Thompson), its variance ``sum (1 - p) / p**2``, and roots sampled without one.
"""

from __future__ import annotations

import math
import threading
from typing import Final

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from dsampler import _fork
from dsampler.consistent import MAX_THRESHOLD, threshold_of

_SCALE: Final = float(MAX_THRESHOLD)


class AdjustedCounts(SpanProcessor):
    """A span processor summing over the local root spans that end sampled.

    Attributes:
        weighted: the sum of ``1/p`` over those carrying a valid ``th``.
        variance: the estimate's variance, ``sum (1 - p) / p**2`` over them.
        stated: how many carried a ``th``.
        unstated: how many carried none (each counted once, apart).
    """

    def __init__(self) -> None:
        self.weighted = 0.0
        self.variance = 0.0
        self.stated = 0
        self.unstated = 0
        self._lock = threading.Lock()
        _fork.register(self._reset_after_fork)

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()

    def on_end(self, span: ReadableSpan) -> None:
        parent, context = span.parent, span.context
        local_root = parent is None or parent.is_remote
        if local_root and context is not None and context.trace_flags.sampled:
            self.add(threshold_of(context.trace_state))

    def add(self, threshold: int | None) -> None:
        """Count one sampled root with ``threshold`` (None: no ``th``)."""
        with self._lock:
            if threshold is None or not 0 <= threshold < MAX_THRESHOLD:
                self.unstated += 1
                return
            weight = _SCALE / (MAX_THRESHOLD - threshold)
            self.weighted += weight
            self.variance += weight * (weight - 1.0)
            self.stated += 1

    @property
    def standard_error(self) -> float:
        """The estimate's standard error."""
        return math.sqrt(self.variance)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        # SpanProcessor's returns None in SDK 1.20, the oldest supported, which makes a
        # provider's force_flush() report a failure
        return True
