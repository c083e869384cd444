"""Lines to stdout and stderr when the reader may be gone: ``dsampler check ... | head -1``.

A closed pipe must not change what the command answers: the exit status is the
validation's, never 0 because the reader left. Python ignores SIGPIPE, so a write to a
closed pipe raises :class:`BrokenPipeError`; the stream is then pointed at
``/dev/null`` and the command carries on to its own exit status. Without that, the
interpreter's last flush at exit would fail too and turn any status into 120.

Every error line a subcommand writes itself starts ``dsampler COMMAND: ``
(:func:`error`, :func:`refuse`), as argparse's own usage errors do: one prefix to grep
for in a log that several commands write to.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

from dsampler.errors import ConfigError


def say(line: str, *, err: bool = False) -> None:
    """Write one line to stdout (or stderr) now; a closed reader silences the stream."""
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(line + "\n")
        stream.flush()  # now, while we can handle it, not at exit
    except BrokenPipeError:
        discard(stream)


def error(command: str, line: str) -> None:
    """One error line of ``dsampler COMMAND`` on stderr: ``dsampler COMMAND: line``."""
    say(f"dsampler {command}: {line}", err=True)


def refuse(
    command: str, exc: ConfigError, *, file: str | None = None, flags: Mapping[str, str] | None = None
) -> int:
    """Each problem of ``exc`` as an error line, ``FIELD: PROBLEM``; returns 2, the exit
    code of invalid input. A field in ``flags`` is named by its flag as typed; a field of
    ``file`` (any other field not a ``--flag`` and not the file itself) is named with it,
    ``FILE: FIELD``."""
    flags = flags or {}
    for problem in exc.errors:
        field = problem.field
        if field in flags:
            field = flags[field]
        elif file and field != file and not field.startswith("--"):
            field = f"{file}: {field}"
        error(command, f"{field}: {problem.problem}")
    return 2


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


def without_numpy(command: str) -> bool:
    """True, having said which extra brings it, where numpy is not installed."""
    try:
        import numpy  # noqa: F401 -- the simulator's and the demo's arrays
    except ImportError:
        error(command, "needs numpy, which the jit extra brings: pip install 'dsampler[jit]'")
        return True
    return False
