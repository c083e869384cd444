"""What happens when in a demo run: the load spike, the latency episode, the hot update.

The events sit at fixed fractions of the run, so a 5 s run and a 10 minute one tell
the same story: steady load, a 10x spike, steady again, the strategies file rewritten
halfway, a latency episode (every request three times slower), steady to the end.
Both services see the same load shape and latency; only their samplers differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

SPIKE_FACTOR: Final = 10.0
LATENCY_FACTOR: Final = 3.0
SEARCH_TARGET: Final = 50.0  # traces per second the adaptive controller holds for search
CHECKOUT_UPDATE_RATE: Final = 0.5  # checkout's rate in the file after the hot update (0.1 before)


@dataclass(frozen=True, slots=True)
class Service:
    """A synthetic service: requests per second at base load, its root span's name and
    the one child span each request makes, and its latency (lognormal)."""

    name: str
    base_qps: float
    operation: str
    child: str
    latency_median_s: float = 0.04
    latency_sigma: float = 0.5  # P99 = 3.2 x median: 128 ms, under the controller's 200 ms target


def services() -> tuple[Service, Service]:
    """checkout (remote-controlled) and search (adaptive), in the table's order."""
    return (
        Service("checkout", 100.0, "POST /checkout", "INSERT orders"),
        Service("search", 200.0, "GET /search", "query index"),
    )


@dataclass(frozen=True, slots=True)
class Timeline:
    """The events of a run of ``duration_s`` seconds (times in seconds from its start)."""

    duration_s: float
    spike: tuple[float, float]
    update_at_s: float
    latency: tuple[float, float]

    @classmethod
    def for_duration(cls, duration_s: float) -> Timeline:
        d = duration_s
        return cls(d, spike=(0.2 * d, 0.4 * d), update_at_s=0.5 * d, latency=(0.6 * d, 0.8 * d))

    def load_factor(self, t: float) -> float:
        """Offered load at ``t`` as a multiple of the base load."""
        return SPIKE_FACTOR if self.spike[0] <= t < self.spike[1] else 1.0

    def latency_factor(self, t: float) -> float:
        """Request latency at ``t`` as a multiple of the baseline."""
        return LATENCY_FACTOR if self.latency[0] <= t < self.latency[1] else 1.0

    def phase(self, t: float) -> str:
        """What the table shows in its phase column for the second ending at ``t``."""
        if self.load_factor(t - 1e-9) != 1.0:
            return f"spike x{SPIKE_FACTOR:g}"
        if self.latency_factor(t - 1e-9) != 1.0:
            return f"latency x{LATENCY_FACTOR:g}"
        return "steady"

    def inside(self, span: tuple[float, float], second: int) -> bool:
        """The one-second bin ending at ``second`` lies wholly within ``span``."""
        return span[0] <= second - 1 and second <= span[1]
