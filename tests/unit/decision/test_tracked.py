"""The one tracker of operations first seen on the request path (the engine's lower
bounds, jaeger-client's AdaptiveSampler): bounded by its room under racing threads,
one value per name, refits that keep, change and make values as told."""

from __future__ import annotations

import threading

from dsampler._validate import MAX_TEXT
from dsampler.decision._tracked import Tracked


def tracker(room: int, configured: tuple[str, ...] = ()) -> Tracked[list[str]]:
    tracked: Tracked[list[str]] = Tracked()
    tracked.refit(room, configured, lambda name: [name], lambda value: value.append("changed"))()
    return tracked


def test_nothing_is_tracked_before_the_first_refit() -> None:
    assert Tracked[int]().get("op") is None


def test_racing_threads_track_each_name_once_and_never_past_the_room() -> None:
    """Eight threads see the same 500 names: 100 are tracked, each with one value that
    every thread was handed."""
    tracked = tracker(100)
    seen: list[dict[str, int]] = [{} for _ in range(8)]
    start = threading.Barrier(8)

    def run(mine: dict[str, int]) -> None:
        start.wait()
        for i in range(500):
            value = tracked.get(f"op{i}")
            if value is not None:
                mine[f"op{i}"] = id(value)

    threads = [threading.Thread(target=run, args=(mine,)) for mine in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tracked) == 100
    for mine in seen:
        assert all(id(tracked.by_name[name]) == ident for name, ident in mine.items())


def test_long_names_are_never_tracked() -> None:
    tracked = tracker(10)
    assert tracked.get("x" * (MAX_TEXT + 1)) is None
    assert tracked.get("y" * MAX_TEXT) == ["y" * MAX_TEXT]
    assert len(tracked) == 1


def test_a_refit_keeps_changes_and_leaves_out_configured_names_and_overflow() -> None:
    """Kept values are the same objects, changed; a name now configured leaves; past the
    new room the last ones leave; new names get the new maker's values."""
    tracked = tracker(10)
    values = {name: tracked.get(name) for name in ("a", "b", "c", "d")}
    refit = tracked.refit(2, {"a"}, lambda name: [name, "new"], lambda value: value.append("refit"))
    assert sorted(tracked.by_name) == ["a", "b", "c", "d"]  # nothing changes before the call
    refit()
    assert sorted(tracked.by_name) == ["b", "c"]
    assert tracked.by_name["b"] is values["b"]
    assert tracked.by_name["b"] == ["b", "refit"]
    assert tracked.get("e") is None  # the room is full
    tracked.refit(3, {"a"}, lambda name: [name, "new"], lambda value: None)()
    assert tracked.get("e") == ["e", "new"]
