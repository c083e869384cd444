"""Figures of a simulated run, by which docs/adaptive.md judges the controller.

- ``E(t)``: expected sampled traces per second, offered load x rate in force, per tick
  (free of the sampling draw); ``T*(t) = min(T x multiplier, load x max_rate)``.
- settle time: from an event until ``|E/T* - 1| <= eps`` holds for good (until the next
  event or the end), at tick resolution.
- realized 1-second bins: traces the hard cap let through, per whole second.
- overshoot after an edge: the largest ``E/T* - 1`` from one second after it on.
- offered-load estimate: ``sum(1/rate)`` over the admitted traces against the arrivals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsampler.cli.simulate._simulation import Run

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def _index(run: Run, at: float) -> int:
    """First tick whose end is after ``at``."""
    return max(0, min(len(run.t), round(at / run.tick_s)))


def relative_error(run: Run) -> npt.NDArray[np.float64]:
    """``E/T* - 1`` per tick."""
    import numpy as np

    ideal = np.minimum(run.target * run.multiplier, run.qps * run.settings.max_rate)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal > 0, run.expected / ideal - 1.0, 0.0)


def settle_time(run: Run, at: float, until: float | None = None, eps: float = 0.10) -> float:
    """Seconds from ``at`` until ``E`` stays within ``eps`` of ``T*`` up to ``until``."""
    import numpy as np

    i, j = _index(run, at), _index(run, until if until is not None else run.t[-1] + run.tick_s)
    outside = np.flatnonzero(np.abs(relative_error(run)[i:j]) > eps)
    if outside.size == 0:
        return 0.0
    return float(run.t[i + outside[-1]] - at)


def bins(run: Run, seconds: float = 1.0) -> npt.NDArray[np.int64]:
    """Admitted (realized) traces per bin of ``seconds``, whole bins only."""
    per = max(1, round(seconds / run.tick_s))
    whole = len(run.admitted) // per * per
    out: npt.NDArray[np.int64] = run.admitted[:whole].reshape(-1, per).sum(axis=1)
    return out


def mean_sampled(run: Run, start: float, end: float | None = None) -> float:
    """Realized sampled traces per second over ``[start, end)``."""
    i, j = _index(run, start), _index(run, end if end is not None else run.t[-1] + run.tick_s)
    return float(run.admitted[i:j].sum() / ((j - i) * run.tick_s))


def overshoot(run: Run, at: float, until: float, skip: float = 1.0) -> float:
    """The largest ``E/T* - 1`` over ``[at + skip, until)``."""
    i, j = _index(run, at + skip), _index(run, until)
    return float(relative_error(run)[i:j].max()) if j > i else 0.0


def band_crossings(run: Run, at: float, until: float, band: float = 0.05) -> int:
    """How often ``E`` leaves the ``+-band`` around ``T*`` in ``[at, until)``."""
    import numpy as np

    outside = np.abs(relative_error(run)[_index(run, at) : _index(run, until)]) > band
    return int(np.count_nonzero(outside[1:] & ~outside[:-1]) + (1 if outside.size and outside[0] else 0))


def peak_to_peak(run: Run, start: float, end: float) -> float:
    """``(max E - min E) / T`` over ``[start, end)``."""
    e = run.expected[_index(run, start) : _index(run, end)]
    return float((e.max() - e.min()) / run.target) if e.size else 0.0


def estimate_errors(run: Run, period_s: float = 60.0, start: float = 0.0) -> npt.NDArray[np.float64]:
    """Per whole period from ``start``: ``sum(1/rate)`` over admitted traces / arrivals - 1
    (what a backend estimates from the ``sampler.param`` of the spans it received)."""
    per = max(1, round(period_s / run.tick_s))
    i = _index(run, start)
    whole = (len(run.t) - i) // per * per
    import numpy as np

    admitted, rate = run.admitted[i : i + whole].astype(np.float64), run.rate[i : i + whole]
    weighted = np.divide(admitted, rate, out=np.zeros_like(admitted), where=rate > 0)  # min_rate may be 0
    estimated = weighted.reshape(-1, per).sum(axis=1)
    arrivals = run.offered[i : i + whole].reshape(-1, per).sum(axis=1).astype(np.float64)
    idle = np.ones_like(estimated)  # a period without arrivals: no error to report
    ratio: npt.NDArray[np.float64] = np.divide(estimated, arrivals, out=idle, where=arrivals > 0)
    return ratio - 1.0
