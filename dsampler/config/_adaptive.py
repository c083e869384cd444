"""The ``adaptive:`` section: settings of the traces-per-second controller, frozen and
validated like the rest of the model. In the file, durations are written ``10s`` under
their field's name without its ``_s`` (docs/configuration.md). The controller owns the
default ``rate`` of a configuration with this section; rules and operations still
decide the spans they match.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from dsampler._validate import (
    MAX_PER_SECOND,
    check_number,
    check_optional,
    check_per_second,
    check_rate,
    plain,
    show,
)
from dsampler.config._shape import Check, check_fields, dump_section, mapping, no_unknown_keys, parse_section
from dsampler.errors import ConfigError


@dataclass(frozen=True, slots=True)
class HealthPolicy:
    """What the controller does when the service is unwell (D-Sampler's policy, on by
    default; ``health=None`` turns it off): the rate is multiplied while the error ratio
    is above ``error_ratio`` and while root-span P99 is above the target, never below
    ``floor`` (unless the load law alone asks for less). Each cut is logged at WARNING
    when it starts and when it ends.

    Attributes:
        error_ratio: error ratio of root spans above which ``error_multiplier`` applies
            (default 0.05).
        error_multiplier: rate multiplier while errors are high (default 0.5).
        latency_multiplier: rate multiplier while P99 is above ``p99_target_s``
            (default 0.7; 1.0 turns the latency part off).
        floor: the multipliers never take the rate below this (default 0.001).
        cooldown_s: a latency episode lasts at least this long once detected (default 10).
    """

    error_ratio: float = 0.05
    error_multiplier: float = 0.5
    latency_multiplier: float = 0.7
    floor: float = 0.001
    cooldown_s: float = 10.0

    def __post_init__(self) -> None:
        check_fields(self, _HEALTH_CHECKS)


#: Each field's check; a duration's is its range in seconds (the file form checks it as written).
_HEALTH_CHECKS: Final[dict[str, Check]] = {
    "error_ratio": check_rate,
    "error_multiplier": lambda v, n: check_number(v, n, 0.0, 1.0),
    "latency_multiplier": lambda v, n: check_number(v, n, 0.0, 1.0),
    "floor": check_rate,
    "cooldown_s": (0.0, 3600.0),
}


@dataclass(frozen=True, slots=True)
class AdaptiveSettings:
    """Settings of :class:`~dsampler.adaptive.AdaptiveController` (all but the target
    have D-Sampler's defaults).

    Attributes:
        target_traces_per_second: sampled root traces per second to hold: by each
            process, or by all the service's processes on this host (``share``).
        min_rate, max_rate: the rate stays in ``[min_rate, max_rate]`` (1e-6, 1.0).
        alpha, beta: weights of the window law ``f = max(alpha*QPS/QPS_baseline,
            beta*P99/P99_target)`` (0.8, 1.2).
        window_s, min_window_s, max_window_s: W0 and the range of ``W0/f`` (10, 3, 30 s).
        hysteresis: a shortened window relaxes back to W0 once ``f < 1 - hysteresis``.
        p99_target_s: root-span P99 target (0.2 s): the latency factor's reference and
            the health policy's threshold.
        health: the :class:`HealthPolicy`, or None for none.
        hard_cap_factor: a token bucket admits at most ``factor * target`` sampled
            traces per second whatever the rate (2.0); None for no cap.
        hard_cap_burst_s: that bucket holds ``burst_s`` seconds of its rate (0.1 s),
            so no one-second bin exceeds ``(factor + factor*burst_s) * target``.
        tick_s: how often the controller reads its counters (0.1 s).
        share: ``process`` (each process holds the target, its hard cap and every
            traces-per-second limit) or ``host`` (the processes forked from one master
            hold them together: docs/adaptive.md, "One budget per host").

    Raises:
        ConfigError: a value out of range, or ranges that contradict each other.
    """

    target_traces_per_second: float
    min_rate: float = 1e-6
    max_rate: float = 1.0
    alpha: float = 0.8
    beta: float = 1.2
    window_s: float = 10.0
    min_window_s: float = 3.0
    max_window_s: float = 30.0
    hysteresis: float = 0.1
    p99_target_s: float = 0.2
    health: HealthPolicy | None = field(default_factory=HealthPolicy)
    hard_cap_factor: float | None = 2.0
    hard_cap_burst_s: float = 0.1
    tick_s: float = 0.1
    share: str = "process"

    def __post_init__(self) -> None:
        check_fields(self, _CHECKS)
        _check_together(self)

    @property
    def hard_cap_per_second(self) -> float | None:
        """The backstop's rate, None without one."""
        factor = self.hard_cap_factor
        return None if factor is None else factor * self.target_traces_per_second


def _positive_per_second(value: object, name: str) -> float:
    number = check_per_second(value, name)
    if number <= 0.0:
        raise ConfigError(name, f"expected a number of traces per second above 0, got {show(value)}")
    return number


#: Whose budget the target is: each ``process``'s, or that of every process on this
#: ``host`` that descends from one master (docs/adaptive.md, "One budget per process,
#: per host or per fleet").
SHARES: Final = ("process", "host")


def _share(value: object, name: str) -> str:
    if not isinstance(value, str) or value not in SHARES:  # the type first: no user __eq__ runs
        raise ConfigError(name, f"expected one of {', '.join(SHARES)}, got {show(value)}")
    return value


_CHECKS: Final[dict[str, Check]] = {
    "target_traces_per_second": _positive_per_second,
    "min_rate": check_rate,
    "max_rate": check_rate,
    "alpha": lambda v, n: check_number(v, n, 0.0, 100.0),
    "beta": lambda v, n: check_number(v, n, 0.0, 100.0),
    "window_s": (0.1, 3600.0),
    "min_window_s": (0.1, 3600.0),
    "max_window_s": (0.1, 3600.0),
    "hysteresis": lambda v, n: check_number(v, n, 0.0, 0.9),
    "p99_target_s": (1e-6, 3600.0),
    "health": lambda v, n: check_optional(v, n, HealthPolicy),
    "hard_cap_factor": lambda v, n: None if v is None else check_number(v, n, 1.0, 1000.0),
    "hard_cap_burst_s": (0.0, 10.0),
    "tick_s": (0.001, 10.0),
    "share": _share,
}


def _check_together(s: AdaptiveSettings) -> None:
    if s.max_rate <= 0.0:
        raise ConfigError("max_rate", "expected a rate above 0 (a controller that may never sample)")
    if s.min_rate > s.max_rate:
        raise ConfigError(
            "min_rate", f"expected at most the maximum rate ({plain(s.max_rate)}), got {plain(s.min_rate)}"
        )
    if not s.min_window_s <= s.window_s <= s.max_window_s:
        bounds = f"[{plain(s.min_window_s)}s, {plain(s.max_window_s)}s]"
        raise ConfigError(
            "window_s", f"expected within the minimum and maximum window {bounds}, got {plain(s.window_s)}s"
        )
    if s.tick_s > s.min_window_s:
        problem = f"expected at most the minimum window ({plain(s.min_window_s)}s), got {plain(s.tick_s)}s"
        raise ConfigError("tick_s", problem)
    if (cap := s.hard_cap_per_second) is not None and cap > MAX_PER_SECOND:  # a bucket's most
        most, target = MAX_PER_SECOND / s.target_traces_per_second, plain(s.target_traces_per_second)
        problem = f"expected at most {most:.6g} for a target of {target}/s (the cap, factor x target,"
        got = plain(s.hard_cap_factor or 0)
        raise ConfigError("hard_cap_factor", f"{problem} is at most 1e9/s; null: none), got {got}")


def settings_with(base: float | AdaptiveSettings, changes: Mapping[str, Any]) -> AdaptiveSettings:
    """``base`` (a target or whole settings) with ``changes``. A misspelt setting is a
    ConfigError naming it, with a suggestion, as a file's unknown key is: not the
    TypeError of a dataclass constructor, which callers that catch ConfigError miss."""
    no_unknown_keys(changes, _CHECKS, "")
    if isinstance(base, AdaptiveSettings):
        return replace(base, **changes)
    return AdaptiveSettings(base, **changes)


# -- file form -------------------------------------------------------------------------


def _parse_health(value: object, path: str) -> HealthPolicy | None:
    if value is None or value is False:
        return None
    if value is True:
        return HealthPolicy()
    return parse_section(HealthPolicy, mapping(value, path), path, _HEALTH_CHECKS)


def parse_adaptive(value: object, path: str = "adaptive") -> AdaptiveSettings | None:
    """The file form of ``adaptive:`` (a mapping, or null for none; settings already
    built pass as they are) -> settings.

    Raises:
        ConfigError: every problem, each named by its path (``adaptive.min_window``).
    """
    if value is None or isinstance(value, AdaptiveSettings):
        return value
    data = mapping(value, path)
    if "target_traces_per_second" not in data:
        raise ConfigError(f"{path}.target_traces_per_second", "missing; expected traces per second above 0")
    return parse_section(AdaptiveSettings, data, path, {**_CHECKS, "health": _parse_health})


def dump_adaptive(settings: AdaptiveSettings | None) -> dict[str, Any] | None:
    """The canonical file form (``parse_adaptive(dump_adaptive(s)) == s``)."""
    if settings is None:
        return None
    out, health = dump_section(settings), settings.health
    out["health"] = False if health is None else dump_section(health)
    return out
