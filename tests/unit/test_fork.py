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
