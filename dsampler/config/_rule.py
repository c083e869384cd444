"""Match rules of a configuration: what a rule matches and the action it takes, as frozen,
validated values. Run-time state (token buckets, rollout anchors) is keyed by these
values, which is why every sequence is stored as a tuple.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, TypeAlias

from dsampler._validate import check_per_second, check_rate, check_text, show, typed
from dsampler.errors import ConfigError

KINDS: Final = ("internal", "server", "client", "producer", "consumer")


def check(condition: bool, field: str, problem: str) -> None:
    if not condition:
        raise ConfigError(field, problem)


def zoned(value: object, field: str) -> None:
    check(
        isinstance(value, datetime) and value.utcoffset() is not None,
        field,
        f"expected a time with a time zone, got {show(value)}",
    )


def tuple_of(owner: object, name: str, kind: type | tuple[type, ...]) -> tuple[Any, ...]:
    """Field ``name`` of a frozen ``owner`` as a tuple of ``kind``, stored back as one."""
    value = getattr(owner, name)
    if not isinstance(value, (tuple, list)):
        raise ConfigError(name, f"expected a sequence, got {typed(value)}")
    for item in value:
        if not isinstance(item, kind):
            expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise ConfigError(name, f"expected {expected} items, got {typed(item)}")
    if type(value) is not tuple:
        object.__setattr__(owner, name, tuple(value))
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A string pattern: ``exact`` equality, ``prefix``, or shell-style ``glob``."""

    kind: Literal["exact", "prefix", "glob"]
    value: str

    def __post_init__(self) -> None:
        check(
            self.kind in ("exact", "prefix", "glob"),
            "kind",
            f"expected exact, prefix or glob, got {show(self.kind)}",
        )
        check_text(self.value, self.kind)


#: One accepted attribute value: a string pattern, or a bool, int or float compared exactly.
Value: TypeAlias = Pattern | bool | int | float
#: The values of an attribute compared as text that accept any value.
ANY_TEXT: Final = (Pattern("glob", "*"),)


@dataclass(frozen=True, slots=True)
class AttributeMatch:
    """Attribute ``key`` present with one of ``values`` (a value of the same type). With
    ``text``, as OpenTelemetry's attribute predicates compare: the text of the value, or
    of any item of an array, matches one of ``values`` (string patterns; none: nothing
    matches) and none of ``excluded``."""

    key: str
    values: tuple[Value, ...]
    excluded: tuple[Pattern, ...] = ()
    text: bool = False

    def __post_init__(self) -> None:
        check_text(self.key, "key")
        values = tuple_of(self, "values", (Pattern, bool, int, float))
        tuple_of(self, "excluded", Pattern)
        check(isinstance(self.text, bool), "text", f"expected true or false, got {show(self.text)}")
        check(self.text or len(values) > 0, self.key, "expected at least one value")
        check(self.text or not self.excluded, f"{self.key}.excluded", "excluded patterns compare text")
        for value in values:
            if isinstance(value, float) and math.isnan(value):
                raise ConfigError(self.key, "NaN never equals anything; expected a number")
            check(
                isinstance(value, Pattern) or not self.text,
                self.key,
                f"compared as text: expected string patterns, got {type(value).__name__}",
            )


@dataclass(frozen=True, slots=True)
class Match:
    """What a rule matches; every given part must match, an empty part matches all.

    Resource attributes are fixed for a process, so they are checked once when a
    snapshot is built: a rule whose resource part does not match is left out.
    """

    span_name: tuple[Pattern, ...] = ()
    span_kind: tuple[str, ...] = ()
    attributes: tuple[AttributeMatch, ...] = ()
    resource: tuple[AttributeMatch, ...] = ()

    def __post_init__(self) -> None:
        tuple_of(self, "span_name", Pattern)
        for kind in tuple_of(self, "span_kind", str):
            check(kind in KINDS, "span_kind", f"expected one of {', '.join(KINDS)}, got {show(kind)}")
        tuple_of(self, "attributes", AttributeMatch)
        tuple_of(self, "resource", AttributeMatch)


@dataclass(frozen=True, slots=True)
class Drop:
    """Never sample what matches (health checks, metrics scrapes)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """Sample what matches at ``rate``, decided by the trace-ID hash."""

    rate: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate(self.rate, "sample"))


@dataclass(frozen=True, slots=True)
class RateLimit:
    """Sample at most ``per_second`` of what matches (token bucket, Jaeger semantics)."""

    per_second: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_second", check_per_second(self.per_second, "rate_limit"))


@dataclass(frozen=True, slots=True)
class RolloutStep:
    """From a moment on, sample at ``rate``: ``at`` a UTC time, or ``after_s`` seconds
    after the rollout's start."""

    rate: float
    at: datetime | None = None
    after_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate(self.rate, "rate"))
        check((self.at is None) != (self.after_s is None), "at", "expected exactly one of at or after")
        if self.at is not None:
            zoned(self.at, "at")
        if isinstance(self.after_s, int) and not isinstance(self.after_s, bool):
            object.__setattr__(self, "after_s", float(self.after_s))
        if self.after_s is not None:
            check(
                isinstance(self.after_s, float) and 0.0 <= self.after_s < math.inf,
                "after",
                f"expected a duration of at least 0s, got {show(self.after_s)}",
            )


@dataclass(frozen=True, slots=True)
class Rollout:
    """A progressive rollout: the rate steps up over time and never down, so every trace
    sampled at one step stays sampled at the next (the bound only grows). Before the
    first step nothing that matches is sampled.

    ``start`` anchors the ``after`` offsets; when absent, the anchor is the moment the
    rule was first published, kept across later updates that leave the rule unchanged.
    """

    steps: tuple[RolloutStep, ...]
    start: datetime | None = None

    def __post_init__(self) -> None:
        check(len(tuple_of(self, "steps", RolloutStep)) > 0, "steps", "expected at least one step")
        if self.start is not None:
            zoned(self.start, "start")
        absolute = [s.at is not None for s in self.steps]
        check(
            all(absolute) or not any(absolute), "steps", "expected all steps to use at, or all to use after"
        )
        keys = [s.at.timestamp() if s.at is not None else s.after_s for s in self.steps]
        for i in range(1, len(self.steps)):
            check(keys[i] > keys[i - 1], f"steps[{i}]", "expected each step to start after the previous one")  # type: ignore[operator]
            check(
                self.steps[i].rate >= self.steps[i - 1].rate,
                f"steps[{i}].rate",
                f"a rollout only raises the rate: {self.steps[i].rate} after {self.steps[i - 1].rate}",
            )


Action: TypeAlias = Drop | Sample | RateLimit | Rollout


@dataclass(frozen=True, slots=True)
class Rule:
    """If ``match`` matches a root span, ``action`` decides it; the first match wins."""

    match: Match
    action: Action
    name: str | None = None

    def __post_init__(self) -> None:
        check(isinstance(self.match, Match), "match", f"expected a Match, got {typed(self.match)}")
        check(
            isinstance(self.action, (Drop, Sample, RateLimit, Rollout)),
            "action",
            f"expected Drop, Sample, RateLimit or Rollout, got {type(self.action).__name__}",
        )
        if self.name is not None:
            check_text(self.name, "name")
