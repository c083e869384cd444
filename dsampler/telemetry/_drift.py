"""The drift audit: per configuration version, the rate the default rate kept against the
rate its spans' ``th`` states, ``z = (kept - n r) / sqrt(n r (1 - r))``; beyond
``sigmas``, warned once per version and at most once a minute per sampler, off the
request path.
"""

from __future__ import annotations

import logging
import math
import time
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from dsampler import _fork
from dsampler.consistent import NOTHING, statement, threshold_to_probability
from dsampler.engine import DEFAULT, KEPT, DecisionCounts, EngineSampler
from dsampler.hashing import SCHEMES

if TYPE_CHECKING:
    from dsampler.telemetry._observed import Observed


SIGMAS: Final = 4.0
MIN_DECISIONS: Final = 1000
_WARN_EVERY_S: Final = 60.0
_log = logging.getLogger("dsampler.telemetry")

_UNEXPECTED: Final = "unexpected for this scheme: check how the trace IDs are generated"


@dataclass(frozen=True, slots=True)
class Drift:
    """One version whose default rate kept a fraction beyond the binomial bound."""

    version: int
    scheme: str
    configured: float
    effective: float
    decisions: int
    sigmas: float

    def message(self) -> str:
        found = SCHEMES.get(self.scheme)
        cause = _UNEXPECTED
        if found is not None and found.bias:
            cause = f"{found.bias}; use hash: {' or '.join(n for n, s in SCHEMES.items() if not s.bias)}"
        return (
            f"dsampler: the default rate kept {self.effective:.4%} of {self.decisions} traces "
            f"where {self.configured:.4%} is configured (config version {self.version}, hash "
            f"{self.scheme}, {self.sigmas:+.1f} sigma): {cause}"
        )


@dataclass(slots=True)
class _Memory:
    alerted: set[int] = field(default_factory=set)
    alerts: int = 0
    last_warning: float = -math.inf


_memory: weakref.WeakKeyDictionary[Observed, _Memory] = weakref.WeakKeyDictionary()
_guard = _fork.ModuleLock()  # an audit thread may hold it at a fork


def alerts(sampler: Observed) -> int:
    """How many versions of ``sampler`` have drifted so far (a metric)."""
    found = _memory.get(sampler)
    return 0 if found is None else found.alerts


def audit(
    sampler: Observed | EngineSampler, *, sigmas: float = SIGMAS, min_decisions: int = MIN_DECISIONS
) -> list[Drift]:
    """The drifting versions among ``sampler``'s recent ones (none when it does not
    count decisions; a DSampler's are its engine's); new ones are logged, rate-limited."""
    if isinstance(sampler, EngineSampler):
        sampler = sampler.engine
    stats = sampler.decision_counts
    if stats is None:
        return []
    found = [d for c in stats.recent if (d := _drift(c, sigmas, min_decisions))]
    with _guard.lock:
        memory = _memory.setdefault(sampler, _Memory())
        new = [d for d in found if d.version not in memory.alerted]
        memory.alerted.update(d.version for d in new)
        memory.alerts += len(new)
        now = time.monotonic()
        speak = bool(new) and now - memory.last_warning >= _WARN_EVERY_S
        if speak:
            memory.last_warning = now
    if speak:
        _log.warning("%s", new[-1].message())
    return found


def stated_probability(scheme: str, rate: float) -> float:
    """The probability the default rate's sampled spans state in their ``th``, else
    ``rate`` itself (the two differ by less than ``2**-56``)."""
    found = SCHEMES.get(scheme)
    if found is None:
        return rate
    stated = statement(found, rate, found.bound(rate))
    return rate if stated.how == NOTHING else threshold_to_probability(stated.threshold)


def _drift(counts: DecisionCounts, sigmas: float, least: int) -> Drift | None:
    rate = stated_probability(counts.scheme, counts.rate)
    kept = counts.of(DEFAULT, KEPT)
    n = counts.default_decided
    spread = n * rate * (1.0 - rate)
    if n < least or spread < 25.0:  # too few decisions (or rate 0 or 1) for the bound to hold
        return None
    z = (kept - n * rate) / math.sqrt(spread)
    if abs(z) <= sigmas:
        return None
    return Drift(counts.version, counts.scheme, rate, kept / n, n, z)
