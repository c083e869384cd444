"""What ``dsampler bench`` is doing, on stderr: one self-rewriting line on a terminal,
plain lines otherwise (a log, a CI job, a pipe), so stdout stays the report alone."""

from __future__ import annotations

import time
from typing import TextIO

from dsampler.cli._output import is_terminal

_BAR = 24


class TerminalProgress:
    """A bar with the phase, its count and an estimate of the time left, rewritten in place."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._phase = ""
        self._since = time.monotonic()

    def _show(self, text: str) -> None:
        self._stream.write("\r\x1b[K" + text)
        self._stream.flush()

    def phase(self, text: str) -> None:
        self._phase, self._since = text, time.monotonic()
        self._show(f"dsampler bench: {text}...")

    def step(self, text: str, done: int, total: int) -> None:
        if text != self._phase:
            self._phase, self._since = text, time.monotonic()
        filled = _BAR * done // max(total, 1)
        left = ""
        if 0 < done < total:
            per_step = (time.monotonic() - self._since) / done
            left = f", ~{per_step * (total - done):.0f} s left"
        self._show(f"dsampler bench: [{'#' * filled}{'.' * (_BAR - filled)}] {text} {done}/{total}{left}")

    def close(self) -> None:
        self._stream.write("\r\x1b[K")
        self._stream.flush()


class LineProgress:
    """A line per phase and per quarter of a counted phase: short enough for a log."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._phase = ""
        self._quarter = -1

    def _line(self, text: str) -> None:
        print(f"dsampler bench: {text}", file=self._stream, flush=True)

    def phase(self, text: str) -> None:
        self._phase, self._quarter = text, -1
        self._line(text)

    def step(self, text: str, done: int, total: int) -> None:
        if text != self._phase:
            self._phase, self._quarter = text, -1
        quarter = 4 * done // max(total, 1)
        if quarter != self._quarter:
            self._quarter = quarter
            self._line(f"{text} {done}/{total}")

    def close(self) -> None:
        self._line("done")


def progress_for(stream: TextIO) -> TerminalProgress | LineProgress:
    """The right indicator for ``stream``."""
    return TerminalProgress(stream) if is_terminal(stream) else LineProgress(stream)
