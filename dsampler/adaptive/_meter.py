"""The controller's hook on the request path: a counter of offered load and the hard cap.

A DSampler whose configuration has an ``adaptive:`` section holds the controller's
:class:`Meter` in every snapshot it publishes. Each root decision made by the default
rate calls ``next(meter.offered)``: one increment of an ``itertools.count`` in C, which
the GIL makes atomic, so concurrent threads lose no count and take no lock. Each
sampled one also spends a credit of ``meter.backstop`` (the hard cap), if any.

The controller, the only reader, learns the count by drawing a number itself (as the
token bucket does): ``drawn - own draws`` is every decision so far, exact. (On
free-threaded builds of CPython, ``itertools.count`` is not documented as atomic; the
count may then lose increments under contention. It is an estimate's input, not a
limit: the hard cap stays exact.)
"""

from __future__ import annotations

import itertools

from dsampler.samplers._bucket import TokenBucket

__all__ = ["Meter"]


class Meter:
    """Offered-load counter and hard-cap bucket of one controller.

    Attributes:
        offered: advanced once per root decision of the default rate.
        backstop: the hard cap (None: none).
    """

    __slots__ = ("_reads", "_total", "backstop", "offered")

    def __init__(self, backstop: TokenBucket | None) -> None:
        self.offered = itertools.count()
        self.backstop = backstop
        self._reads = 0
        self._total = 0

    def take(self) -> int:
        """Decisions counted since the last take (one reader at a time)."""
        total = next(self.offered) - self._reads
        self._reads += 1
        delta, self._total = total - self._total, total
        return delta

    @property
    def total(self) -> int:
        """Decisions counted until the last :meth:`take`."""
        return self._total
