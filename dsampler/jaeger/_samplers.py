"""jaeger-client's samplers on dsampler's decision core, with jaeger-client 4.8's
constructors, ``is_sampled``, tags, ``close()``, equality and ``str()``. When jaeger-client
is installed they also subclass its ``Sampler``, so ``jaeger_client.Config`` accepts them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from dsampler._validate import check_per_second, check_rate, typed
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.decision import TokenBucket
from dsampler.engine import BY_RATIO, DROP_IT, guaranteed
from dsampler.errors import ConfigError
from dsampler.hashing import LOADER, Ratio, get_scheme
from dsampler.jaeger._constants import (
    SAMPLER_PARAM_TAG_KEY,
    SAMPLER_TYPE_CONST,
    SAMPLER_TYPE_LOWER_BOUND,
    SAMPLER_TYPE_PROBABILISTIC,
    SAMPLER_TYPE_RATE_LIMITING,
    SAMPLER_TYPE_TAG_KEY,
)


def _jaeger_base() -> type:
    """jaeger-client's Sampler when installed: its Config accepts only its own samplers."""
    try:
        from jaeger_client.sampler import Sampler as JaegerSampler
    except ImportError:  # pragma: no cover - the jaeger extra is not installed
        return object
    return JaegerSampler


_Base: type = _jaeger_base()


Tags = dict[str, Any]


def _tags_of(kind: str, param: object) -> Tags:
    return {SAMPLER_TYPE_TAG_KEY: kind, SAMPLER_PARAM_TAG_KEY: param}


class Sampler(_Base):  # type: ignore[misc]
    """jaeger-client's abstract sampler: subclasses implement ``is_sampled`` and ``close``."""

    _tags: Tags

    def __init__(self, tags: Tags | None = None) -> None:
        self._tags = tags or {}

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Mapping[str, Any]]:
        """(sampled?, tags to put on the root span when sampled)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources (pollers); idempotent in every subclass."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sampler) and type(other) is type(self) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def _key(self) -> tuple[Any, ...]:
        return (self._tags.get(SAMPLER_TYPE_TAG_KEY), self._tags.get(SAMPLER_PARAM_TAG_KEY))


def int_value(trace_id: object) -> int | None:
    """The integer value of a trace ID, None if it is not an int: ``int.__int__`` copies
    an int subclass without running any of its methods, and plain ints never raise."""
    try:
        return int.__int__(trace_id)  # type: ignore[arg-type]
    except TypeError:
        return None


def is_sampler(value: object) -> bool:
    """A built sampler, dsampler's or jaeger-client's (what jaeger_client.Config passes through)."""
    return isinstance(value, Sampler) or (_Base is not object and isinstance(value, _Base))


class ConstSampler(Sampler):
    """Always the same decision; tags ``sampler.type=const``, ``sampler.param=decision``."""

    def __init__(self, decision: bool) -> None:
        if not isinstance(decision, bool) and decision not in (0, 1):
            raise ConfigError("decision", f"expected true or false (or 1 or 0), got {typed(decision)}")
        self.decision = bool(decision)
        self._tags = _tags_of(SAMPLER_TYPE_CONST, self.decision)
        self._answer = (self.decision, self._tags)

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self._answer

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return f"ConstSampler({self.decision})"


class ProbabilisticSampler(Sampler):
    """A fixed fraction ``rate`` of traces by trace ID; ``hash``: ``jaeger`` (default,
    jaeger-client-python's exact decision), ``fnv1a`` or any other rule name.
    """

    def __init__(self, rate: float, hash: str = "jaeger") -> None:
        self.rate = check_rate(rate, "rate")
        self._ratio = Ratio(self.rate, get_scheme(hash))
        self._scheme, self._key_of, self._bound = self._ratio.scheme, self._ratio.key, self._ratio.bound
        self._tags = _tags_of(SAMPLER_TYPE_PROBABILISTIC, rate)
        if self._scheme.needs_kernel:
            LOADER.ensure_started()

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        try:
            return self._key_of(trace_id) < self._bound, self._tags
        except Exception:  # not an int (not sampled), or an int subclass: decided by its value
            value = int_value(trace_id)
            return value is not None and self._ratio.admits(value), self._tags

    def close(self) -> None:
        pass

    def _key(self) -> tuple[Any, ...]:
        return (self.rate, self._scheme.name)

    def __str__(self) -> str:
        return f"ProbabilisticSampler({self.rate})"


class RateLimitingSampler(Sampler):
    """At most ``max_traces_per_second`` (a finite number >= 0); the bucket holds ``max(rate, 1)``
    credits and starts at ``initial_balance`` (default ``rng.random() * max_balance``, as
    jaeger-client-python).
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
        max_balance = max(per_second, 1.0)
        if initial_balance is None:  # jaeger-client-python starts anywhere in the bucket
            initial_balance = (rng or random).random() * max_balance
        self.rate_limiter = TokenBucket(per_second, max_balance, initial_balance=initial_balance, clock=clock)
        self._tags = _tags_of(SAMPLER_TYPE_RATE_LIMITING, max_traces_per_second)

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        return self.rate_limiter.try_acquire(), self._tags

    def close(self) -> None:
        pass

    def update(self, max_traces_per_second: float) -> bool:
        """Change the rate in place (balance pro-rated); False when unchanged."""
        rate = check_per_second(max_traces_per_second, "max_traces_per_second")
        if rate == self.traces_per_second:
            return False
        self.rate_limiter.update(rate, max(rate, 1.0))
        self.traces_per_second = max_traces_per_second
        self._tags = _tags_of(SAMPLER_TYPE_RATE_LIMITING, max_traces_per_second)
        return True

    def _key(self) -> tuple[Any, ...]:
        return (self.traces_per_second,)

    def __str__(self) -> str:
        return f"RateLimitingSampler({self.traces_per_second})"


class GuaranteedThroughputProbabilisticSampler(Sampler):
    """One operation's probabilistic sampler with a guaranteed lower bound, by
    :func:`dsampler.engine._deciders.guaranteed` (tagged ``lowerbound`` when the bound sampled).
    """

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
        self._tags = _tags_of(SAMPLER_TYPE_LOWER_BOUND, rate)

    def is_sampled(self, trace_id: int, operation: str = "") -> tuple[bool, Tags]:
        sampled, tags = self.probabilistic_sampler.is_sampled(trace_id, operation)
        outcome = guaranteed(sampled, self.lower_bound_sampler.rate_limiter)  # the OTel side's rule
        return outcome != DROP_IT, tags if outcome == BY_RATIO else self._tags

    def close(self) -> None:
        self.probabilistic_sampler.close()
        self.lower_bound_sampler.close()

    def update(self, lower_bound: float, rate: float) -> None:
        """Change rate and lower bound in place; the limiter keeps its balance."""
        rate = check_rate(rate, "rate")
        lower_bound = check_per_second(lower_bound, "lower_bound")
        if rate != self.rate:
            self.probabilistic_sampler = ProbabilisticSampler(rate, hash=self._hash)
            self._tags = _tags_of(SAMPLER_TYPE_LOWER_BOUND, rate)
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
