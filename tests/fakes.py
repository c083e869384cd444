"""What the jaeger tests inject or feed on purpose: a random source with a fixed answer
(equal limiter balances on both sides of a comparison, a first poll due at once), trace
IDs and operation names whose own methods raise, and the small waits and readers the
jaeger-client integration tests share."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any


class Fixed(random.Random):
    """A random source whose random() is always ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__()
        self.value = value

    def random(self) -> float:
        return self.value


class HostileId(int):
    """A trace-ID int subclass whose operators all raise."""

    def __and__(self, other: object) -> int:
        raise ValueError("and")

    def __rshift__(self, other: object) -> int:
        raise ValueError("rshift")

    def __lt__(self, other: object) -> bool:
        raise ValueError("lt")

    def __index__(self) -> int:
        raise ValueError("index")

    def __int__(self) -> int:
        raise ValueError("int")


class HostileName(str):
    """An operation-name str subclass whose hash and equality raise."""

    def __hash__(self) -> int:
        raise ValueError("hash")

    def __eq__(self, other: object) -> bool:
        raise ValueError("eq")


def sampler_tags(span: Any) -> dict[str, Any]:
    """The ``sampler.*`` tags of a jaeger_client span, by their Thrift value type."""
    value = lambda t: (t.vStr, t.vDouble, t.vBool, t.vLong)[t.vType]  # noqa: E731
    return {t.key: value(t) for t in span.tags if t.key.startswith("sampler.")}


def until(check: Callable[[], bool], seconds: float = 20) -> None:
    """Wait (integration tests only) until ``check()``, failing after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the strategy was not picked up in time"
        time.sleep(0.02)
