"""Fork hooks: held weakly, and swept as new ones come."""

from __future__ import annotations

import gc

from dsampler import _fork


class _Owner:
    def _reset_after_fork(self) -> None:
        pass


def test_dead_hooks_are_swept_and_live_ones_kept() -> None:
    """20,000 registered objects that die are swept once as many registrations again
    have come (a sweep then costs in proportion to them); live ones stay registered."""
    live = [_Owner() for _ in range(3000)]
    for owner in live:
        _fork.register(owner._reset_after_fork)
    dying = [_Owner() for _ in range(20_000)]
    for owner in dying:
        _fork.register(owner._reset_after_fork)
    dead = {id(owner) for owner in dying}
    del dying, owner
    gc.collect()
    later = [_Owner() for _ in range(len(_fork._HOOKS) + 1)]
    for owner in later:
        _fork.register(owner._reset_after_fork)
    assert all(id(owner) in _fork._HOOKS for owner in [*live, *later])
    assert not (dead - {id(owner) for owner in [*live, *later]}) & set(_fork._HOOKS)


class _Ordered:
    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    def _reset_after_fork(self) -> None:
        self.calls.append(f"reset {self.name}")

    def _restart_after_fork(self) -> None:
        self.calls.append(f"restart {self.name}")


def test_hooks_run_in_the_order_of_registration_resets_first() -> None:
    """Every reset, then every restart, each in the order the objects registered: an
    object built on another (a DSampler on its engine) restarts after it. An id
    registered again (as a dead object's id reused by a new one) goes last."""
    calls: list[str] = []
    engine, sampler = _Ordered("engine", calls), _Ordered("sampler", calls)
    others = dict(_fork._HOOKS)  # this process's own hooks are not run here
    _fork._HOOKS.clear()
    try:
        _fork.register(sampler._reset_after_fork, sampler._restart_after_fork)  # as a dead one's id
        _fork.register(engine._reset_after_fork, engine._restart_after_fork)
        _fork.register(sampler._reset_after_fork, sampler._restart_after_fork)
        _fork._after_fork_in_child()  # what os.fork() runs in the child
    finally:
        _fork._HOOKS.clear()
        _fork._HOOKS.update(others)
    assert calls == ["reset engine", "reset sampler", "restart engine", "restart sampler"]
