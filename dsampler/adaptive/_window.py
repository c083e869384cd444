"""D-Sampler's dual-factor window law: ``f = max(alpha * QPS / QPS_baseline, beta * P99 /
P99_target)``; above 1 the window shortens to ``clamp(W0 / f, W_min, W_max)``, below
``1 - hysteresis`` it relaxes back to ``W0`` (shortening is the white paper's intent).
"""

from __future__ import annotations

import math
from typing import Final

from dsampler.config import AdaptiveSettings

BASELINE_WINDOWS: Final = 6.0


class WindowLaw:
    """Window length from the load and latency factors, with hysteresis.

    Attributes:
        length_s: the window length in force.
        factor: the last ``f``.
        hot: ``f`` went above 1 and has not yet fallen below ``1 - hysteresis``.
        baseline: QPS_baseline (None before the first window).
    """

    __slots__ = ("_seen_s", "baseline", "factor", "hot", "length_s", "settings")

    def __init__(self, settings: AdaptiveSettings) -> None:
        self.settings = settings
        self.length_s = settings.window_s
        self.factor = 0.0
        self.hot = False
        self.baseline: float | None = None
        self._seen_s = 0.0

    def close(
        self, window_qps: float, window_s: float, qps: float, p99_s: float | None, episode: bool
    ) -> float:
        """A window of ``window_s`` seconds at ``window_qps`` closed, the load is now
        ``qps``; returns the next window's length."""
        s = self.settings
        self._seen_s += window_s
        # The mean of all windows until a time constant has passed, then an exponential
        # average: a first window of 0.1 s must not stand for the baseline for a minute.
        weight = 1.0 - math.exp(-window_s / (BASELINE_WINDOWS * s.window_s))
        weight = max(weight, window_s / self._seen_s) if self._seen_s > 0 else 1.0
        base = window_qps if self.baseline is None else self.baseline + (window_qps - self.baseline) * weight
        self.baseline = base
        f = s.alpha * (qps / base if base > 0 else (1.0 if qps == 0 else math.inf))
        if p99_s is not None:
            f = max(f, s.beta * p99_s / s.p99_target_s)
        if episode:
            f = max(f, s.window_s / s.min_window_s)
        self.factor = f
        self.hot = f >= 1.0 - s.hysteresis if self.hot else f > 1.0
        self.length_s = min(s.max_window_s, max(s.min_window_s, s.window_s / f)) if self.hot else s.window_s
        return self.length_s
