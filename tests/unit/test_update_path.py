"""The calls of ``DSampler.update`` go down the layers and never come back up: once
control has left the composition (``_dsampler.py``) for a lower module, no frame of the
composition is entered again, whatever the update changes (a rate, an owner's section
made, changed or removed)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import dsampler
from dsampler import DSampler, ManualClock
from tests.remote_servers import Answer, body, serving

PACKAGE = Path(dsampler.__file__).resolve().parent
#: The composition: the DSampler and, should it come back, a module that plans owners.
COMPOSITION = {PACKAGE / "_dsampler.py", PACKAGE / "_owners.py"}


def calls_of(action: Callable[[], object]) -> list[Path]:
    """The file of every Python function ``action`` enters, in order (this thread only,
    this test's own functions left out)."""
    entered: list[Path] = []
    me, here = threading.current_thread(), Path(__file__).resolve()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and threading.current_thread() is me:
            path = Path(frame.f_code.co_filename).resolve()
            if path != here:
                entered.append(path)

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return entered


def return_trips(entered: list[Path]) -> list[str]:
    """Frames of the composition entered after a frame below it was."""
    below = next((i for i, path in enumerate(entered) if path not in COMPOSITION), len(entered))
    return [str(path.relative_to(PACKAGE)) for path in entered[below:] if path in COMPOSITION]


def test_an_update_reads_down_the_layers_with_no_return_trips() -> None:
    """A rate, an adaptive section made, changed and removed, a remote endpoint made,
    replaced and removed: each update enters the composition first and never again,
    and each goes down to the store and to the owner its section names."""
    answer = Answer(body({"strategyType": "PROBABILISTIC", "probabilisticSampling": {"samplingRate": 0.5}}))
    with serving(answer) as server:
        remote = {"endpoint": server.url, "polling_interval": "1h", "service_name": "svc"}
        sampler = DSampler(rate=0.1, resource={}, clock=ManualClock())
        try:
            updates: list[tuple[dict[str, Any], str]] = [
                ({"rate": 0.2}, "config/_store.py"),
                ({"adaptive": {"target_traces_per_second": 50}}, "adaptive/_controller.py"),
                ({"adaptive": {"target_traces_per_second": 80}}, "adaptive/_controller.py"),
                ({"adaptive": None}, "adaptive/_controller.py"),
                ({"remote": remote}, "remote/_follow.py"),
                ({"remote": {**remote, "service_name": "other"}}, "remote/_follow.py"),
                ({"remote": None, "rate": 0.3}, "remote/_follow.py"),
            ]
            for changes, owner in updates:
                entered = calls_of(lambda changes=changes: sampler.update(**changes))  # type: ignore[misc]
                assert entered[0] == PACKAGE / "_dsampler.py", changes
                assert return_trips(entered) == [], changes
                reached = {str(path.relative_to(PACKAGE)) for path in entered if path.is_relative_to(PACKAGE)}
                assert {"config/_store.py", owner} <= reached, changes
            assert (sampler.config.rate, sampler.controller, sampler.follower) == (0.3, None, None)
        finally:
            sampler.close()


def test_the_check_finds_a_return_trip() -> None:
    """A call back into the composition after control went below it is reported."""
    sampler = DSampler(rate=0.1, resource={})
    entered = calls_of(lambda: (sampler.engine.snapshot, sampler.rate_owner))
    assert return_trips(entered) == ["_dsampler.py"]
