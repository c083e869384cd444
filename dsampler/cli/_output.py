"""Lines to stdout and stderr when the reader may be gone: ``dsampler check ... | head -1``.

A closed pipe must not change what the command answers: the exit status is the
validation's, never 0 because the reader left. Python ignores SIGPIPE, so a write to a
closed pipe raises :class:`BrokenPipeError`; the stream is then pointed at
``/dev/null`` and the command carries on to its own exit status. Without that, the
interpreter's last flush at exit would fail too and turn any status into 120.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

__all__ = ["discard", "is_terminal", "say"]


def say(line: str, *, err: bool = False) -> None:
    """Write one line to stdout (or stderr) now; a closed reader silences the stream."""
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(line + "\n")
        stream.flush()  # now, while we can handle it, not at exit
    except BrokenPipeError:
        discard(stream)


def discard(stream: TextIO) -> None:
    """Send whatever is left for ``stream`` (its buffer included) to ``/dev/null``."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # not backed by a descriptor (captured, closed)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal, for live output (a progress line, a redrawn
    table); a closed or unusual stream is not."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
