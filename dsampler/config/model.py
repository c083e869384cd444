"""The configuration model: frozen, validated values with a version.

Every class validates itself on construction with the same validators the parser uses,
so a configuration built in code is as safe as one read from a file. Change a value with
:func:`dataclasses.replace`, which validates again; never mutate. Field names are the
keys of the configuration file (see ``docs/configuration.md``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Final, Literal, TypeAlias

from dsampler.errors import ConfigError, show, typed
from dsampler.hashing.rules import DEFAULT_RULE, get_rule, validate_rate

__all__ = [
    "DEFAULT_MAX_OPERATIONS",
    "DEFAULT_RATE",
    "FIELD_CHECKS",
    "KINDS",
    "Action",
    "AttributeMatch",
    "Drop",
    "Match",
    "OperationStrategy",
    "Pattern",
    "RateLimit",
    "Rollout",
    "RolloutStep",
    "Rule",
    "Sample",
    "SamplingConfig",
    "Value",
    "validate_per_second",
]

DEFAULT_RATE: Final = 0.001
DEFAULT_MAX_OPERATIONS: Final = 2000
MAX_TEXT: Final = 1024  # span names, attribute keys and patterns; longer is a mistake
MAX_PER_SECOND: Final = 1e9
KINDS: Final = ("internal", "server", "client", "producer", "consumer")


def validate_per_second(value: object, field: str) -> float:
    """A traces-per-second figure: a finite number in [0, 1e9]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(field, f"expected a number of traces per second, got {typed(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ConfigError(
            field, f"expected a number in [0, {MAX_PER_SECOND:.0f}], got {show(value)}"
        ) from None
    if math.isnan(number) or not 0.0 <= number <= MAX_PER_SECOND:
        raise ConfigError(field, f"expected a number in [0, {MAX_PER_SECOND:.0f}], got {number!r}")
    return number


def validate_text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(field, f"expected a string, got {typed(value)}")
    if len(value) > MAX_TEXT:
        raise ConfigError(field, f"expected at most {MAX_TEXT} characters, got {len(value)}")
    return value


def _check(condition: bool, field: str, problem: str) -> None:
    if not condition:
        raise ConfigError(field, problem)


def _tuple_of(owner: object, name: str, kind: type | tuple[type, ...]) -> tuple[Any, ...]:
    """Field ``name`` of a frozen ``owner`` as a tuple of ``kind``, stored back as a tuple
    (a list would make the value unhashable, and state is keyed by rules)."""
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
        _check(
            self.kind in ("exact", "prefix", "glob"),
            "kind",
            f"expected exact, prefix or glob, got {show(self.kind)}",
        )
        validate_text(self.value, self.kind)


#: One accepted attribute value: a string pattern, or a bool, int or float compared exactly.
Value: TypeAlias = Pattern | bool | int | float


@dataclass(frozen=True, slots=True)
class AttributeMatch:
    """Attribute ``key`` present with one of ``values`` (a value of the same type)."""

    key: str
    values: tuple[Value, ...]

    def __post_init__(self) -> None:
        validate_text(self.key, "key")
        values = _tuple_of(self, "values", (Pattern, bool, int, float))
        _check(len(values) > 0, self.key, "expected at least one value")
        for value in values:
            if isinstance(value, float) and math.isnan(value):
                raise ConfigError(self.key, "NaN never equals anything; expected a number")
            _check(
                isinstance(value, (Pattern, bool, int, float)),
                self.key,
                f"expected a string, number or bool, got {type(value).__name__}",
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
        _tuple_of(self, "span_name", Pattern)
        for kind in _tuple_of(self, "span_kind", str):
            _check(kind in KINDS, "span_kind", f"expected one of {', '.join(KINDS)}, got {show(kind)}")
        _tuple_of(self, "attributes", AttributeMatch)
        _tuple_of(self, "resource", AttributeMatch)


@dataclass(frozen=True, slots=True)
class Drop:
    """Never sample what matches (health checks, metrics scrapes)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """Sample what matches at ``rate``, decided by the trace-ID hash."""

    rate: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", validate_rate(self.rate, "sample"))


@dataclass(frozen=True, slots=True)
class RateLimit:
    """Sample at most ``per_second`` of what matches (token bucket, Jaeger semantics)."""

    per_second: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_second", validate_per_second(self.per_second, "rate_limit"))


@dataclass(frozen=True, slots=True)
class RolloutStep:
    """From a moment on, sample at ``rate``: ``at`` a UTC time, or ``after_s`` seconds
    after the rollout's start."""

    rate: float
    at: datetime | None = None
    after_s: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", validate_rate(self.rate, "rate"))
        _check((self.at is None) != (self.after_s is None), "at", "expected exactly one of at or after")
        if self.at is not None:
            _check(
                isinstance(self.at, datetime) and self.at.utcoffset() is not None,
                "at",
                f"expected a time with a time zone, got {show(self.at)}",
            )
        if isinstance(self.after_s, int) and not isinstance(self.after_s, bool):
            object.__setattr__(self, "after_s", float(self.after_s))
        if self.after_s is not None:
            _check(
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
        _check(len(_tuple_of(self, "steps", RolloutStep)) > 0, "steps", "expected at least one step")
        if self.start is not None:
            _check(
                self.start.utcoffset() is not None,
                "start",
                f"expected a time with a time zone, got {show(self.start)}",
            )
        absolute = [s.at is not None for s in self.steps]
        _check(
            all(absolute) or not any(absolute), "steps", "expected all steps to use at, or all to use after"
        )
        keys = [s.at.timestamp() if s.at is not None else s.after_s for s in self.steps]
        for i in range(1, len(self.steps)):
            _check(keys[i] > keys[i - 1], f"steps[{i}]", "expected each step to start after the previous one")  # type: ignore[operator]
            _check(
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
        _check(isinstance(self.match, Match), "match", f"expected a Match, got {typed(self.match)}")
        _check(
            isinstance(self.action, (Drop, Sample, RateLimit, Rollout)),
            "action",
            f"expected Drop, Sample, RateLimit or Rollout, got {type(self.action).__name__}",
        )
        if self.name is not None:
            validate_text(self.name, "name")


@dataclass(frozen=True, slots=True)
class OperationStrategy:
    """Per-operation (span name) strategy, Jaeger's: a probabilistic ``rate`` plus a
    guaranteed lower bound of traces per second (``None``: the config's default)."""

    rate: float
    lower_bound_per_second: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", validate_rate(self.rate, "rate"))
        if self.lower_bound_per_second is not None:
            value = validate_per_second(self.lower_bound_per_second, "lower_bound_per_second")
            object.__setattr__(self, "lower_bound_per_second", value)


class _Operations(Mapping[str, OperationStrategy]):
    """A read-only, hashable copy of the operations. Replacing another field of a
    configuration keeps this same object, which is how a snapshot build recognises
    that the operations did not change (and skips re-validating 2,000 of them)."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: dict[str, OperationStrategy]) -> None:
        self._data = data
        self._hash: int | None = None

    @classmethod
    def validated(cls, value: object) -> _Operations:
        if not isinstance(value, Mapping):
            raise ConfigError(
                "operations", f"expected a mapping of name to OperationStrategy, got {show(value)}"
            )
        data = dict(value)
        for name, strategy in data.items():
            validate_text(name, "operations")
            _check(
                isinstance(strategy, OperationStrategy),
                f"operations[{name!r}]",
                f"expected an OperationStrategy, got {show(strategy)}",
            )
        return cls(data)

    def __getitem__(self, key: str) -> OperationStrategy:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._data) == dict(other)

    def __repr__(self) -> str:
        return f"{{{', '.join(f'{k!r}: {v!r}' for k, v in self._data.items())}}}"


@dataclass(frozen=True, slots=True)
class SamplingConfig:
    """One whole sampling configuration. Published snapshots carry a ``version`` that
    only grows; a configuration that was never published has version 0.

    Attributes:
        rate: default sampling rate for root spans no rule or operation decides.
        hash: decision rule (``fnv1a``, ``fnv1a-mix``, ``xxh3``, ``otel``, ``jaeger``,
            ``jaeger-go``).
        parent_based: children follow their parent's sampled flag (default True).
        record_version: sampled root spans carry ``dsampler.config_version``.
        max_operations: at most this many operations are tracked (default 2000);
            others are decided at the default rate without a lower bound.
        traces_per_second: optional global cap on sampled root spans per second.
        default_lower_bound_per_second: guaranteed traces per second per operation,
            Jaeger's ``defaultLowerBoundTracesPerSecond`` (default 0: off).
        operations: per span name strategies.
        rules: ordered rules; the first that matches decides.
    """

    rate: float = DEFAULT_RATE
    hash: str = DEFAULT_RULE
    parent_based: bool = True
    record_version: bool = False
    max_operations: int = DEFAULT_MAX_OPERATIONS
    traces_per_second: float | None = None
    default_lower_bound_per_second: float = 0.0
    operations: Mapping[str, OperationStrategy] = field(default_factory=lambda: _Operations({}))
    rules: tuple[Rule, ...] = ()
    version: int = 0

    def __post_init__(self) -> None:
        for name, check in FIELD_CHECKS.items():
            value = getattr(self, name)
            checked = check(value)
            if checked is not value:
                object.__setattr__(self, name, checked)
        self._check_together()

    def _check_together(self) -> None:
        if len(self.operations) > self.max_operations:
            problem = (
                f"expected at most max_operations ({self.max_operations}) entries, got {len(self.operations)}"
            )
            raise ConfigError("operations", problem)

    def evolve(self, **changes: Any) -> SamplingConfig:
        """This configuration with ``changes``, validating only the changed fields and
        the checks that span fields: what ``dataclasses.replace`` does, at the cost of
        the change rather than of the whole configuration (an update path runs it
        thousands of times a second).

        Raises:
            ConfigError: a changed value is invalid, or an unknown field is named.
        """
        copy: SamplingConfig = object.__new__(SamplingConfig)
        for name in _FIELD_NAMES:
            object.__setattr__(copy, name, getattr(self, name))
        for name, value in changes.items():
            check = FIELD_CHECKS.get(name)
            if check is None:
                raise ConfigError(name, "unknown field of SamplingConfig")
            object.__setattr__(copy, name, check(value))
        copy._check_together()
        return copy

    def stamped(self, version: int) -> SamplingConfig:
        """This configuration as version ``version``, without validating it again (a
        store stamps every configuration it publishes; it was validated when built)."""
        return self.evolve(version=version)


_FIELD_NAMES: Final = tuple(f.name for f in fields(SamplingConfig))


def _bool_field(name: str) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        if not isinstance(value, bool):
            raise ConfigError(name, f"expected true or false, got {typed(value)}")
        return value

    return check


def _max_operations(value: object) -> int:
    if type(value) is not int or not 0 <= value <= 1_000_000:
        raise ConfigError("max_operations", f"expected an integer in [0, 1000000], got {show(value)}")
    return value


def _hash(value: object) -> str:
    return get_rule(value, "hash").name


def _cap(value: object) -> float | None:
    return None if value is None else validate_per_second(value, "traces_per_second")


def _operations(value: object) -> _Operations:
    return value if isinstance(value, _Operations) else _Operations.validated(value)


def _rules(value: object) -> tuple[Rule, ...]:
    if type(value) is tuple and all(type(r) is Rule for r in value):
        return value
    if not isinstance(value, (tuple, list)) or not all(isinstance(r, Rule) for r in value):
        raise ConfigError("rules", f"expected a sequence of Rule, got {show(value)}")
    return tuple(value)


def _version(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ConfigError("version", f"expected an integer >= 0, got {show(value)}")
    return value


#: Field -> its check, returning the value to store (the same object when unchanged).
#: Plain ``if`` checks: building error text for checks that pass would cost more than
#: the checks, and an update path publishes thousands of configurations a second.
FIELD_CHECKS: Final[dict[str, Callable[[Any], Any]]] = {
    "rate": lambda v: validate_rate(v, "rate"),
    "hash": _hash,
    "parent_based": _bool_field("parent_based"),
    "record_version": _bool_field("record_version"),
    "max_operations": _max_operations,
    "traces_per_second": _cap,
    "default_lower_bound_per_second": lambda v: validate_per_second(v, "default_lower_bound_per_second"),
    "operations": _operations,
    "rules": _rules,
    "version": _version,
}
