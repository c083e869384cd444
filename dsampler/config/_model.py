"""The configuration model: frozen values with a version, validated on construction by
the parser's own checks, so one built in code is as safe as one read from a file."""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypedDict

from dsampler._validate import (
    DEFAULT_MAX_OPERATIONS,
    check_bool,
    check_max_operations,
    check_optional,
    check_per_second,
    check_rate,
    check_text,
    show,
)
from dsampler.config._adaptive import AdaptiveSettings
from dsampler.config._remote import RemoteSettings
from dsampler.config._rule import Rule, check
from dsampler.errors import ConfigError
from dsampler.hashing import DEFAULT_SCHEME, get_scheme

if TYPE_CHECKING:
    from typing_extensions import Unpack


DEFAULT_RATE: Final = 0.001


@dataclass(frozen=True, slots=True)
class OperationStrategy:
    """Per-operation (span name) strategy, Jaeger's: a probabilistic ``rate`` plus a
    guaranteed lower bound of traces per second (``None``: the config's default)."""

    rate: float
    lower_bound_per_second: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", check_rate(self.rate, "rate"))
        if self.lower_bound_per_second is not None:
            value = check_per_second(self.lower_bound_per_second, "lower_bound_per_second")
            object.__setattr__(self, "lower_bound_per_second", value)


class _Operations(Mapping[str, OperationStrategy]):
    """A read-only, hashable copy of the operations, kept as the same object when other
    fields change: how a snapshot build sees that the operations did not."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: dict[str, OperationStrategy]) -> None:
        self._data = data
        self._hash: int | None = None

    def __getitem__(self, key: str) -> OperationStrategy:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def items(self) -> ItemsView[str, OperationStrategy]:
        return self._data.items()  # the dict's own view: a compile walks 20,000 of them

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __repr__(self) -> str:
        return repr(self._data)


class ConfigFields(TypedDict, total=False):
    """Fields of :class:`~dsampler.config.SamplingConfig` as the model holds them
    (``config.evolve(rate=0.5)``): built values, not the file's forms."""

    rate: float
    hash: str
    parent_based: bool
    record_version: bool
    sampler_tags: bool
    write_th: bool
    max_operations: int
    traces_per_second: float | None
    default_lower_bound_per_second: float
    operations: Mapping[str, OperationStrategy]
    rules: Sequence[Rule]
    adaptive: AdaptiveSettings | None
    remote: RemoteSettings | None
    version: int


@dataclass(frozen=True)
class SamplingConfig:
    """One whole sampling configuration. Published snapshots carry a ``version`` that
    only grows; a configuration that was never published has version 0.

    Attributes:
        rate: default sampling rate for root spans no rule or operation decides.
        hash: decision rule (``fnv1a``, ``fnv1a-mix``, ``xxh3``, ``otel``, ``jaeger``,
            ``jaeger-go``, ``consistent``, ``otel-java``, ``otel-js``).
        parent_based: children follow their parent's sampled flag (default True).
        record_version: sampled root spans carry ``dsampler.config_version``.
        sampler_tags: sampled root spans carry ``sampler.type`` and ``sampler.param``,
            the tags Jaeger's adaptive sampling learns from (default False).
        write_th: every decision states its sampling threshold in the ``ot``
            tracestate entry (default True; see docs/consistent-sampling.md). False:
            tracestates are handed on as they came.
        max_operations: at most this many operations are tracked (default 2000);
            others are decided at the default rate without a lower bound.
        traces_per_second: optional global cap on sampled root spans per second.
        default_lower_bound_per_second: guaranteed traces per second per operation,
            Jaeger's ``defaultLowerBoundTracesPerSecond`` (default 0: off).
        operations: per span name strategies.
        rules: ordered rules; the first that matches decides.
        adaptive: settings of the adaptive controller, which then owns ``rate``
            (see :class:`~dsampler.config.AdaptiveSettings`); None: a fixed rate.
        remote: a Jaeger sampling endpoint, which then owns ``rate``, the cap, the
            default lower bound and ``operations`` (see
            :class:`~dsampler.config.RemoteSettings`); None: this configuration's own.
    """

    rate: float = DEFAULT_RATE
    hash: str = DEFAULT_SCHEME
    parent_based: bool = True
    record_version: bool = False
    sampler_tags: bool = False
    write_th: bool = True
    max_operations: int = DEFAULT_MAX_OPERATIONS
    traces_per_second: float | None = None
    default_lower_bound_per_second: float = 0.0
    operations: Mapping[str, OperationStrategy] = field(default_factory=lambda: _Operations({}))
    rules: tuple[Rule, ...] = ()
    adaptive: AdaptiveSettings | None = None
    remote: RemoteSettings | None = None
    version: int = 0

    def __post_init__(self) -> None:
        self.__dict__.update(check_values(self.__dict__))  # its fields, checked in order
        self._check_together()

    def _check_together(self) -> None:
        if len(self.operations) > self.max_operations:
            problem = (
                f"expected at most max_operations ({self.max_operations}) entries, got {len(self.operations)}"
            )
            raise ConfigError("operations", problem)
        if self.adaptive is not None and self.remote is not None:
            raise ConfigError(
                "adaptive",
                "adaptive and remote both own the default rate: configure one of them, not both",
            )

    def evolve(self, **changes: Unpack[ConfigFields]) -> SamplingConfig:
        """This configuration with ``changes``, validating only the changed fields and
        the checks that span fields: ``dataclasses.replace`` at the cost of the change.

        Raises:
            ConfigError: a changed value is invalid, or an unknown field is named.
        """
        copy: SamplingConfig = _new(SamplingConfig)
        values = copy.__dict__
        values.update(self.__dict__)  # one copy in C: the fields are the instance's dict
        values.update(check_values(changes))
        if not _TOGETHER.isdisjoint(changes):  # self holds them together already
            copy._check_together()
        return copy

    def stamped(self, version: int) -> SamplingConfig:
        """This configuration as version ``version``, without validating it again."""
        return self.evolve(version=version)


_TOGETHER: Final = frozenset({"operations", "max_operations", "adaptive", "remote"})
_new = object.__new__


def _operations(value: object) -> _Operations:
    if isinstance(value, _Operations):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError("operations", f"expected a mapping of name to OperationStrategy, got {show(value)}")
    for name, strategy in value.items():
        check_text(name, "operations")
        check(
            isinstance(strategy, OperationStrategy),
            f"operations[{name!r}]",
            f"expected an OperationStrategy, got {show(strategy)}",
        )
    return _Operations(dict(value))


def _rules(value: object) -> tuple[Rule, ...]:
    if not isinstance(value, (tuple, list)) or not all(isinstance(r, Rule) for r in value):
        raise ConfigError("rules", f"expected a sequence of Rule, got {show(value)}")
    return tuple(value)  # a tuple itself, unchanged


def _version(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ConfigError("version", f"expected an integer >= 0, got {show(value)}")
    return value


#: Field -> its check, returning the value to store (the same object when unchanged).
FIELD_CHECKS: Final[dict[str, Callable[[Any], Any]]] = {
    "rate": check_rate,
    "hash": lambda v: get_scheme(v, "hash").name,
    "parent_based": lambda v: check_bool(v, "parent_based"),
    "record_version": lambda v: check_bool(v, "record_version"),
    "sampler_tags": lambda v: check_bool(v, "sampler_tags"),
    "write_th": lambda v: check_bool(v, "write_th"),
    "max_operations": check_max_operations,
    "traces_per_second": lambda v: None if v is None else check_per_second(v, "traces_per_second"),
    "default_lower_bound_per_second": lambda v: check_per_second(v, "default_lower_bound_per_second"),
    "operations": _operations,
    "rules": _rules,
    "adaptive": lambda v: check_optional(v, "adaptive", AdaptiveSettings),
    "remote": lambda v: check_optional(v, "remote", RemoteSettings),
    "version": _version,
}


def check_values(
    fields: Mapping[str, Any], checks: Mapping[str, Callable[[Any], Any]] = FIELD_CHECKS
) -> dict[str, Any]:
    """``fields`` each checked by its check in ``checks`` (a name without one is an
    unknown field of SamplingConfig)."""
    checked = {}
    for name, value in fields.items():
        check = checks.get(name)
        if check is None:
            raise ConfigError(name, "unknown field of SamplingConfig")
        checked[name] = check(value)
    return checked
