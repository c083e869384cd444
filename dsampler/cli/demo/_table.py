"""The live table: one row per service, once a second.

On a terminal the table is redrawn in place (the last second, a progress bar and the
latest events); anywhere else (a pipe, a log, CI) each second appends its rows, with
the events of that second on their own lines before them, so the whole run can be read
afterwards. Both write through :func:`_write`, which a reader that went away (``| head``)
silences instead of failing the run.
"""

from __future__ import annotations

import shutil
from typing import Final, TextIO

from dsampler.cli._output import discard, is_terminal
from dsampler.cli.demo._workload import Record, Row

HEADER: Final = (
    f"{'time':>8}  {'phase':<11}  {'service':<8}  {'offered/s':>9}  {'sampled/s':>9}  "
    f"{'rate':>7}  {'window':>6}  {'version':>7}"
)
_BAR: Final = 30
_EVENTS: Final = 4  # events kept on screen by the live table


def _write(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        discard(stream)


def format_row(record: Record, row: Row) -> str:
    """A table line: time (as progress), phase, and the service's second."""
    timeline = record.timeline
    clock = f"{row.second}/{timeline.duration_s:g}s"
    window = "-" if row.window_s is None else f"{row.window_s:.1f}s"
    return (
        f"{clock:>8}  {timeline.phase(row.second):<11}  {row.service:<8}  {row.offered:>9,}  "
        f"{row.sampled:>9,}  {row.rate:>7.3g}  {window:>6}  {row.version:>7}"
    )


def _event(at_s: float, text: str) -> str:
    return f"{at_s:>7.2f}s  -- {text}"


class PlainTable:
    """Appended lines: the header once, then each second's events and rows."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._events = 0
        self._rows = 0

    def show(self, record: Record) -> None:
        lines = [] if self._rows else [HEADER]
        lines += self._new_events(record)
        for rows in record.rows[self._rows :]:
            lines += [format_row(record, row) for row in rows]
        self._rows = len(record.rows)
        _write(self._stream, "".join(line + "\n" for line in lines))

    def _new_events(self, record: Record) -> list[str]:
        fresh = record.events[self._events :]
        self._events = len(record.events)
        return [_event(e.at_s, e.text) for e in fresh]

    def close(self, record: Record) -> None:
        """The events after the last whole second (an interrupt, a late follow)."""
        lines = self._new_events(record)
        if lines:
            _write(self._stream, "".join(line + "\n" for line in lines))


class LiveTable:
    """A block of fixed height rewritten in place: header, the last second's rows, a
    progress bar, the latest events."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._height = 0

    def show(self, record: Record) -> None:
        lines = [HEADER]
        lines += [format_row(record, row) for row in record.rows[-1]] if record.rows else []
        lines.append(_progress(record))
        recent = record.events[-_EVENTS:]
        lines += [_event(e.at_s, e.text) for e in recent] + [""] * (_EVENTS - len(recent))
        width = shutil.get_terminal_size().columns - 1  # a wrapped line would break the count
        up = f"\x1b[{self._height}F" if self._height else ""
        self._height = len(lines)
        _write(self._stream, up + "".join(f"\x1b[2K{line[:width]}\n" for line in lines))

    def close(self, record: Record) -> None:
        self.show(record)


def _progress(record: Record) -> str:
    total = record.timeline.duration_s
    done = len(record.rows)
    filled = min(_BAR, round(_BAR * done / total))
    phase = record.timeline.phase(max(done, 1))
    return f"[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total:g} s  {phase}"


def table_for(stream: TextIO) -> LiveTable | PlainTable:
    """The live table on a terminal, plain lines otherwise."""
    return LiveTable(stream) if is_terminal(stream) else PlainTable(stream)
