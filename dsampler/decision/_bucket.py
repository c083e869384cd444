"""The token bucket behind every rate limit, Jaeger's semantics. The state is the credits
missing from full (``_owed``) as of one clock reading (``_at``).

Exclusion without a lock: the right to the state is one ``True`` in a list (the baton),
taken with ``del baton[0]`` (not ``pop()``, whose result a signal's exception could lose)
and put back with ``append()``, both atomic. No call (nor, in :meth:`update`, a branch) runs
while it is held, so no thread switch does; a check that finds it taken (free-threaded
builds only) is refused: the bucket admits less than a continuous one, never more.
"""

from __future__ import annotations

import time

from dsampler import _fork
from dsampler._validate import check_per_second
from dsampler.clock import SYSTEM_CLOCK, Clock
from dsampler.errors import ConfigError

_WAIT_S = 1.0  # how long update() waits for the baton before it writes without it


class TokenBucket:
    """A lock-free token bucket: admits what a continuous token bucket of that rate and
    size admits, or less on a clock that goes backwards or reads NaN. A clock that raises
    raises out of :meth:`try_acquire`, holding nothing.

    Args:
        credits_per_second: refill rate; may be fractional (1/60 admits one a minute).
        max_balance: cap of the balance; default ``max(credits_per_second, 1.0)``.
        initial_balance: default full (Jaeger Go), or empty when ``credits_per_second``
            is 0 (a zero rate admits nothing, as OTel Go).
        clock: monotonic time source.

    Raises:
        ConfigError: a negative, NaN or infinite figure.
    """

    __slots__ = (
        "__weakref__",
        "_at",
        "_baton",
        "_clock",
        "_now",
        "_owed",
        "_room",
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
        self.credits_per_second, self.max_balance = _figures(credits_per_second, max_balance)
        if initial_balance is None:
            balance = self.max_balance if self.credits_per_second > 0 else 0.0
        else:
            balance = check_per_second(initial_balance, "initial_balance")
        if balance > self.max_balance:
            raise ConfigError(
                "initial_balance", f"expected at most max_balance ({self.max_balance}), got {balance}"
            )
        self._clock = clock
        self._now = clock.monotonic
        self._room = self.max_balance - 1.0  # owed at most this: a whole credit is there
        self._owed = self.max_balance - balance
        now = clock.monotonic()  # a NaN reading: as of 0, which the next good one moves on from
        self._at = now if now == now else 0.0  # noqa: PLR0124 -- NaN is the one value unequal to itself
        self._baton = [True]
        _fork.register(self._reset_after_fork)

    def try_acquire(self) -> bool:
        """Spend one credit if there is one. Never blocks."""
        now = self._now()  # before the baton: no call while it is held
        baton = self._baton
        try:
            del baton[0]
        except IndexError:  # another check holds it, for a few operations: refuse
            return False
        try:
            owed = self._owed - (now - self._at) * self.credits_per_second
            if owed < 0.0:  # noqa: PLR1730 -- a compare, not a call to max(); full: the excess is not kept
                owed = 0.0
            if owed <= self._room:  # False for NaN too: a NaN reading writes nothing
                self._owed, self._at = owed + 1.0, now
                return True
            return False
        finally:
            baton.append(True)

    def _wait_for_baton(self) -> bool:
        """Wait for the baton; False if it never came (then write without it rather than hang)."""
        deadline = time.monotonic() + _WAIT_S
        while True:
            time.sleep(0.0001)
            try:
                del self._baton[0]
                return True
            except IndexError:
                if time.monotonic() > deadline:
                    return False

    @property
    def balance(self) -> float:
        """Credits available now (for tests and metrics)."""
        now = self._clock.monotonic()
        owed = self._owed - (now - self._at) * self.credits_per_second if now > self._at else self._owed
        return self.max_balance - max(0.0, owed)

    def check_credit(self, item_cost: float = 1.0) -> bool:
        """jaeger-client's ``RateLimiter.check_credit``; credits are whole, so only a cost
        of 1 is supported.

        Raises:
            ConfigError: a cost other than 1.
        """
        if item_cost != 1.0:
            raise ConfigError("item_cost", f"expected 1 (credits are whole), got {item_cost!r}")
        return self.try_acquire()

    def update(self, credits_per_second: float, max_balance: float | None = None) -> None:
        """Change the rate in place, keeping the balance pro-rated to the new maximum
        (a strategy push does not hand every process a full bucket).

        Raises:
            ConfigError: a negative, NaN or infinite figure.
        """
        rate, maximum = _figures(credits_per_second, max_balance)
        if rate == self.credits_per_second and maximum == self.max_balance:
            return
        now = self._clock.monotonic()  # before the baton, as a check does
        try:
            del self._baton[0]  # inline, as a check does: no call returns while it is held
            held = True
        except IndexError:
            held = self._wait_for_baton()
        try:  # no call and no branch while the baton is held: no thread switch, no fork
            at = self._at
            now = (at, now)[now >= at]  # NaN, or behind the line's reading: stay on that reading
            owed = self._owed - (now - at) * self.credits_per_second
            owed *= owed > 0.0
            old_max = self.max_balance  # one of 0 held nothing: its divisor is 1, and 0 stays 0
            owed = maximum - (old_max - owed) * maximum / (old_max + (old_max == 0.0))
            owed *= owed > 0.0
            owed = (owed, maximum)[owed > maximum]
            # every field in one statement: a fork lands before it or after it
            self.credits_per_second, self.max_balance, self._room, self._owed, self._at = (
                rate,
                maximum,
                maximum - 1.0,
                owed,
                now,
            )
        finally:
            if held:
                self._baton.append(True)

    def _reset_after_fork(self) -> None:
        if not self._baton:  # a thread of the parent was mid-check: it does not exist here
            self._baton.append(True)

    def __repr__(self) -> str:
        return f"TokenBucket(credits_per_second={self.credits_per_second}, max_balance={self.max_balance})"


def _figures(credits_per_second: object, max_balance: object) -> tuple[float, float]:
    """A bucket's rate and maximum balance, checked."""
    rate = check_per_second(credits_per_second, "credits_per_second")
    maximum = max(rate, 1.0) if max_balance is None else check_per_second(max_balance, "max_balance")
    return rate, maximum
