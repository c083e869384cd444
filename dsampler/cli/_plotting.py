"""matplotlib for every ``--plot`` (bench, simulate, demo): optional (the ``plot``
extra), imported only when a plot is asked for, on the file-only Agg backend, and
checked before any long run so a missing library or an unwritable path fails at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from dsampler._validate import show
from dsampler.errors import ConfigError

MISSING: Final = (
    "needs matplotlib, which is not installed: install dsampler's plot extra (pip install matplotlib)"
)


def pyplot(option: str = "--plot") -> Any:
    """matplotlib.pyplot on the Agg backend.

    Raises:
        ConfigError: matplotlib is not installed (the field is ``option``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError(option, MISSING) from None
    return plt


def plot_path(text: str, option: str = "--plot") -> Path:
    """A PNG path that can be written, with matplotlib there to write it.

    The file itself is tried (opened to append, which changes nothing in an existing
    file, and removed again if it was not there): a directory's mode does not say
    whether a file can be made in it (root may "write" anywhere by mode; ``/proc``
    makes no file; a name can be too long), and a plot refused only after a run of
    minutes wastes the run.

    Raises:
        ConfigError: the path is empty, not a regular file, in a missing directory, or
            the file cannot be written (the system's reason), or matplotlib is missing;
            the field is ``option``.
    """
    path = Path(text)
    try:
        if not text or (path.exists() and not path.is_file()):  # a directory, a FIFO, a device
            raise ConfigError(option, f"expected the path of a PNG file to write, got {show(text)}")
        folder = path.parent
        if not folder.is_dir():
            raise ConfigError(option, f"no such directory: {show(str(folder))}")
        existed = os.path.lexists(path)  # a symbolic link, even to nothing, stays
        # Without blocking: a FIFO put there since the check would block open() for a reader.
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0), 0o666))
        if not existed:
            path.unlink()
    except OSError as exc:
        raise ConfigError(option, f"cannot write {show(text)}: {exc.strerror or exc}") from None
    pyplot(option)
    return path
