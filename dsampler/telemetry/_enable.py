"""Turning telemetry on explicitly: counting, instruments on a given MeterProvider, and
a periodic drift audit for processes that export no metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsampler import _fork
from dsampler._poller import Poller
from dsampler._validate import check_seconds
from dsampler.telemetry import _drift, _registry

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider


_guard = _fork.ModuleLock()  # another thread's enable() may hold it at a fork
_auditors: list[_Auditor] = []


class _Auditor:
    """Runs the drift audit over every DSampler every interval (a daemon thread)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._poller = Poller(self, interval_s, name="dsampler-drift-audit")
        self._poller.start()

    def poll_once(self) -> None:
        for _, sampler in _registry.numbered():
            _drift.audit(sampler)


def enable(meter_provider: MeterProvider | None = None, *, audit_interval_s: float | None = 60.0) -> None:
    """Count every DSampler's decisions from now on, report them through
    ``meter_provider`` as well as the global provider, and audit drift every
    ``audit_interval_s`` (None: only at metric collections and when called).

    Raises:
        ConfigError: ``audit_interval_s`` outside [1, 86400].
    """
    interval = audit_interval_s
    if interval is not None:
        interval = check_seconds(interval, "audit_interval_s", 1.0, 86400.0)
    _registry.count_everywhere()
    if meter_provider is not None:
        from dsampler.telemetry._metrics import instrument

        instrument(meter_provider)
    with _guard.lock:
        if interval is not None and not any(a.interval_s == interval for a in _auditors):
            _auditors.append(_Auditor(interval))
