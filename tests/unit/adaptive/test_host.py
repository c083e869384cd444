"""The table a service's processes share on one host (``adaptive: {share: host}``):
claiming and freeing slots, what a reader counts (stale, dead, torn and hostile slots
do not), the files it refuses, and one process's view of the host's load."""

from __future__ import annotations

import ctypes
import logging
import os
import struct
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from dsampler import DSampler, ManualClock
from dsampler.adaptive._host import HostShare
from dsampler.adaptive._hostfile import RefusedError, file_name, open_table, start_time, sweep
from dsampler.adaptive._table import SIZE, SLOTS, STALE_S, SlotTable
from dsampler.config import SamplingConfig
from tests.forking import in_child

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the shared table is POSIX-only")

CONFIG = SamplingConfig()
SLOT_AT = 64  # the header's size: slot i is at SLOT_AT + 64 * i


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def table(tmp_path: Path) -> SlotTable:
    return open_table(tmp_path / "t.budget")


def test_a_new_file_is_filled_and_slots_are_claimed_and_freed(table: SlotTable) -> None:
    """Claims take the lowest free slot; a freed one is taken again; a read of a free
    slot is None."""
    me = os.getpid()
    assert [table.claim(me, 10.0, 0.5) for _ in range(3)] == [0, 1, 2]
    table.release(1, me)
    assert table.read(1) is None
    assert table.claim(me, 10.0, 0.5) == 1
    assert [s.index for s in table.slots()] == [0, 1, 2]
    first = table.read(0)
    assert first is not None
    assert first.rate == 0.5


def test_a_slot_of_another_pid_is_not_freed_by_its_neighbour(table: SlotTable) -> None:
    """release() frees a slot only for the pid that holds it."""
    me = os.getpid()
    index = table.claim(me, 10.0, 0.5)
    assert index is not None
    table.release(index, me + 1)
    assert table.read(index) is not None


def test_stale_and_dead_slots_are_claimed_again(table: SlotTable) -> None:
    """A slot not written for STALE_S, or whose process is gone, is taken by the next
    claim; a live, fresh one is not."""
    me, gone = os.getpid(), dead_pid()
    table.write(0, gone, 10.0, 10.0, 5, 1.0, 0.5)  # fresh but dead
    table.write(1, me, 10.0, 10.0 - STALE_S - 0.1, 5, 1.0, 0.5)  # alive but stale
    table.write(2, me, 10.0, 10.0, 5, 1.0, 0.5)  # alive and fresh
    struct.pack_into("<24sII", table.memory, 0, b"dsampler-budget-1", SLOTS, 3)
    assert table.claim(me, 10.0, 0.5) == 0
    assert table.claim(me, 10.0, 0.5) == 1
    assert table.claim(me, 10.0, 0.5) == 3


def test_a_torn_slot_is_not_read_and_its_count_arrives_later(tmp_path: Path) -> None:
    """A slot whose sequence is odd (being written) is skipped; its running total is
    counted once it is whole again, so nothing is lost or counted twice."""
    clock = ManualClock()
    a, b = HostShare(clock, tmp_path), HostShare(clock, tmp_path)
    a.join({"service.name": "s"}, 1.0, 0.1)
    b.join({"service.name": "s"}, 1.0, 0.1)
    clock.advance(0.1)
    b.exchange(clock.monotonic(), 30, 1.0)
    table = open_table(b.path)  # type: ignore[arg-type]
    offset = SLOT_AT + 64 * 1
    seq = struct.unpack_from("<Q", table.memory, offset)[0]
    struct.pack_into("<Q", table.memory, offset, seq | 1)
    assert table.read(1) is None
    assert a.exchange(clock.monotonic(), 10, 1.0) == 10  # b's 30 not readable yet
    struct.pack_into("<Q", table.memory, offset, seq)
    clock.advance(0.1)
    assert a.exchange(clock.monotonic(), 10, 1.0) == 40  # b's 30 now, once


def test_values_no_process_writes_are_skipped(table: SlotTable) -> None:
    """A slot with a pid out of range, a NaN time or a rate above 1 reads as None."""
    table.write(0, 1 << 30, 1.0, 1.0, 1, 1.0, 0.5)
    table.write(1, os.getpid(), float("nan"), 1.0, 1, 1.0, 0.5)
    table.write(2, os.getpid(), 1.0, 1.0, 1, 1.0, 7.0)
    assert [table.read(i) for i in range(3)] == [None, None, None]


@pytest.mark.parametrize(
    ("contents", "problem"),
    [(b"x" * 100, "has 100 bytes"), (b"\x07" * SIZE, "is not a dsampler budget file")],
)
def test_a_file_of_other_contents_is_refused(tmp_path: Path, contents: bytes, problem: str) -> None:
    """Garbage, or a file of another size, is never used (nor rewritten)."""
    path = tmp_path / "t.budget"
    path.write_bytes(contents)
    with pytest.raises(RefusedError, match=problem):
        open_table(path)
    assert path.read_bytes() == contents


def test_a_link_is_not_followed(tmp_path: Path) -> None:
    """The name as a symbolic link (to a file someone wants overwritten) is refused."""
    target = tmp_path / "precious"
    target.write_bytes(b"keep")
    (tmp_path / "t.budget").symlink_to(target)
    with pytest.raises(RefusedError):
        open_table(tmp_path / "t.budget")
    assert target.read_bytes() == b"keep"


@pytest.mark.skipif(os.getuid() != 0, reason="making a file of another user needs root")
def test_a_file_of_another_user_is_refused(tmp_path: Path) -> None:
    """A budget file owned by someone else is not used, even a valid, writable one."""
    path = tmp_path / "t.budget"
    path.write_bytes(SlotTable.initial())
    path.chmod(0o666)
    os.chown(path, 65534, 65534)
    with pytest.raises(RefusedError, match="not a regular file of this user"):
        open_table(path)


def test_two_services_and_two_groups_never_share_a_file() -> None:
    """The name holds the user, the service (readable and hashed) and the master with
    its start time."""
    me = os.getpid()
    names = {file_name("a", me), file_name("b", me), file_name("a", os.getppid()), file_name("a/..", me)}
    assert len(names) == 4
    assert all("/" not in n and n.startswith(f"dsampler-{os.getuid()}-") for n in names)
    assert file_name("a", me).endswith(f"-{me}-{start_time(me)}.budget")


def test_processes_of_two_services_count_only_their_own(tmp_path: Path) -> None:
    """Load offered to one service is not counted by another's process."""
    clock = ManualClock()
    a, b = HostShare(clock, tmp_path), HostShare(clock, tmp_path)
    a.join({"service.name": "a"}, 1.0, 0.1)
    b.join({"service.name": "b"}, 1.0, 0.1)
    assert a.path != b.path
    clock.advance(0.1)
    b.exchange(clock.monotonic(), 500, 1.0)
    assert a.exchange(clock.monotonic(), 5, 1.0) == 5


def test_the_host_load_is_every_process_s_new_decisions(tmp_path: Path) -> None:
    """Two processes of one service: each steps with both counts, a joiner starts at the
    rate its peers hold, and each one's share of the hard cap follows its load."""
    clock = ManualClock()
    a, b = HostShare(clock, tmp_path), HostShare(clock, tmp_path)
    assert a.join({"service.name": "s"}, 0.25, 0.1) is None  # alone
    assert b.join({"service.name": "s"}, 1.0, 0.1) == 0.25  # a's rate
    total = 0
    for _ in range(20):
        clock.advance(0.1)
        total += a.exchange(clock.monotonic(), 80, 0.25)
        b.exchange(clock.monotonic(), 20, 0.25)
    assert total == 20 * 100 - 20  # b's last tick is read at a's next one
    assert a.share() == pytest.approx(0.8, abs=0.01)
    assert b.share() == pytest.approx(0.25)  # 0.2, but never under half an even split
    assert a.live == b.live == 2


def test_a_process_that_stops_writing_stops_counting(tmp_path: Path) -> None:
    """A process that no longer writes adds nothing and, after STALE_S, is no longer
    live: its share of the hard cap returns to the others."""
    clock = ManualClock()
    a, b = HostShare(clock, tmp_path), HostShare(clock, tmp_path)
    a.join({"service.name": "s"}, 1.0, 0.1)
    b.join({"service.name": "s"}, 1.0, 0.1)
    for _ in range(10):
        clock.advance(0.1)
        a.exchange(clock.monotonic(), 50, 1.0)
        b.exchange(clock.monotonic(), 50, 1.0)
    for _ in range(20):  # b is killed: it writes no more
        clock.advance(0.1)
        assert a.exchange(clock.monotonic(), 50, 1.0) in (50, 100)
    assert a.live == 1
    assert a.share() == 1.0


def test_the_last_process_out_removes_the_file_and_a_dead_master_s_is_swept(tmp_path: Path) -> None:
    """leave() frees the slot and removes the file when no live process holds one; a
    file whose master is gone is removed by the next sweep, another user's name kept."""
    clock = ManualClock()
    a, b = HostShare(clock, tmp_path), HostShare(clock, tmp_path)
    a.join({"service.name": "s"}, 1.0, 0.1)
    b.join({"service.name": "s"}, 1.0, 0.1)
    path = a.path
    assert path is not None
    assert path.exists()
    a.leave()
    assert path.exists()
    b.leave()
    assert not path.exists()
    gone = tmp_path / f"dsampler-{os.getuid()}-s-0123456789ab-{dead_pid()}-12345.budget"
    alive = tmp_path / file_name("s", os.getpid())
    other = tmp_path / f"dsampler-{os.getuid() + 1}-s-0123456789ab-{dead_pid()}-12345.budget"
    for p in (gone, alive, other):
        p.write_bytes(SlotTable.initial())
    assert sweep(tmp_path) == 1
    assert not gone.exists()
    assert alive.exists()
    assert other.exists()


def test_no_shared_memory_is_told_once_and_the_budget_is_per_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A folder it cannot use: one WARNING, and the process counts its own load."""
    clock = ManualClock()
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        for _ in range(2):
            share = HostShare(clock, blocked)
            assert share.join({"service.name": "s"}, 1.0, 0.1) is None
            assert share.exchange(clock.monotonic(), 7, 1.0) == 7
    assert [r.getMessage() for r in caplog.records if "cannot share" in r.getMessage()] != []
    assert len([r for r in caplog.records if "cannot share" in r.getMessage()]) == 1


def rule_and_cap(s: DSampler) -> tuple[float, float, float]:
    """The rates of the rule's bucket, the global cap and the adaptive hard cap."""
    snap, controller = s.engine.snapshot, s.controller
    assert snap.cap is not None
    assert controller is not None
    assert controller.tap.backstop is not None
    rule = snap.rules.rules[0][1].bucket  # type: ignore[attr-defined]
    return rule.credits_per_second, snap.cap.credits_per_second, controller.tap.backstop.credits_per_second


def test_every_limit_is_shared_by_the_load_and_whole_again_off_the_host(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two processes' samplers (here, in one process) with share: host, a rate_limit
    rule of 10/s and a global cap of 40/s: one offering 3 times the other's load holds
    3/4 of each limit, the other 1/4, without a WARNING. Back to share: process, or
    closed, a sampler's limits are whole again."""
    service = f"test-limits-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    clock = ManualClock()
    with caplog.at_level(logging.WARNING, logger="dsampler"):
        a, b = (
            DSampler(
                adaptive={"target_traces_per_second": 20, "share": "host"},
                rules=[{"match": {"span_name": "limited"}, "action": {"rate_limit": 10}}],
                traces_per_second=40,
                resource={"service.name": service},
                clock=clock,
            )
            for _ in range(2)
        )
    try:
        assert a.controller is not None
        assert b.controller is not None
        for _ in range(20):
            clock.advance(0.1)
            for sampler, offered in ((a, 30), (b, 10)):
                for i in range(offered):
                    sampler.should_sample(None, i + 1, "GET /")
                sampler.controller.tick()  # type: ignore[union-attr]
        assert a.controller.stats()["host_processes"] == 2
        assert rule_and_cap(a) == pytest.approx((7.5, 30.0, 30.0), rel=0.05)
        assert rule_and_cap(b) == pytest.approx((2.5, 10.0, 10.0), rel=0.05)
        assert [r.getMessage() for r in caplog.records] == []
        b.update(adaptive={"target_traces_per_second": 20, "share": "process"})
        assert rule_and_cap(b) == (10.0, 40.0, 40.0)
        a.close()
        assert rule_and_cap(a) == (10.0, 40.0, 40.0)
    finally:
        a.close()
        b.close()


def test_a_child_forked_without_the_fork_hooks_holds_its_limits_whole() -> None:
    """A server's own fork (C's fork(), no Python fork hooks): at its first tick the
    child's controller finds itself in a new process, holds no slot, and its engine's
    limits go back whole; the parent keeps its share."""
    clock = ManualClock()
    sampler = DSampler(
        adaptive={"target_traces_per_second": 20, "share": "host"},
        rules=[{"match": {"span_name": "limited"}, "action": {"rate_limit": 10}}],
        traces_per_second=40,
        resource={"service.name": f"test-hookless-{os.getpid()}-{uuid.uuid4().hex[:8]}"},
        clock=clock,
    )
    controller = sampler.controller
    assert controller is not None
    sampler.engine.share_limits(0.25)  # a worker's quarter

    def child() -> bytes:
        clock.advance(0.1)
        controller.tick()
        return repr(rule_and_cap(sampler)[:2]).encode()

    answer = in_child(child, fork=ctypes.PyDLL(None).fork).decode()  # PyDLL: the GIL stays held
    try:
        assert answer == repr((10.0, 40.0))
        assert rule_and_cap(sampler)[:2] == (2.5, 10.0)
    finally:
        sampler.close()
