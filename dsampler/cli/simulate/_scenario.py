"""Synthetic workloads for the controller: phases of offered load and latency.

A scenario is a list of phases, each with a duration, an offered load (constant, or a
linear ramp to ``to_qps``), a latency factor over the baseline lognormal latency and an
error ratio. The built-in ones: ``steady``, ``spike`` (10x up and down),
``ramp``, ``latency`` (P99 x3 for 60 s) and ``square`` (2k <-> 8k rps every 30 s). A
user's scenario file (YAML or JSON) is validated like every other input::

    name: lunch peak
    target_traces_per_second: 50
    latency: {median: 40ms, sigma: 0.5}
    adaptive: {window: 10s}            # the config's adaptive: keys, target aside
    phases:
      - {duration: 2m, qps: 1000}
      - {duration: 5m, qps: 1000, to_qps: 8000}
      - {duration: 1m, qps: 8000, latency_factor: 3, error_ratio: 0.02}
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from dsampler._validate import check_number, check_per_second, check_rate, check_seconds, check_text, show
from dsampler.config import build, mapping, no_unknown_keys, parse_duration
from dsampler.errors import ConfigError

MAX_DURATION_S: Final = 6 * 3600.0
MAX_PHASES: Final = 1000
MAX_QPS: Final = 1e7


@dataclass(frozen=True, slots=True)
class Phase:
    """``duration_s`` of offered load ``qps`` (ramping linearly to ``to_qps`` if set),
    latencies ``latency_factor`` times the baseline, and ``error_ratio`` of errors."""

    duration_s: float
    qps: float
    to_qps: float | None = None
    latency_factor: float = 1.0
    error_ratio: float = 0.0

    def __post_init__(self) -> None:
        check_seconds(self.duration_s, "duration", 0.1, MAX_DURATION_S)
        check_number(self.qps, "qps", 0.0, MAX_QPS)
        if self.to_qps is not None:
            check_number(self.to_qps, "to_qps", 0.0, MAX_QPS)
        check_number(self.latency_factor, "latency_factor", 0.001, 1000.0)
        check_rate(self.error_ratio, "error_ratio")

    def qps_at(self, offset_s: float) -> float:
        if self.to_qps is None:
            return self.qps
        return self.qps + (self.to_qps - self.qps) * min(1.0, offset_s / self.duration_s)


@dataclass(frozen=True, slots=True)
class Scenario:
    """A workload for :func:`~dsampler.cli.simulate.simulate`.

    Attributes:
        name: shown in tables and plots.
        phases: what happens, in order.
        target_traces_per_second: the controller's target (default 50).
        latency_median_s, latency_sigma: baseline root-span latency, lognormal (40 ms,
            0.5: P99 128 ms, under the default 200 ms target).
        observe: ``sampled`` (the controller sees the latencies of sampled root spans,
            as its SpanProcessor does) or ``all`` (every request, as ``observe()`` from
            a middleware would).
        adaptive: settings for the controller in the file form, target aside.
        description: one line for the docs.
    """

    name: str
    phases: tuple[Phase, ...]
    target_traces_per_second: float = 50.0
    latency_median_s: float = 0.04
    latency_sigma: float = 0.5
    observe: str = "sampled"
    adaptive: Mapping[str, Any] = field(default_factory=dict, hash=False)
    description: str = ""

    def __post_init__(self) -> None:
        check_text(self.name, "name", 200)
        if not self.phases or len(self.phases) > MAX_PHASES:
            raise ConfigError("phases", f"expected 1 to {MAX_PHASES} phases, got {len(self.phases)}")
        if self.duration_s > MAX_DURATION_S:
            raise ConfigError(
                "phases", f"expected at most {MAX_DURATION_S:g} s in all, got {self.duration_s:g} s"
            )
        check_per_second(self.target_traces_per_second, "target_traces_per_second")
        if self.target_traces_per_second <= 0:
            raise ConfigError("target_traces_per_second", "expected a number above 0")
        check_seconds(self.latency_median_s, "latency.median", 1e-6, 3600.0)
        check_number(self.latency_sigma, "latency.sigma", 0.0, 3.0)
        if self.observe not in ("sampled", "all"):
            raise ConfigError("observe", f"expected sampled or all, got {show(self.observe)}")

    @property
    def duration_s(self) -> float:
        return sum(p.duration_s for p in self.phases)

    def edges(self) -> list[float]:
        """Start times of every phase after the first."""
        out, t = [], 0.0
        for p in self.phases[:-1]:
            t += p.duration_s
            out.append(t)
        return out

    def phase_at(self, t: float) -> tuple[Phase, float]:
        """The phase in force at ``t`` seconds and the offset into it."""
        starts = [0.0, *self.edges()]
        i = max(0, bisect.bisect_right(starts, t) - 1)
        return self.phases[i], t - starts[i]


def _steps(*phases: tuple[float, float]) -> tuple[Phase, ...]:
    return tuple(Phase(d, q) for d, q in phases)


BUILTIN_SCENARIOS: Final[dict[str, Scenario]] = {
    "steady": Scenario("steady", _steps((660.0, 2000.0)), description="2,000 rps for 11 minutes"),
    "spike": Scenario(
        "spike", _steps((120.0, 1000.0), (120.0, 10000.0), (120.0, 1000.0)), description="1k -> 10k -> 1k rps"
    ),
    "ramp": Scenario(
        "ramp",
        (
            Phase(60.0, 1000.0),
            Phase(300.0, 1000.0, 10000.0),
            Phase(60.0, 10000.0),
            Phase(300.0, 10000.0, 1000.0),
            Phase(60.0, 1000.0),
        ),
        description="1k -> 10k rps over 5 minutes and back",
    ),
    "latency": Scenario(
        "latency",
        (Phase(120.0, 2000.0), Phase(60.0, 2000.0, latency_factor=3.0), Phase(120.0, 2000.0)),
        description="2,000 rps; latency x3 for 60 s",
    ),
    "square": Scenario(
        "square",
        _steps(*[(30.0, 2000.0 if i % 2 == 0 else 8000.0) for i in range(20)]),
        description="2k <-> 8k rps every 30 s for 10 minutes",
    ),
}


def builtin_scenario(name: str) -> Scenario:
    """A built-in scenario by name.

    Raises:
        ConfigError: no such scenario (the field is ``--scenario``).
    """
    found = BUILTIN_SCENARIOS.get(name)
    if found is None:
        raise ConfigError(
            "--scenario", f"expected one of {', '.join(BUILTIN_SCENARIOS)} or a file, got {show(name)}"
        )
    return found


# -- file form -------------------------------------------------------------------------

_PHASE_KEYS: Final = ("duration", "qps", "to_qps", "latency_factor", "error_ratio")
_KEYS: Final = ("name", "description", "target_traces_per_second", "latency", "observe", "adaptive", "phases")


def _phase(value: object, path: str) -> Phase:
    data = mapping(value, path)
    no_unknown_keys(data, _PHASE_KEYS, path)
    for key in ("duration", "qps"):
        if key not in data:
            raise ConfigError(f"{path}.{key}", "missing")
    duration = parse_duration(data["duration"], f"{path}.duration", (0.1, MAX_DURATION_S))
    values = {k: data[k] for k in _PHASE_KEYS[1:] if k in data}
    return build(path, Phase, duration, **values)


def _phases(value: object) -> tuple[Phase, ...]:
    if not isinstance(value, list):
        raise ConfigError("phases", f"expected a list of phases, got {show(value)}")
    if not 1 <= len(value) <= MAX_PHASES:
        raise ConfigError("phases", f"expected 1 to {MAX_PHASES} phases, got {len(value)}")
    return tuple(_phase(v, f"phases[{i}]") for i, v in enumerate(value))


def _latency(value: object) -> tuple[float, object]:
    """(median seconds, sigma as written: the model checks it)."""
    latency = mapping(value, "latency")
    no_unknown_keys(latency, ("median", "sigma"), "latency")
    median = (
        parse_duration(latency["median"], "latency.median", (1e-6, 3600.0)) if "median" in latency else 0.04
    )
    return median, latency.get("sigma", 0.5)


def _adaptive(value: object) -> dict[str, Any]:
    """The controller settings, validated now (not in the middle of a run)."""
    from dsampler.config import parse_adaptive

    adaptive = mapping(value, "adaptive")
    if "target_traces_per_second" in adaptive:
        raise ConfigError("adaptive.target_traces_per_second", "set the scenario's target_traces_per_second")
    parse_adaptive({**adaptive, "target_traces_per_second": 1.0}, "adaptive")
    return dict(adaptive)


def parse_scenario(data: Mapping[str, Any], name: str = "scenario") -> Scenario:
    """A scenario document -> :class:`Scenario`; every problem names its field.

    Raises:
        ConfigError: the first problem, e.g. ``phases[2].qps: expected a number ...``.
    """
    no_unknown_keys(mapping(data, "scenario"), _KEYS, "")
    phases = _phases(data.get("phases"))
    median, sigma = _latency(data.get("latency", {}))
    adaptive = _adaptive(data.get("adaptive", {}))
    target = data.get("target_traces_per_second", 50.0)
    observe, description = data.get("observe", "sampled"), data.get("description", "")
    return build(
        "", Scenario, data.get("name", name), phases, target, median, sigma, observe, adaptive, description
    )


def load_scenario(source: str | os.PathLike[str]) -> Scenario:
    """A built-in scenario by name, or a scenario file (YAML or JSON).

    Raises:
        ConfigError: unknown name, unreadable file or invalid content, field named.
    """
    text = os.fspath(source)
    if text in BUILTIN_SCENARIOS:
        return BUILTIN_SCENARIOS[text]
    if not os.path.exists(text):
        builtin_scenario(text)  # raises, naming the built-ins
    from dsampler.config import load_document

    return parse_scenario(load_document(text), os.path.splitext(os.path.basename(text))[0])
