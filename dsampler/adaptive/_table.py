"""The slots a service's processes share on one host: a header and :data:`SLOTS` slots of
64 bytes in a mapped file. Each process writes only its slot, under a seqlock; readers
take no lock, retry a torn read a few times, and skip values no process could write.
"""

from __future__ import annotations

import math
import mmap
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

MAGIC: Final = b"dsampler-budget-1"
SLOTS: Final = 256
_HEADER: Final = struct.Struct("<24sII")  # magic, slot count, slots ever claimed
_SLOT: Final = struct.Struct("<QQdddQdd")  # seq, pid, claimed, written, (spare), count, qps, rate
_SEQ: Final = struct.Struct("<Q")
_SLOT_SIZE: Final = 64
_HEADER_SIZE: Final = 64
SIZE: Final = _HEADER_SIZE + SLOTS * _SLOT_SIZE
#: A slot not written for this long does not count (its process is gone or stuck).
STALE_S: Final = 1.5
_TRIES: Final = 3  # reads of a slot being written before it is skipped for this tick
_MAX_PID: Final = 1 << 22  # Linux's pid_max at most
_MAX_COUNT: Final = 1 << 62


@dataclass(frozen=True, slots=True)
class Slot:
    """One process's entry, as read."""

    index: int
    pid: int
    claimed: float
    written: float
    count: int
    qps: float
    rate: float

    def fresh(self, now: float) -> bool:
        return now - self.written <= STALE_S


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # a system call: only when claiming, never on the request path
    except OSError as exc:  # another user's process (no permission): alive, not ours to judge
        return not isinstance(exc, ProcessLookupError)
    return True


class SlotTable:
    """The slots of one mapped file. ``fd`` stays open (``flock`` is taken on it)."""

    def __init__(self, fd: int, memory: mmap.mmap) -> None:
        self.fd = fd
        self.memory = memory

    @staticmethod
    def initial() -> bytes:
        """The contents of a new file: the header, every slot free."""
        return _HEADER.pack(MAGIC, SLOTS, 0).ljust(SIZE, b"\0")

    @staticmethod
    def valid(memory: mmap.mmap | bytes) -> bool:
        """The header is this format's, for this many slots."""
        if len(memory) != SIZE:
            return False
        magic, slots, _ = _HEADER.unpack_from(memory, 0)
        return bool(magic.rstrip(b"\0") == MAGIC and slots == SLOTS)

    def _used(self) -> int:
        """Slots ever claimed: readers scan no further."""
        used: int = _HEADER.unpack_from(self.memory, 0)[2]
        return min(used, SLOTS)

    def read(self, index: int) -> Slot | None:
        """Slot ``index`` as last written, or None: free, being written, or not a
        process's values."""
        memory, offset = self.memory, _HEADER_SIZE + index * _SLOT_SIZE
        for _ in range(_TRIES):
            seq, pid, claimed, written, _, count, qps, rate = _SLOT.unpack_from(memory, offset)
            if seq & 1 or _SEQ.unpack_from(memory, offset)[0] != seq:
                continue
            if not 0 < pid < _MAX_PID or not 0 <= count < _MAX_COUNT:
                return None
            if not all(map(math.isfinite, (claimed, written, qps, rate))) or qps < 0 or not 0 <= rate <= 1:
                return None
            return Slot(index, pid, claimed, written, count, qps, rate)
        return None

    def slots(self) -> Iterator[Slot]:
        """Every claimed slot readable now."""
        for index in range(self._used()):
            slot = self.read(index)
            if slot is not None:
                yield slot

    def write(
        self, index: int, pid: int, claimed: float, now: float, count: int, qps: float, rate: float
    ) -> None:
        """Write slot ``index`` (the caller's own): odd sequence while writing."""
        memory, offset = self.memory, _HEADER_SIZE + index * _SLOT_SIZE
        seq = _SEQ.unpack_from(memory, offset)[0] | 1  # odd: being written
        _SEQ.pack_into(memory, offset, seq)
        _SLOT.pack_into(memory, offset, seq, pid, claimed, now, 0.0, count, qps, rate)
        _SEQ.pack_into(memory, offset, (seq + 1) & (_MAX_COUNT - 1))

    def claim(self, pid: int, now: float, rate: float) -> int | None:
        """A free slot for ``pid``, or one whose process is gone or has not written for
        :data:`STALE_S`; None when every slot is held. The caller holds ``flock``."""
        used = self._used()
        for index in range(SLOTS):
            slot = self.read(index) if index < used else None
            if slot is None or not slot.fresh(now) or not _alive(slot.pid):
                if slot is None and index < used and self._writing(index):
                    continue  # a live writer mid-write (a seqlock odd right now)
                self.write(index, pid, now, now, 0, 0.0, rate)
                if index >= used:
                    _HEADER.pack_into(self.memory, 0, MAGIC, SLOTS, index + 1)
                return index
        return None

    def _writing(self, index: int) -> bool:
        return bool(_SEQ.unpack_from(self.memory, _HEADER_SIZE + index * _SLOT_SIZE)[0] & 1)

    def release(self, index: int, pid: int) -> None:
        """Free slot ``index`` if ``pid`` still holds it (the caller holds ``flock``)."""
        slot = self.read(index)
        if slot is not None and slot.pid == pid:
            self.write(index, 0, 0.0, 0.0, 0, 0.0, 0.0)

    def anyone(self, now: float) -> bool:
        """Some slot is held by a live process that wrote it lately."""
        return any(s.fresh(now) and _alive(s.pid) for s in self.slots())

    def close(self) -> None:
        try:
            self.memory.close()
        finally:
            os.close(self.fd)
