"""Value checks of the ``adaptive:`` section's plain fields, and its ``share`` setting.

``share`` says whose budget the target is: ``process`` (the default) holds the target
and every traces-per-second limit in each process on its own; ``host`` holds them once
for every process of the service on this host that descends from one master (prefork
workers: gunicorn, uwsgi, a ``multiprocessing`` pool), through a small file in shared
memory that each process's controller reads and writes on its tick
(:mod:`dsampler.adaptive._host`).
"""

from __future__ import annotations

from typing import Final

from dsampler._validate import check_number, check_per_second, show
from dsampler.errors import ConfigError

PROCESS: Final = "process"
HOST: Final = "host"
SHARES: Final = (PROCESS, HOST)


def positive_per_second(value: object, name: str) -> float:
    number = check_per_second(value, name)
    if number <= 0.0:
        raise ConfigError(name, f"expected a number of traces per second above 0, got {show(value)}")
    return number


def multiplier(value: object, name: str) -> float:
    return check_number(value, name, 0.0, 1.0)


def cap_factor(value: object, name: str) -> float | None:
    return None if value is None else check_number(value, name, 1.0, 1000.0)


def share(value: object, name: str) -> str:
    """``process`` or ``host``."""
    if value not in SHARES or not isinstance(value, str):
        raise ConfigError(name, f"expected one of {', '.join(SHARES)}, got {show(value)}")
    return value
