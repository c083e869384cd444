"""Where a service's shared slots live (``dsampler-UID-SERVICE-HASH-PID-START.budget`` in
``/dev/shm``, else ``$XDG_RUNTIME_DIR``), and opening them safely: no links followed, only
this user's regular file of the right size and header; files whose master is gone are swept.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from dsampler.adaptive._table import SIZE, SlotTable

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


_SUFFIX: Final = ".budget"
_SWEEP_AT_MOST: Final = 64  # files looked at per sweep
_TRIES: Final = 3


class RefusedError(Exception):
    """The shared file cannot be used; the message says why."""


def directory() -> Path | None:
    """``/dev/shm``, else ``$XDG_RUNTIME_DIR``, if writable; None otherwise."""
    for candidate in ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR", "")):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            return Path(candidate)
    return None


def start_time(pid: int) -> int:
    """When ``pid`` started (clock ticks since boot, ``/proc/PID/stat`` field 22); 0
    where it cannot be read, -1 when the process does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return -1 if Path("/proc/self/stat").exists() else 0
    except OSError:
        return 0
    fields = text[text.rfind(b")") + 2 :].split()  # the name, field 2, may hold spaces
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return 0


def file_name(service: str, group: int) -> str:
    """The file of ``service`` for the processes of master ``group``."""
    slug = re.sub(r"[^A-Za-z0-9_.-]", "_", service)[:32]
    digest = hashlib.sha256(service.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"dsampler-{os.getuid()}-{slug}-{digest}-{group}-{start_time(group)}{_SUFFIX}"


def _open(path: Path) -> int:
    """A descriptor of ``path`` (made if missing), refused unless it is this user's
    regular file."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise RefusedError(f"cannot open {path}: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
        os.close(fd)
        raise RefusedError(f"{path} is not a regular file of this user")
    return fd


@contextlib.contextmanager
def locked(fd: int) -> Iterator[None]:
    """``flock`` held on ``fd`` for a ``with`` block (setup only: never a decision)."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _same_file(fd: int, path: Path) -> bool:
    """``fd`` is still the file at ``path`` (not one removed meanwhile)."""
    try:
        now = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino) and mine.st_nlink > 0


def open_table(path: Path) -> SlotTable:
    """The slots of ``path``, mapped: made and filled if new.

    Raises:
        RefusedError: not this user's regular file, of another size or header, or no flock.
    """
    if fcntl is None:  # pragma: no cover - not POSIX
        raise RefusedError("this platform has no flock")
    for _ in range(_TRIES):
        fd = _open(path)
        try:
            with locked(fd):
                if not _same_file(fd, path):  # removed by its last process meanwhile: again
                    os.close(fd)
                    continue
                size = os.fstat(fd).st_size
                if size == 0:
                    os.pwrite(fd, SlotTable.initial(), 0)
                elif size != SIZE:
                    raise RefusedError(f"{path} has {size} bytes, not the {SIZE} of a dsampler budget file")
                memory = mmap.mmap(fd, SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            if not SlotTable.valid(memory):
                memory.close()
                raise RefusedError(f"{path} is not a dsampler budget file")
            return SlotTable(fd, memory)
        except BaseException:
            os.close(fd)
            raise
    raise RefusedError(f"{path} kept being removed while opened")


def remove_if_unused(table: SlotTable, path: Path, now: float) -> None:
    """Remove ``path`` when no live process holds a slot of it (the caller holds its
    ``flock``, so no process claims one meanwhile)."""
    if not table.anyone(now) and _same_file(table.fd, path):
        with contextlib.suppress(OSError):
            path.unlink()


def sweep(folder: Path) -> int:
    """Remove this user's budget files whose master is gone (at most a few per call).
    Returns how many were removed."""
    uid, removed = os.getuid(), 0
    try:
        names = [n for n in os.listdir(folder) if n.startswith(f"dsampler-{uid}-") and n.endswith(_SUFFIX)]
    except OSError:
        return 0
    for name in names[:_SWEEP_AT_MOST]:
        parts = name[: -len(_SUFFIX)].rsplit("-", 2)
        try:
            group, started = int(parts[1]), int(parts[2])
        except (IndexError, ValueError):
            continue
        if not started or start_time(group) in (started, 0):
            continue
        with contextlib.suppress(OSError):
            info = os.stat(folder / name, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_uid == uid:
                (folder / name).unlink()
                removed += 1
    return removed
