"""jaeger-client-python's samplers, rebuilt on dsampler's decision core.

Same classes, constructor arguments, ``is_sampled(trace_id, operation='') -> (bool,
tags)`` contract, tags, ``close()``, equality and ``str()`` as jaeger-client 4.8, so
``from dsampler.jaeger import ProbabilisticSampler`` replaces the import and nothing
else. Differences, each deliberate:

* Decisions use the ``jaeger`` rule by default: exactly jaeger-client-python's
  ``id & (2**64-1) < rate * 2**64``. Pass ``hash="fnv1a"`` to decide like dsampler's
  OpenTelemetry samplers instead, so a fleet half-way through a migration keeps or drops
  each trace in every service alike.
* Rate limiters are dsampler's lock-free token buckets with an injectable clock (not
  ``time.time()``, which jumps with NTP); their initial balance is jaeger-client's
  ``random() * max_balance`` unless given.
* Bad arguments raise :class:`~dsampler.ConfigError` (a ``ValueError``) naming the
  argument, where jaeger-client asserts. ``is_sampled`` never raises.
* ``AdaptiveSampler.update`` drops operations absent from the new strategies (the fix
  jaeger-client-go#412 made; jaeger-client-python kept them at their old rates).
* ``RemoteControlledSampler`` needs no tornado: it takes its strategies from an
  in-process ``strategy_source`` (HTTP polling arrives with the remote-sampling module).
* ``RateLimitingSampler.rate_limiter`` is a :class:`~dsampler.samplers._ratelimit.TokenBucket`:
  ``check_credit(1.0)`` works, other item costs are refused (samplers only spend 1).
* ``ConstSampler`` takes a bool (or 1/0) and stores it as a bool.

When jaeger-client is installed the samplers also subclass its ``Sampler``, so
``jaeger_client.Config({"sampler": instance})`` accepts them.
"""

from __future__ import annotations

import logging
import random
from typing import Any, Final

from dsampler._validate import check_per_second, check_rate, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError
from dsampler.hashing._loader import LOADER
from dsampler.hashing._reference import MASK63, MASK64
from dsampler.hashing._schemes import get_scheme
from dsampler.samplers._bucket import TokenBucket


def _jaeger_base() -> type:
    """jaeger-client's Sampler when installed: its Config accepts only its own samplers."""
    try:
        from jaeger_client.sampler import Sampler as JaegerSampler
    except ImportError:  # pragma: no cover - the jaeger extra is not installed
        return object
    return JaegerSampler


_Base: type = _jaeger_base()

__all__ = [
    "DEFAULT_LOWER_BOUND",
    "DEFAULT_SAMPLING_PROBABILITY",
    "ConstSampler",
    "GuaranteedThroughputProbabilisticSampler",
    "ProbabilisticSampler",
    "RateLimitingSampler",
    "Sampler",
]

DEFAULT_SAMPLING_PROBABILITY: Final = 0.001
DEFAULT_LOWER_BOUND: Final = 1.0 / 600.0  # jaeger-client-python: once every 10 minutes
DEFAULT_SAMPLING_INTERVAL: Final = 60.0
MAX_RATE_LIMIT: Final = 500.0  # jaeger-client-python refuses remote rate limits >= 500
TYPE_KEY: Final = "sampler.type"
PARAM_KEY: Final = "sampler.param"
_log = logging.getLogger("dsampler.jaeger")

Tags = dict[str, Any]


class Sampler(_Base):  # type: ignore[misc]
    """jaeger-client's sampler interface."""

    _tags: Tags

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        """(sampled?, tags to put on the root span when sampled)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (pollers); idempotent."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sampler) and type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def _key(self) -> tuple[Any, ...]:
        return (self._tags.get(TYPE_KEY), self._tags.get(PARAM_KEY))


class ConstSampler(Sampler):
    """Always the same decision; tags ``sampler.type=const``, ``sampler.param=decision``."""

    def __init__(self, decision: bool) -> None:
        if not isinstance(decision, bool) and decision not in (0, 1):
            raise ConfigError("decision", f"expected true or false (or 1 or 0), got {typed(decision)}")
        self.decision = bool(decision)
        self._tags = {TYPE_KEY: "const", PARAM_KEY: self.decision}
        self._answer = (self.decision, self._tags)

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self._answer

    def __str__(self) -> str:
        return f"ConstSampler({self.decision})"


class ProbabilisticSampler(Sampler):
    """A fixed fraction of traces by trace ID (``sampler.type=probabilistic``).

    Args:
        rate: in [0, 1].
        hash: ``jaeger`` (default, jaeger-client-python's exact decision), ``fnv1a``
            (dsampler's OpenTelemetry samplers'), or any other rule name.
    """

    def __init__(self, rate: float, hash: str = "jaeger") -> None:
        self.rate = check_rate(rate, "rate")
        self._scheme = get_scheme(hash)
        self._bound = self._scheme.bound(self.rate)
        # The masking rules decide inline, without a call: as cheap as jaeger-client's.
        self._mask = {"jaeger": MASK64, "otel": MASK64, "jaeger-go": MASK63}.get(self._scheme.name, 0)
        self._tags = {TYPE_KEY: "probabilistic", PARAM_KEY: rate}
        if self._scheme.hashes:
            LOADER.ensure_started()

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            if self._mask:
                return (trace_id & self._mask) < self._bound, self._tags
            return self._scheme.key((trace_id >> 64) & MASK64, trace_id & MASK64) < self._bound, self._tags
        except Exception:  # not a Python int (None, str, an overflowing numpy int): not sampled
            return False, self._tags

    def _key(self) -> tuple[Any, ...]:
        return (self.rate, self._scheme.name)

    def __str__(self) -> str:
        return f"ProbabilisticSampler({self.rate})"


def _bucket(
    per_second: float, clock: Clock, initial_balance: float | None, rng: random.Random | None
) -> TokenBucket:
    max_balance = max(per_second, 1.0)
    if initial_balance is None:  # jaeger-client-python starts anywhere in the bucket
        initial_balance = (rng or random).random() * max_balance
    return TokenBucket(per_second, max_balance, initial_balance=initial_balance, clock=clock)


class RateLimitingSampler(Sampler):
    """At most ``max_traces_per_second`` (``sampler.type=ratelimiting``); the bucket holds
    ``max(rate, 1)`` credits.

    Args:
        max_traces_per_second: a finite number >= 0 (default 10).
        clock: monotonic time source (default the process clock).
        initial_balance: default ``random() * max_balance``, as jaeger-client-python.
        rng: source of that random number.
    """

    def __init__(
        self,
        max_traces_per_second: float = 10,
        *,
        clock: Clock = SYSTEM_CLOCK,
        initial_balance: float | None = None,
        rng: random.Random | None = None,
    ) -> None:
        per_second = check_per_second(max_traces_per_second, "max_traces_per_second")
        self.traces_per_second = max_traces_per_second  # as given: str() and tags show it so
        self.rate_limiter = _bucket(per_second, clock, initial_balance, rng)
        self._tags = {TYPE_KEY: "ratelimiting", PARAM_KEY: max_traces_per_second}

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self.rate_limiter.try_acquire(), self._tags

    def update(self, max_traces_per_second: float) -> bool:
        """Change the rate in place (balance pro-rated); False when unchanged."""
        rate = check_per_second(max_traces_per_second, "max_traces_per_second")
        if rate == self.traces_per_second:
            return False
        self.rate_limiter.update(rate, max(rate, 1.0))
        self.traces_per_second = max_traces_per_second
        self._tags = {TYPE_KEY: "ratelimiting", PARAM_KEY: max_traces_per_second}
        return True

    def _key(self) -> tuple[Any, ...]:
        return (self.traces_per_second,)

    def __str__(self) -> str:
        return f"RateLimitingSampler({self.traces_per_second})"


class GuaranteedThroughputProbabilisticSampler(Sampler):
    """One operation's probabilistic sampler with a guaranteed lower bound: sampled if
    the probability samples (a lower-bound credit is spent anyway), else if the
    lower-bound limiter has a credit (then tagged ``sampler.type=lowerbound``)."""

    def __init__(
        self,
        operation: str,
        lower_bound: float,
        rate: float,
        *,
        hash: str = "jaeger",
        clock: Clock = SYSTEM_CLOCK,
        rng: random.Random | None = None,
    ) -> None:
        self.operation = operation
        self.rate = check_rate(rate, "rate")
        self.lower_bound = check_per_second(lower_bound, "lower_bound")
        self._hash = hash
        self.probabilistic_sampler = ProbabilisticSampler(rate, hash=hash)
        self.lower_bound_sampler = RateLimitingSampler(self.lower_bound, clock=clock, rng=rng)
        self._tags = {TYPE_KEY: "lowerbound", PARAM_KEY: rate}

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        sampled, tags = self.probabilistic_sampler.is_sampled(trace_id, operation)
        if sampled:
            self.lower_bound_sampler.rate_limiter.try_acquire()
            return True, tags
        return self.lower_bound_sampler.rate_limiter.try_acquire(), self._tags

    def update(self, lower_bound: float, rate: float) -> None:
        """Change rate and lower bound in place; the limiter keeps its balance."""
        rate = check_rate(rate, "rate")
        lower_bound = check_per_second(lower_bound, "lower_bound")
        if rate != self.rate:
            self.probabilistic_sampler = ProbabilisticSampler(rate, hash=self._hash)
            self._tags = {TYPE_KEY: "lowerbound", PARAM_KEY: rate}
            self.rate = rate
        if lower_bound != self.lower_bound:
            self.lower_bound_sampler.update(lower_bound)
            self.lower_bound = lower_bound

    def _key(self) -> tuple[Any, ...]:
        return (self.operation, self.rate, self.lower_bound)

    def __str__(self) -> str:
        return (
            f"GuaranteedThroughputProbabilisticSampler({self.operation}, {self.rate:f}, {self.lower_bound:f})"
        )
