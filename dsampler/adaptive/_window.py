"""The dual-factor window law of D-Sampler, the Go sampler dsampler ports.

``f = max(alpha * QPS / QPS_baseline, beta * P99 / P99_target)``; when ``f`` rises above
1 the window shortens to ``clamp(W0 / f, W_min, W_max)`` so the controller re-evaluates
load and health more often, and once ``f < 1 - hysteresis`` it relaxes back to ``W0``.
(D-Sampler's white paper writes the formula as a product with ``f`` while its text and
table shorten the window on a spike; shortening is the intent.) With the defaults,
steady load gives ``f = 0.8`` and a 10 s window; QPS +180% gives ``f = 2.24`` and 4.5 s;
a latency episode (P99 above its target, see :mod:`._tail`) holds the window at its
minimum.

``QPS_baseline`` is an exponential average of the windows' QPS with a time constant of
:data:`BASELINE_WINDOWS` base windows (60 s by default; the plain mean of all windows
until then): a lasting change of load becomes the new normal within minutes.
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
