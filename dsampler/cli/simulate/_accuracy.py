"""How exactly each hash scheme hits its configured rate, per family of trace IDs.

D-Sampler (Go), the sampler dsampler ports, reports a 0.27% mean absolute error of the
effective rate. Its method, made precise here: for each configured rate of a grid,
decide ``n`` trace IDs of one family and take the effective rate (sampled / n); the
error of a cell is ``|effective - configured| / configured``, and a (scheme, family)
pair's MAE is the mean over the grid. Binomial noise alone gives about
``0.8 * sqrt((1 - r) / (n r))`` per cell (0.24% at r = 0.1, n = 10**6), so an MAE near
that floor means "no bias"; an MAE of tens of percent means the scheme does not suit
that family (raw FNV-1a on sequential IDs).

Families (what real fleets emit):

* ``random``: 128 random bits (OpenTelemetry's default generator).
* ``jaeger64``: 64 random bits, zero-extended (jaeger-client's IDs, W3C padding).
* ``time-prefixed``: 32 bits of seconds since the epoch, then 96 random bits (AWS X-Ray).
* ``sequential``: consecutive integers from a random start (a counter, a test harness).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from dsampler.hashing import SCHEMES

if TYPE_CHECKING:
    import numpy as np


FAMILIES: Final = ("random", "jaeger64", "time-prefixed", "sequential")
DEFAULT_RATES: Final = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.9)
#: Every scheme of the table (dsampler.hashing._schemes), in its order.
DEFAULT_SCHEMES: Final = tuple(SCHEMES)
_EPOCH_2026: Final = 1_767_225_600


@dataclass(frozen=True, slots=True)
class Cell:
    """One (scheme, family) pair: the effective rate at each configured rate."""

    scheme: str
    family: str
    rates: tuple[float, ...]
    effective: tuple[float, ...]
    n: int

    @property
    def errors(self) -> tuple[float, ...]:
        """Relative error per configured rate."""
        return tuple(abs(e - r) / r for r, e in zip(self.rates, self.effective, strict=True))

    @property
    def mae(self) -> float:
        """Mean relative absolute error over the grid (the figure D-Sampler (Go) reports)."""
        return sum(self.errors) / len(self.errors)

    @property
    def noise_floor(self) -> float:
        """The MAE binomial noise alone gives an unbiased scheme on this grid:
        ``E|X - np| / np = sqrt(2 / pi) * sqrt((1 - r) / (n r))`` per cell."""
        return sum(math.sqrt(2 / math.pi * (1 - r) / (self.n * r)) for r in self.rates) / len(self.rates)


def trace_ids(family: str, n: int, seed: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``n`` trace IDs of ``family`` as (high, low) uint64 halves, reproducibly."""
    import numpy as np

    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {', '.join(FAMILIES)}, got {family!r}")
    rng = np.random.default_rng([seed, FAMILIES.index(family)])
    full = np.iinfo(np.uint64).max

    def bits() -> np.ndarray[Any, Any]:
        return rng.integers(0, full, size=n, dtype=np.uint64, endpoint=True)

    if family == "random":
        return bits(), bits()
    if family == "jaeger64":
        return np.zeros(n, dtype=np.uint64), bits()
    if family == "time-prefixed":  # 1 s per 1,000 IDs: a busy service's X-Ray IDs
        seconds = np.uint64(_EPOCH_2026) + (np.arange(n, dtype=np.uint64) // np.uint64(1000))
        return (seconds << np.uint64(32)) | (bits() >> np.uint64(32)), bits()
    if family == "sequential":
        start = int(rng.integers(0, 1 << 62))
        lo = np.arange(start, start + n, dtype=np.uint64)
        return np.zeros(n, dtype=np.uint64), lo
    raise AssertionError(family)  # pragma: no cover - checked above


def study(
    *,
    schemes: tuple[str, ...] = DEFAULT_SCHEMES,
    families: tuple[str, ...] = FAMILIES,
    rates: tuple[float, ...] = DEFAULT_RATES,
    n: int = 1_000_000,
    seed: int = 1,
) -> list[Cell]:
    """Every (scheme, family) cell over the rate grid; the same IDs for every scheme."""
    from dsampler.hashing import decide_batch

    cells = []
    for family in families:
        hi, lo = trace_ids(family, n, seed)
        for scheme in schemes:
            effective = tuple(float(decide_batch(hi, lo, r, hash=scheme).mean()) for r in rates)
            cells.append(Cell(scheme, family, tuple(rates), effective, n))
    return cells


def render(cells: list[Cell]) -> str:
    """The MAE table: one row per scheme, one column per family, the noise floor below."""
    families = list(dict.fromkeys(c.family for c in cells))
    schemes = list(dict.fromkeys(c.scheme for c in cells))
    by = {(c.scheme, c.family): c for c in cells}
    width = max(14, *(len(f) + 2 for f in families))
    lines = [f"{'scheme':<10}" + "".join(f"{f:>{width}}" for f in families)]
    for scheme in schemes:
        lines.append(f"{scheme:<10}" + "".join(f"{by[scheme, f].mae:>{width - 1}.2%} " for f in families))
    floor = cells[0].noise_floor
    rates = ", ".join(f"{r:g}" for r in cells[0].rates)
    lines.append(
        f"mean absolute error of the effective rate over rates {rates}, {cells[0].n:,} trace IDs "
        f"per cell; binomial noise alone gives {floor:.2%} (D-Sampler (Go) reports 0.27%)"
    )
    return "\n".join(lines)


def heatmap(cells: list[Cell], path: str) -> None:
    """The MAE table as a PNG heat map (log colour scale: 0.1% to 100%)."""
    from matplotlib.colors import LogNorm

    from dsampler.cli._plotting import pyplot

    plt = pyplot()
    families = list(dict.fromkeys(c.family for c in cells))
    schemes = list(dict.fromkeys(c.scheme for c in cells))
    by = {(c.scheme, c.family): c for c in cells}
    grid = [[max(by[s, f].mae * 100, 0.01) for f in families] for s in schemes]
    fig, ax = plt.subplots(figsize=(1.6 * len(families) + 2.5, 0.6 * len(schemes) + 1.8))
    try:
        image = ax.imshow(grid, cmap="RdYlGn_r", norm=LogNorm(vmin=0.1, vmax=100.0), aspect="auto")
        ax.set_xticks(range(len(families)), families)
        ax.set_yticks(range(len(schemes)), schemes)
        for i, row in enumerate(grid):
            for j, value in enumerate(row):
                ax.text(j, i, f"{value:.2f}%", ha="center", va="center", fontsize=9)
        ax.set_title(f"Mean absolute error of the effective rate ({cells[0].n:,} IDs per cell)")
        fig.colorbar(image, ax=ax, label="MAE (%)")
        fig.savefig(path, dpi=110, bbox_inches="tight", format="png")  # at the path given
    finally:
        plt.close(fig)
