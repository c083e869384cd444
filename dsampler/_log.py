"""The ``DSAMPLER_LOG_LEVEL`` switch (the ``dsampler`` logger's level only; the stderr
handler it adds steps aside for records a handler above receives, so nothing prints
twice) and the coalesced line of an applied change.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import Final

from dsampler.clock import SYSTEM_CLOCK, Clock

LEVEL_VARIABLE: Final = "DSAMPLER_LOG_LEVEL"
#: A polled source (a file, a remote endpoint) tells a change at once, and the changes
#: of the next this many polls after a line in one line.
QUIET_POLLS: Final = 10
_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class _Stderr(logging.Handler):
    """Standard error, as it is when a record comes (tests and hosts replace it), for
    the records no handler above the ``dsampler`` logger receives."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger("dsampler")
        if any(h is not self for h in logger.handlers) or _handled_above(logger):
            return
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


def _handled_above(logger: logging.Logger) -> bool:
    """Whether a record of ``logger`` reaches a handler of a logger above it."""
    parent = logger.parent if logger.propagate else None
    while parent is not None:
        if parent.handlers:
            return True
        parent = parent.parent if parent.propagate else None
    return False


def apply_level(environ: Mapping[str, str] = os.environ) -> None:
    """Set the ``dsampler`` logger's level from ``DSAMPLER_LOG_LEVEL`` (unset or blank
    leaves it alone; another value is named at WARNING)."""
    text = environ.get(LEVEL_VARIABLE, "").strip()
    if not text:
        return
    logger = logging.getLogger("dsampler")
    if text.upper() not in _LEVELS:
        logger.warning(
            "dsampler: %s=%.40r ignored: expected one of %s", LEVEL_VARIABLE, text, ", ".join(_LEVELS)
        )
        return
    logger.setLevel(text.upper())
    if not logger.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
        logger.addHandler(handler)


class ChangeReport:
    """One WARNING line per applied change (a file reload, a new remote strategy),
    without flooding: a change is told at once unless a line was told less than
    ``quiet_s`` ago; then the changes are held and told in one line after the quiet
    period, by :meth:`changed` or :meth:`flush` (which sources call at each poll).
    """

    __slots__ = ("_clock", "_held", "_last", "_logger", "_quiet_s", "_text")

    def __init__(self, logger: logging.Logger, quiet_s: float, clock: Clock = SYSTEM_CLOCK) -> None:
        self._logger = logger
        self._quiet_s = quiet_s
        self._clock = clock
        self._last: float | None = None
        self._held = 0
        self._text = ""

    def changed(self, text: str) -> None:
        """A change was applied; ``text`` says what is in force now."""
        self._held, self._text = self._held + 1, text
        self.flush()

    def flush(self) -> None:
        """Tell the changes held, if the quiet period since the last line is over."""
        if not self._held:
            return
        now = self._clock.monotonic()
        if self._last is not None and now - self._last < self._quiet_s:
            return
        held, self._held, self._last = self._held, 0, now
        if held == 1:
            self._logger.warning("%s", self._text)
        else:
            self._logger.warning("%s (the last of %d changes since the previous line)", self._text, held)
