"""The controller's hard cap: a token bucket built for being checked sparsely.

The cap sits at twice the target, and the controller keeps sampling near the target, so
its bucket is full nearly always and each check finds a credit accrued since the last
one. :class:`~dsampler.samplers.TokenBucket` (every configured rate limit) mints on
such a check under a tried lock and renumbers its tickets: about 7,000 instructions,
paid by every sampled decision. Here the state is the line a continuous bucket follows,
the credits still missing from full (``_owed``) as of one clock reading (``_at``), so a
check is a subtraction, a product and two comparisons. Both figures stay small: the
time is only ever subtracted from a nearby reading (exact), never accumulated, so the
bound does not loosen with the clock's magnitude or the rate.

Exclusion without a lock and without waiting: the right to read and write that state
is one ``True`` in a list (the baton). A check takes it with ``del baton[0]`` and puts
it back with ``append()``, both atomic on every CPython build, free-threaded too. (A
``del``, not a ``pop()``: the interpreter may raise a pending signal's exception, a
KeyboardInterrupt, right after a call returns, and a baton popped then would be lost
for good; a ``del`` is no call, and from there on a ``finally`` puts it back.) The clock
is read before the baton is taken, so the baton is never held across a call, where
the interpreter may switch threads for a whole switch interval. A check that finds the
baton taken (another check is within those few operations) is refused, and so is one
whose clock reading went stale meanwhile: the cap admits less than a continuous bucket
then, never more, and a refused check spends nothing. :meth:`update` waits for the
baton (briefly), and a fork child gets it back if a thread of the parent held it.
"""

from __future__ import annotations

import math
import time

from dsampler import _fork
from dsampler._validate import check_per_second
from dsampler.clock import SYSTEM_CLOCK, Clock

__all__ = ["HardCap"]

_WAIT_S = 1.0  # how long update() waits for the baton before it writes without it


class HardCap:
    """At most ``credits_per_second`` admissions a second, ``max_balance`` at once.

    Admits what a continuous token bucket of that rate and size, starting full, admits
    (a whole credit per admission), except that it admits less under contention (see
    the module's docstring) and on a clock that goes backwards or reads NaN. A clock
    that raises raises out of :meth:`try_acquire`, holding nothing.

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

    def __init__(self, credits_per_second: float, max_balance: float, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._clock = clock
        self._now = clock.monotonic  # bound once: read by every check
        self.credits_per_second = check_per_second(credits_per_second, "credits_per_second")
        self.max_balance = check_per_second(max_balance, "max_balance")
        self._room = self.max_balance - 1.0  # owed at most this: a whole credit is there
        if self.credits_per_second > 0:  # full: as of forever ago, whatever the clock reads
            self._owed, self._at = 0.0, -math.inf
        else:  # a zero rate starts empty and admits nothing
            self._owed, self._at = self.max_balance, 0.0
        self._baton = [True]
        _fork.register(self)

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

    def _take_baton(self) -> bool:
        """Wait for the baton, off the request path; False if it never came (then write
        without it rather than hang or mint a second one)."""
        deadline = time.monotonic() + _WAIT_S
        while True:
            try:
                del self._baton[0]
                return True
            except IndexError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.0001)

    def _balance(self, now: float) -> float:
        owed = self._owed - (now - self._at) * self.credits_per_second if now > self._at else self._owed
        return self.max_balance - max(0.0, owed)

    @property
    def balance(self) -> float:
        """Credits available now (for tests and metrics)."""
        return self._balance(self._clock.monotonic())

    def update(self, credits_per_second: float, max_balance: float) -> None:
        """Change the rate in place, the balance pro-rated to the new maximum (a
        reconfigured controller does not hand out a fresh burst). Unchanged: a no-op.

        Raises:
            ConfigError: a negative, NaN or infinite figure.
        """
        rate = check_per_second(credits_per_second, "credits_per_second")
        maximum = check_per_second(max_balance, "max_balance")
        if rate == self.credits_per_second and maximum == self.max_balance:
            return
        held = self._take_baton()
        try:
            now = self._clock.monotonic()
            if not now >= self._at:  # NaN, or behind the line's reading: stay on that reading
                now = self._at if self._at > -math.inf else 0.0
            balance = self._balance(now)
            if self.max_balance > 0:
                balance = balance * maximum / self.max_balance
            self.credits_per_second, self.max_balance, self._room = rate, maximum, maximum - 1.0
            self._owed, self._at = maximum - min(max(balance, 0.0), maximum), now
        finally:
            if held:
                self._baton.append(True)

    def _reset_after_fork(self) -> None:
        if not self._baton:  # a thread of the parent was mid-check: it does not exist here
            self._baton.append(True)

    def __repr__(self) -> str:
        return f"HardCap(credits_per_second={self.credits_per_second}, max_balance={self.max_balance})"
