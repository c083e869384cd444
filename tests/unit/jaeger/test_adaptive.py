"""dsampler.jaeger.AdaptiveSampler under hostile operation names and busy writers."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dsampler import ConfigError, ManualClock
from dsampler._validate import DEFAULT_MAX_OPERATIONS, MAX_TEXT
from dsampler.jaeger import AdaptiveSampler, ProbabilisticSampler

DEFAULT_TAGS = {"sampler.type": "probabilistic", "sampler.param": 0.0}
TRACKED_TAGS = {"sampler.type": "probabilistic", "sampler.param": 1.0}


def always_for_tracked(max_operations: int = 10) -> AdaptiveSampler:
    """Tracked operations sample everything (rate 1), the default sampler nothing (rate 0)."""
    sampler = AdaptiveSampler(
        {
            "defaultSamplingProbability": 1.0,  # the rate of operations first seen at run time
            "defaultLowerBoundTracesPerSecond": 0.0,
            "perOperationStrategies": [
                {"operation": "known", "probabilisticSampling": {"samplingRate": 1.0}}
            ],
        },
        max_operations,
        clock=ManualClock(),
    )
    sampler.default_sampler = ProbabilisticSampler(0.0)  # what decides untracked operations
    return sampler


class SpyLock:
    """A real lock that records how it was acquired."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[bool] = []  # the blocking flag of each acquire

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        self.calls.append(blocking)
        return self.lock.acquire(blocking, timeout)

    def release(self) -> None:
        self.lock.release()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def test_a_name_longer_than_max_text_is_decided_by_the_default_sampler() -> None:
    """Names over MAX_TEXT characters get no sampler of their own; MAX_TEXT itself does."""
    sampler = always_for_tracked()
    assert sampler.is_sampled(1, "x" * (MAX_TEXT + 1)) == (False, DEFAULT_TAGS)
    assert sampler.is_sampled(1, "y" * MAX_TEXT) == (True, TRACKED_TAGS)
    assert sorted(len(name) for name in sampler.samplers) == [5, MAX_TEXT]


def test_600_names_of_a_megabyte_hold_nothing() -> None:
    """The issue's attack: 600 names of 1 MB each are not kept at all."""
    sampler = always_for_tracked(max_operations=1000)
    for i in range(600):
        sampler.is_sampled(i, f"{i:04d}" + "z" * 1_000_000)
    assert list(sampler.samplers) == ["known"]


def test_a_str_subclass_is_tracked_by_its_text_alone() -> None:
    """A str subclass is tracked under a plain copy of its text: its own methods never run."""

    class Name(str):
        def __hash__(self) -> int:
            raise ValueError("hash")

        def __eq__(self, other: object) -> bool:
            raise ValueError("eq")

    sampler = always_for_tracked()
    assert sampler.is_sampled(1, Name("route")) == (True, TRACKED_TAGS)
    assert sampler.is_sampled(1, Name("known")) == (True, TRACKED_TAGS)
    assert [type(name) for name in sampler.samplers] == [str, str]
    assert sampler.samplers["route"].operation == "route"


class BadHash:
    def __hash__(self) -> int:
        raise ValueError("no hash for you")


class BadClass:
    @property  # type: ignore[misc]
    def __class__(self) -> Any:  # isinstance() reads this: user code
        raise RuntimeError("no class for you")


@pytest.mark.parametrize(
    "make",
    [BadHash, BadClass, lambda: ["op"], lambda: None, lambda: b"op", lambda: 7],
    ids=["__hash__ raises", "__class__ raises", "list", "None", "bytes", "int"],
)
def test_operations_that_are_not_names_never_raise(make: Any) -> None:
    """Non-string operations (even ones whose __hash__ or __class__ raise) go to the default."""
    sampler = always_for_tracked()
    assert sampler.is_sampled(1, make()) == (False, DEFAULT_TAGS)
    assert list(sampler.samplers) == ["known"]


def test_decisions_take_no_lock() -> None:
    """Tracking a new operation, and deciding one past max_operations, touch no lock."""
    sampler = always_for_tracked(max_operations=3)
    spy = SpyLock()
    sampler._guard.lock = spy  # type: ignore[assignment]
    assert sampler.is_sampled(1, "new") == (True, TRACKED_TAGS)
    assert sampler.is_sampled(1, "third") == (True, TRACKED_TAGS)
    for i in range(100):
        assert sampler.is_sampled(1, f"unseen-{i}") == (False, DEFAULT_TAGS)
    assert spy.calls == []
    assert sorted(sampler.samplers) == ["known", "new", "third"]


def test_a_decision_does_not_wait_for_a_writer_holding_the_lock() -> None:
    """With the writer lock held elsewhere, an unseen operation is tracked and decided
    from another thread all the same."""
    sampler = always_for_tracked()
    got: list[tuple[bool, dict[str, Any]]] = []
    sampler._guard.lock.acquire()
    try:
        worker = threading.Thread(target=lambda: got.append(sampler.is_sampled(1, "busy")))
        worker.start()
        worker.join(timeout=10)
        assert not worker.is_alive(), "is_sampled waited for the writer lock"
    finally:
        sampler._guard.lock.release()
    assert got == [(True, TRACKED_TAGS)]
    assert "busy" in sampler.samplers


def test_tracked_operations_are_kept_across_an_update_at_its_defaults() -> None:
    """An update replaces the strategy's operations and keeps those tracked since (the
    same sampler, at the new default rate and lower bound), within max_operations."""
    sampler = always_for_tracked(max_operations=3)
    sampler.is_sampled(1, "seen")
    seen = sampler.samplers["seen"]
    sampler.update(
        {
            "defaultSamplingProbability": 0.25,
            "defaultLowerBoundTracesPerSecond": 2.0,
            "perOperationStrategies": [
                {"operation": op, "probabilisticSampling": {"samplingRate": 1.0}} for op in ("a", "b")
            ],
        }
    )
    assert sorted(sampler.samplers) == ["a", "b", "seen"]
    assert sampler.samplers["seen"] is seen
    assert (seen.rate, seen.lower_bound) == (0.25, 2.0)
    sampler.update({"perOperationStrategies": [{"operation": op} for op in ("a", "b", "c")]})
    assert sorted(sampler.samplers) == ["a", "b", "c"]  # no room left for it


@pytest.mark.parametrize("max_operations", [None, DEFAULT_MAX_OPERATIONS])
def test_max_operations_none_means_the_default(max_operations: int | None) -> None:
    """None means jaeger-client's default of 2000 (jaeger-client raised at the first new name)."""
    sampler = AdaptiveSampler({}, max_operations)
    assert sampler.max_operations == DEFAULT_MAX_OPERATIONS
    assert str(sampler) == "AdaptiveSampler(0.001000, 0.001667, 2000)"


def test_max_operations_zero_tracks_only_the_strategy_operations() -> None:
    """0 tracks nothing beyond the strategy's operations, as jaeger-client's AdaptiveSampler."""
    sampler = always_for_tracked(max_operations=0)
    assert sampler.is_sampled(1, "other") == (False, DEFAULT_TAGS)
    assert sampler.is_sampled(1, "known") == (True, TRACKED_TAGS)


@pytest.mark.parametrize(
    "value", [-1, 10**400, 2.5, "100", True], ids=["-1", "10**400", "2.5", "str", "bool"]
)
def test_bad_max_operations_name_the_argument(value: object) -> None:
    """Negative, huge, fractional, textual or boolean caps are refused, naming the argument."""
    with pytest.raises(ConfigError) as info:
        AdaptiveSampler({}, value)  # type: ignore[arg-type]
    assert info.value.field == "max_operations"


def test_a_strategy_operation_longer_than_max_text_is_refused() -> None:
    """A strategy naming an operation no decision could ever match is refused, naming it."""
    strategies = {"perOperationStrategies": [{"operation": "x" * (MAX_TEXT + 1)}]}
    with pytest.raises(ConfigError) as info:
        AdaptiveSampler(strategies)
    assert info.value.field == "operationSampling.perOperationStrategies[0].operation"
