"""ConfigStore: versions, the history ring, rollback, all-or-nothing publishes, and the
base with its owners' overlays."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsampler import ConfigError, SamplingConfig
from dsampler.config import Overlay, RemoteSettings
from dsampler.config._model import OperationStrategy
from dsampler.config._store import ConfigStore


class Compiled:
    """A trivial snapshot: the configuration and the overlays merged into it."""

    def __init__(self, config: SamplingConfig, held: Mapping[str, Overlay]) -> None:
        self.config = config
        self.taps = [o.tap for o in held.values()]


def test_versions_start_at_one_and_only_grow() -> None:
    """The initial config is version 1; every publish, evolve and rollback adds one."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    assert store.current.config.version == 1
    store.publish(SamplingConfig(rate=0.2, version=99))  # a given version is ignored
    assert store.current.config.version == 2
    store.evolve({"rate": 0.3})
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
    """If building the snapshot raises, the running snapshot, the version, the base and
    the overlays stay; an overlay whose write failed keeps its fields."""
    calls = []

    def compile_or_fail(config: SamplingConfig, held: Mapping[str, Overlay]) -> Compiled:
        calls.append(config.version)
        if config.rate == 0.5:
            raise ConfigError("rate", "refused by the compiler")
        return Compiled(config, held)

    store = ConfigStore(compile_or_fail, SamplingConfig(rate=0.1))
    with pytest.raises(ConfigError):
        store.publish(SamplingConfig(rate=0.5))
    owner = store.overlay("owner")
    with pytest.raises(ConfigError):
        owner.set({"rate": 0.5})
    assert owner.fields == {}
    assert store.holder("owner") is None
    assert (store.current.config.rate, store.current.config.version, store.base.rate) == (0.1, 1, 0.1)
    assert store.publish(SamplingConfig(rate=0.2)).config.version == 2
    assert len(store.history) == 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, "16"])
def test_history_size_is_validated(bad: object) -> None:
    """A ring needs at least one slot."""
    with pytest.raises(ConfigError, match=r"^history: "):
        ConfigStore(Compiled, SamplingConfig(), history=bad)  # type: ignore[arg-type]


def test_an_overlay_is_written_over_every_base_and_a_new_base_cannot_undo_it() -> None:
    """The owner's rate wins over the base's, whatever base is published after it; the
    base's other fields still apply."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    owner = store.overlay("adaptive")
    assert owner.set({"rate": 0.02})
    assert (store.current.config.rate, store.base.rate) == (0.02, 0.1)
    store.publish(SamplingConfig(rate=0.9, parent_based=False))  # a file reload
    assert (store.current.config.rate, store.current.config.parent_based) == (0.02, False)
    store.evolve({"rate": 0.7})
    assert store.current.config.rate == 0.02
    assert owner.set({})  # it owns nothing: the base's rate again
    assert store.current.config.rate == 0.7


def test_unchanged_fields_publish_nothing() -> None:
    """Setting the fields in force, or fields that say what the base says, adds no version."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    owner = store.overlay("remote")
    assert not owner.set({"rate": 0.1})  # what the base says already
    assert store.holder("remote") is owner  # but the name is held from now on
    assert owner.set({"rate": 0.3})
    assert not owner.set({"rate": 0.3})
    assert store.current.config.version == 2


def test_a_retired_holders_fields_stay_until_another_overlay_takes_the_name() -> None:
    """A second owner's write is ignored while the name is held; once the holder is
    retired its writes are ignored (a thread still polling), its fields stay in force,
    and the new owner's first write takes the name, with its tap, in one version."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    first = store.overlay("remote")
    first.set({"rate": 0.2})
    second = store.overlay("remote", tap="its tap")
    assert not second.set({"rate": 0.4})
    first.retire()
    assert not first.set({"rate": 0.9})
    assert (store.current.config.rate, store.current.config.version) == (0.2, 2)
    assert second.set({"rate": 0.4})
    assert (store.current.config.rate, store.current.config.version, store.current.taps) == (
        0.4,
        3,
        ["its tap"],
    )
    assert store.holder("remote") is second


def test_a_new_overlay_does_not_take_a_name_someone_holds() -> None:
    """A second owner's first write is ignored while the holder is not retired."""
    store = ConfigStore(Compiled, SamplingConfig())
    store.overlay("remote").set({"rate": 0.2})
    intruder = store.overlay("remote")
    assert not intruder.set({"rate": 0.9})
    assert store.current.config.rate == 0.2


def test_an_overlay_writes_only_through_its_own_store() -> None:
    """An overlay of another store writes nothing here."""
    store = ConfigStore(Compiled, SamplingConfig())
    other = ConfigStore(Compiled, SamplingConfig())
    assert not store.write(other.overlay("remote"), {"rate": 0.5})
    assert (store.holder("remote"), store.current.config.version) == (None, 1)


def test_a_sections_overlay_is_merged_only_while_the_base_has_the_section() -> None:
    """Named after a section, an overlay takes nothing while the base lacks it; a base
    without it (a reload) removes its fields in the same version and retires it."""
    remote = RemoteSettings()
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1), sections=("remote",))
    assert not store.overlay("remote").set({"rate": 0.3})
    store.publish(SamplingConfig(rate=0.1, remote=remote))
    owner = store.overlay("remote")
    assert owner.set({"rate": 0.3})
    store.publish(SamplingConfig(rate=0.2))
    config = store.current.config
    assert (config.rate, config.remote, config.version, owner.retired) == (0.2, None, 4, True)
    assert store.holder("remote") is None


def test_an_update_that_removes_a_section_keeps_what_its_overlay_held_in_force() -> None:
    """evolve({"remote": None}) keeps the overlay's fields as they were in force (its
    operations within max_operations, as merged), unless it sets them itself."""
    remote = RemoteSettings()
    store = ConfigStore(Compiled, SamplingConfig(max_operations=2, remote=remote), sections=("remote",))
    ops = {name: OperationStrategy(0.5) for name in "abc"}
    owner = store.overlay("remote")
    owner.set({"rate": 0.3, "operations": ops})
    store.evolve({"remote": None})
    config = store.current.config
    assert (config.rate, list(config.operations), config.remote, owner.retired) == (
        0.3,
        ["a", "b"],
        None,
        True,
    )
    assert store.base.rate == 0.3
    store.publish(SamplingConfig(max_operations=2, remote=remote))
    store.overlay("remote").set({"rate": 0.4, "operations": ops})
    store.evolve({"remote": None, "rate": 0.7})
    assert (store.current.config.rate, list(store.current.config.operations)) == (0.7, ["a", "b"])


def test_an_overlay_field_is_checked_as_the_model_checks_it() -> None:
    """Unknown fields, the version and invalid values are refused, naming the field."""
    with pytest.raises(ConfigError, match=r"^colour: unknown field"):
        Overlay("x", {"colour": 1})
    with pytest.raises(ConfigError, match=r"^version: unknown field"):
        Overlay("x", {"version": 3})
    with pytest.raises(ConfigError, match=r"^rate: "):
        Overlay("x", {"rate": 2.0})


def test_operations_past_max_operations_are_left_out_in_order() -> None:
    """An owner's list never makes the base invalid: the base's cap keeps the first ones."""
    store = ConfigStore(Compiled, SamplingConfig(max_operations=2))
    ops = {name: OperationStrategy(0.5) for name in "abc"}
    store.overlay("remote").set({"operations": ops})
    assert list(store.current.config.operations) == ["a", "b"]
    store.publish(SamplingConfig(max_operations=3))
    assert list(store.current.config.operations) == ["a", "b", "c"]


def test_rollback_restores_the_base_and_keeps_the_owners() -> None:
    """A rollback publishes an earlier base again; the overlay in force stays on top."""
    store = ConfigStore(Compiled, SamplingConfig(rate=0.1))
    store.publish(SamplingConfig(rate=0.3, parent_based=False))
    store.overlay("adaptive").set({"rate": 0.05})
    store.rollback(1)
    config = store.current.config
    assert (config.rate, config.parent_based, store.base.rate) == (0.05, True, 0.1)


_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "rate": st.sampled_from([0.0, 0.1, 0.5, 1.0]),
        "parent_based": st.booleans(),
        "traces_per_second": st.sampled_from([None, 5.0]),
    },
)
_STEPS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["base", "base with remote"]), _FIELDS),
        st.tuples(st.sampled_from(["other", "remote"]), _FIELDS),
        st.tuples(st.just("retire"), st.sampled_from(["other", "remote"])),
    ),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(_STEPS)
def test_in_force_is_always_the_base_with_the_held_overlays_written_over_it(steps: list[tuple]) -> None:
    """Whatever the order of base publishes (with the remote section or without),
    overlay writes and retirements, the configuration in force is the base with each
    held overlay's fields written over it (in the order the names were first taken),
    the section's overlay is held only while the base has the section, and versions
    only grow."""
    store = ConfigStore(Compiled, SamplingConfig(), sections=("remote",))
    base: dict = {}
    owned: dict[str, dict] = {}
    handles: dict[str, Overlay] = {}
    for kind, arg in steps:
        before = store.current.config.version
        if kind.startswith("base"):
            base = dict(arg)
            store.publish(
                SamplingConfig(**base, remote=RemoteSettings() if kind.endswith("remote") else None)
            )
        elif kind == "retire":
            if arg in handles:
                handles.pop(arg).retire()
        else:
            handle = handles.get(kind) or handles.setdefault(kind, store.overlay(kind))
            handle.set(arg)
            if store.holder(kind) is handle:
                owned[kind] = dict(arg)
        merged = dict(base)
        for name in store._held:
            merged.update(owned.get(name, {}))
        expected = SamplingConfig(**merged)
        config = store.current.config
        assert config.version >= before
        assert store.holder("remote") is None or config.remote is not None
        assert all(
            getattr(config, f) == getattr(expected, f) for f in ("rate", "parent_based", "traces_per_second")
        )
