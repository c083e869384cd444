"""ConfigStore: versions, the history ring, rollback, all-or-nothing publishes."""

from __future__ import annotations

import dataclasses

import pytest

from dsampler import ConfigError, SamplingConfig
from dsampler.config._store import ConfigStore


class Compiled:
    """A trivial snapshot: just the configuration."""

    def __init__(self, config: SamplingConfig) -> None:
        self.config = config


def test_versions_start_at_one_and_only_grow() -> None:
    """The initial config is version 1; every publish, update and rollback adds one."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    assert store.current.config.version == 1
    store.publish(SamplingConfig(rate=0.2, version=99))  # a given version is ignored
    assert store.current.config.version == 2
    store.update(lambda c: dataclasses.replace(c, rate=0.3))
    store.rollback(1)
    assert [c.version for c in store.history] == [1, 2, 3, 4]
    assert store.current.config.rate == 0.1


def test_history_ring_keeps_the_last_n() -> None:
    """Only the last ``history`` configurations are kept; older versions cannot be rolled back to."""
    store = ConfigStore(Compiled, SamplingConfig(), history=3)
    for i in range(5):
        store.publish(SamplingConfig(rate=i / 10))
    assert [c.version for c in store.history] == [4, 5, 6]
    with pytest.raises(ConfigError, match=r"^version: expected a version in the history \(4\.\.6\), got 2"):
        store.rollback(2)
    assert store.current.config.version == 6


def test_a_failing_compile_publishes_nothing() -> None:
    """If building the snapshot raises, the running snapshot and the version stay."""
    calls = []

    def compile_or_fail(config: SamplingConfig) -> Compiled:
        calls.append(config.version)
        if config.rate == 0.5:
            raise ConfigError("rate", "refused by the compiler")
        return Compiled(config)

    store = ConfigStore(compile_or_fail, SamplingConfig(rate=0.1))
    with pytest.raises(ConfigError):
        store.publish(SamplingConfig(rate=0.5))
    assert store.current.config.rate == 0.1
    assert store.current.config.version == 1
    assert store.publish(SamplingConfig(rate=0.2)).config.version == 2
    assert len(store.history) == 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, "16"])
def test_history_size_is_validated(bad: object) -> None:
    """A ring needs at least one slot."""
    with pytest.raises(ConfigError, match=r"^history: "):
        ConfigStore(Compiled, SamplingConfig(), history=bad)  # type: ignore[arg-type]
