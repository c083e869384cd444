"""A real fork for the tests: what a function returns in the child."""

from __future__ import annotations

import os
from collections.abc import Callable


def in_child(body: Callable[[], bytes], fork: Callable[[], int] = os.fork) -> bytes:
    """What ``body()`` returns in a child of ``fork()`` (up to 4,096 bytes): ``os.fork``,
    or a fork that runs no Python fork hooks (C's, through ctypes)."""
    read, write = os.pipe()
    pid = fork()
    if pid == 0:
        try:
            os.write(write, body())
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 4096)
    os.close(read)
    os.waitpid(pid, 0)
    return answer
