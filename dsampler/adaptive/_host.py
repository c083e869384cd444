"""``adaptive: {share: host}``: one budget per service per host. Each controller holds a
slot of its service's table and steps its core with the host's root decisions, so every
process computes the same rate; it holds its share of every traces-per-second limit.
Only the controller's thread reads or writes the table (docs/adaptive.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsampler import _fork
from dsampler.adaptive._hostfile import (
    RefusedError,
    directory,
    file_name,
    locked,
    open_table,
    remove_if_unused,
    sweep,
)
from dsampler.adaptive._table import SlotTable
from dsampler.clock import Clock
from dsampler.config import AdaptiveSettings

if TYPE_CHECKING:
    from dsampler.engine import Engine

_log = logging.getLogger("dsampler")
_told: set[str] = set()  # what this process has told once
_RESIZE: Final = 0.1  # the limits follow a share that moved by more than this


def _once(level: int, key: str, message: str, *args: object) -> None:
    if key not in _told:
        _told.add(key)
        _log.log(level, message, *args)


def _leave(table: SlotTable, path: Path, index: int, pid: int, now: Callable[[], float]) -> None:
    """Free the slot; remove the file if no live process holds one any more."""
    if os.getpid() != pid:  # a forked child inherited this: the slot is its parent's
        return
    try:
        with locked(table.fd):
            table.release(index, pid)
            remove_if_unused(table, path, now())
    except (OSError, ValueError):
        pass
    finally:
        table.close()


class HostShare:
    """A controller's slot in its service's table on this host (see the module)."""

    def __init__(self, clock: Clock, folder: Path | None = None) -> None:
        self._now = clock.monotonic
        self._folder = folder  # None: /dev/shm, else $XDG_RUNTIME_DIR
        self._creator = os.getpid()
        self._table: SlotTable | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._engine: weakref.ref[Engine] | None = None  # whose limits it shares
        self._reset()
        _fork.register(self._reset_after_fork)

    def _reset(self) -> None:
        self._pid, self._index, self._claimed, self._count = os.getpid(), 0, 0.0, 0
        self._seen: dict[int, tuple[int, float, int]] = {}  # index -> pid, claimed, count
        self._recent: deque[tuple[float, int, int]] = deque(maxlen=10)  # dt, own, host
        self._last = 0.0
        self.applied = 1.0  # the share of the limits in force (1 without a slot)
        self.path: Path | None = None
        self.live = 1

    def follow(self, settings: AdaptiveSettings, engine: Engine | None, rate: float) -> float | None:
        """Bound to ``engine`` with ``share: host``, hold a slot (see :meth:`join`) and
        that engine's limits at this process's share; else no slot, and whole limits."""
        if engine is not None and settings.share == "host":
            self._engine = weakref.ref(engine)
            peers = self.join(engine.resource, rate, settings.tick_s)
            self._hold(self.applied)
            return peers
        self.leave()
        return None

    def stats(self) -> dict[str, Any]:
        """Processes sharing the budget (None: not shared) and this one's share."""
        return {"host_processes": self.live if self._table is not None else None, "host_share": self.share()}

    def join(self, resource: Mapping[str, Any], rate: float, tick_s: float) -> float | None:
        """Claim a slot (idempotent). Returns the mean rate its live peers hold, None
        without any; where the table cannot be used, says so once at WARNING."""
        if self._table is not None:
            return None
        found = resource.get("service.name")
        service = found if isinstance(found, str) and found else "unknown_service"
        self._recent = deque(maxlen=max(1, round(1.0 / tick_s)))
        try:
            return self._claim(service, rate)
        except (RefusedError, OSError) as exc:
            _once(
                logging.WARNING,
                f"refused:{exc}",
                "dsampler: adaptive share: host cannot share (%s): each process holds the target alone",
                exc,
            )
            return None

    def _claim(self, service: str, rate: float) -> float | None:
        folder = self._folder or directory()
        if folder is None:
            raise RefusedError("no writable /dev/shm or $XDG_RUNTIME_DIR")
        pid = os.getpid()
        group = self._creator if pid != self._creator else os.getppid()
        sweep(folder)
        path = folder / file_name(service, group)
        table = open_table(path)
        now = self._now()
        with locked(table.fd):
            index = table.claim(pid, now, rate)
        if index is None:
            table.close()
            raise RefusedError(f"every slot of {path} is held")
        self._table, self._index, self._claimed, self._last, self.path = table, index, now, now, path
        self._finalizer = weakref.finalize(self, _leave, table, path, index, pid, self._now)
        slots = list(table.slots())
        self._seen = {s.index: (s.pid, s.claimed, s.count) for s in slots}
        told = "dsampler: adaptive budget of %r shared on this host through %s"
        _once(logging.INFO, str(path), told, service, path)
        peers = [s.rate for s in slots if s.index != index and s.fresh(now)]
        return sum(peers) / len(peers) if peers else None

    def exchange(self, now: float, own: int, rate: float) -> int:
        """This process's root decisions since the last tick in; the host's out (its
        own when it holds no slot)."""
        table = self._table
        if table is None:
            return own
        if os.getpid() != self._pid:  # forked without the fork hooks (a server's own fork)
            self._reset_after_fork()
            self._hold(1.0)  # nor did its engine's limits go back whole
            return own
        dt, self._last = now - self._last, now
        self._count += own
        own_recent, _, seconds = self._sums()
        qps = (own_recent + own) / (seconds + dt) if seconds + dt > 0 else 0.0
        table.write(self._index, self._pid, self._claimed, now, self._count, qps, rate)
        host, live, seen = 0, 0, self._seen
        for slot in table.slots():
            before = seen.get(slot.index)
            if before is not None and before[:2] == (slot.pid, slot.claimed):
                host += max(0, slot.count - before[2])
            else:  # claimed since the last read: all of its decisions are new
                host += slot.count
            seen[slot.index] = (slot.pid, slot.claimed, slot.count)
            live += slot.fresh(now)
        self.live = max(1, live)
        self._recent.append((dt, own, max(host, own)))
        return max(host, own)

    def _sums(self) -> tuple[int, int, float]:
        own = host = 0
        seconds = 0.0
        for dt, mine, all_ in self._recent:
            own, host, seconds = own + mine, host + all_, seconds + dt
        return own, host, seconds

    def share(self) -> float:
        """This process's share of the host's decisions over about the last second,
        never under half an even split (1 without a slot)."""
        if self._table is None:
            return 1.0
        own, host, _ = self._sums()
        even = 1.0 / self.live
        return max(own / host if host else even, 0.5 * even)

    def resized(self) -> float | None:
        """The share the limits should take now, None while the one in force holds."""
        share = self.share()
        if abs(share - self.applied) <= _RESIZE * self.applied:
            return None
        self._hold(share)
        return share

    def _hold(self, share: float) -> None:
        """``share`` in force: the hard cap's (its controller sets that) and every limit's
        of the engine it follows."""
        self.applied = share
        engine = None if self._engine is None else self._engine()
        if engine is not None and engine.limit_share != share:
            engine.share_limits(share)

    def leave(self) -> None:
        """Free the slot (idempotent; the last process out removes the file): the
        limits are whole again."""
        finalizer, self._finalizer, self._table = self._finalizer, None, None
        if finalizer is not None:
            finalizer()
        self._reset()
        self._hold(1.0)

    def _reset_after_fork(self) -> None:
        """In a child: the parent's slot is the parent's; the child claims its own."""
        table, finalizer, self._table, self._finalizer = self._table, self._finalizer, None, None
        if finalizer is not None:
            finalizer.detach()
        if table is not None:
            with contextlib.suppress(OSError):
                table.close()  # this child's copies of the mapping and descriptor
        self._reset()
