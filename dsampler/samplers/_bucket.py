"""The token bucket behind every rate limit: ``credits_per_second`` with a
``max_balance``, Jaeger's semantics.

A check spends one credit when at least one is there. The balance grows with elapsed
time, capped at ``max_balance`` (default ``max(credits_per_second, 1)``, so a rate of
0.1 still samples its first request, then about one every 10 s).

The request path takes no lock. Credits are numbered tickets: a check draws the next
ticket number from an ``itertools.count`` (atomic under the GIL) and is admitted iff the
number is below ``limit`` as read *before* drawing. Minting credits (refill) moves
``limit`` up, in whichever thread first sees a refill due, under a lock that is only
ever *tried*: a check never waits. The check that refills draws its ticket under the
lock, so every number before it is drawn and the balance left is exact; it rebases the
numbering after that ticket (numbers drawn by refused checks are not credits) and
spends it if a whole credit is there. A refill is due when a whole credit has accrued
or the bucket would be full, whichever is first, so minting late never hands out more
than a continuous bucket would. Because ``limit``
only grows and tickets are unique, concurrent checks can never spend a credit twice:
with a frozen clock N threads admit exactly the balance. On free-threaded builds, where
``next()`` on a count is not documented as atomic, every check takes the lock instead.
"""

from __future__ import annotations

import itertools
import math
import sys
import threading

from dsampler import _fork
from dsampler._validate import check_per_second
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError

__all__ = ["TokenBucket"]

_GIL: bool = getattr(sys, "_is_gil_enabled", lambda: True)()


class TokenBucket:
    """A lock-free token bucket.

    Args:
        credits_per_second: refill rate; may be fractional (1/60 admits one a minute).
        max_balance: cap of the balance; default ``max(credits_per_second, 1.0)``.
        initial_balance: default full (Jaeger Go), or empty when ``credits_per_second``
            is 0 (a zero rate admits nothing, as OTel Go since go-contrib#3604);
            jaeger-client-python starts at ``random() * max_balance``.
        clock: monotonic time source.

    Raises:
        ConfigError: a negative, NaN or infinite figure.
    """

    __slots__ = (
        "__weakref__",
        "_base",
        "_carry",
        "_clock",
        "_due",
        "_last",
        "_limit",
        "_lock",
        "_tickets",
        "credits_per_second",
        "max_balance",
    )

    def __init__(
        self,
        credits_per_second: float,
        max_balance: float | None = None,
        *,
        initial_balance: float | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.credits_per_second = check_per_second(credits_per_second, "credits_per_second")
        self.max_balance = (
            max(self.credits_per_second, 1.0)
            if max_balance is None
            else check_per_second(max_balance, "max_balance")
        )
        if initial_balance is None:
            balance = self.max_balance if self.credits_per_second > 0 else 0.0
        else:
            balance = check_per_second(initial_balance, "initial_balance")
        if balance > self.max_balance:
            raise ConfigError(
                "initial_balance", f"expected at most max_balance ({self.max_balance}), got {balance}"
            )
        self._clock = clock
        self._lock = threading.Lock()
        _fork.register(self)
        self._tickets = itertools.count()
        self._last = clock.monotonic()
        self._rebase(next(self._tickets), balance)

    def _rebase(self, drawn: int, balance: float) -> None:
        """Credits ``drawn + 1 ...`` are the next ``floor(balance)``; the fraction carries.

        The next refill is due when a whole credit has accrued or the bucket would be
        full, whichever is first: between refills it neither caps nor crosses a whole
        credit, so minting late never hands out more than the continuous bucket would.
        """
        whole = int(balance)  # balance >= 0: floor
        carry = balance - whole
        self._base, self._carry, self._limit = drawn, carry, drawn + 1 + whole
        rate = self.credits_per_second
        if rate:
            step, room = 1.0 - carry, self.max_balance - balance
            self._due = self._last + (step if step < room else room) / rate
        else:
            self._due = math.inf

    def try_acquire(self) -> bool:
        """Spend one credit if there is one. Never blocks, never raises."""
        if _GIL:
            now = self._clock.monotonic()
            if now >= self._due and self._lock.acquire(False):
                try:
                    return self._refill(now, True)
                finally:
                    self._lock.release()
            limit = self._limit  # read before drawing: a refill in between must not admit
            return next(self._tickets) < limit  # a ticket it has already counted as drawn
        with self._lock:
            now = self._clock.monotonic()
            if now >= self._due:
                return self._refill(now, True)
            return next(self._tickets) < self._limit

    def _refill(self, now: float, spend: bool) -> bool:
        """Mint what accrued until ``now`` and rebase (the lock is held). With ``spend``
        the ticket drawn here is the check's own: it takes a credit if a whole one is
        there, and the next refill is timed from the balance after it (a full bucket
        checked sparsely then refills once per check, not twice). Returns whether it did.
        """
        drawn = next(self._tickets)  # every ticket before it is drawn: left is exact
        left = self._limit - drawn
        balance = self._carry + left if left > 0 else self._carry
        elapsed = now - self._last
        if elapsed > 0.0:  # a clock that went backwards mints nothing
            balance += elapsed * self.credits_per_second
            self._last = now
        if balance > self.max_balance:  # noqa: PLR1730 -- a compare, not a call to min(): the refill is per check at worst
            balance = self.max_balance
        spent = spend and balance >= 1.0
        self._rebase(drawn, balance - 1.0 if spent else balance)
        return spent

    def _settle(self) -> float:
        """Refill to now without spending (the lock is held); the balance."""
        self._refill(self._clock.monotonic(), False)
        return self._limit - self._base - 1 + self._carry

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()  # a refill in flight at the fork would hold it forever

    def check_credit(self, item_cost: float = 1.0) -> bool:
        """jaeger-client's ``RateLimiter.check_credit``, for code that calls it directly;
        credits are whole, so only a cost of 1 (all samplers spend) is supported.

        Raises:
            ConfigError: a cost other than 1.
        """
        if item_cost != 1.0:
            raise ConfigError("item_cost", f"expected 1 (credits are whole), got {item_cost!r}")
        return self.try_acquire()

    @property
    def balance(self) -> float:
        """Credits available now (refills as a check would; for tests and metrics)."""
        with self._lock:
            return self._settle()

    def update(self, credits_per_second: float, max_balance: float | None = None) -> None:
        """Change the rate in place, keeping the balance pro-rated to the new maximum
        (so a strategy push does not hand every process a full bucket). An unchanged
        rate and maximum is a no-op.

        Raises:
            ConfigError: a negative, NaN or infinite figure.
        """
        rate = check_per_second(credits_per_second, "credits_per_second")
        new_max = max(rate, 1.0) if max_balance is None else check_per_second(max_balance, "max_balance")
        if rate == self.credits_per_second and new_max == self.max_balance:
            return
        with self._lock:
            balance = self._settle()
            if self.max_balance > 0:
                balance = balance * new_max / self.max_balance
            self.credits_per_second, self.max_balance = rate, new_max
            self._rebase(self._base, min(balance, new_max))

    def __repr__(self) -> str:
        return f"TokenBucket(credits_per_second={self.credits_per_second}, max_balance={self.max_balance})"
