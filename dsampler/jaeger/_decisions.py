"""jaeger-client's ``is_sampled(trace_id, operation) -> (bool, tags)`` over an engine's
``SamplingResult``. Closures, not bound methods: a sampler holding one is no reference cycle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol

from opentelemetry.context import Context

from dsampler._validate import MAX_TEXT
from dsampler.decision import EMPTY, RECORD_AND_SAMPLE
from dsampler.engine import Engine
from dsampler.jaeger._adaptive import name_of
from dsampler.jaeger._samplers import Sampler, int_value

_ROOT: Final = Context()  # jaeger-client decides root spans only: no parent to look up
_UNTRACKED: Final = " " * (MAX_TEXT + 1)  # a name never tracked: the default rate decides it


class Decision(Protocol):
    def __call__(self, trace_id: int, operation: str = "") -> tuple[bool, Mapping[str, Any]]: ...


def following(sampler: Engine) -> Decision:
    """Decisions by ``sampler``'s configuration in force, whichever version it is."""
    should_sample, root, sampled, plain_int, plain_str = (
        sampler.should_sample,
        _ROOT,
        RECORD_AND_SAMPLE,
        int,
        str,
    )

    def decide(trace_id: int, operation: str = "") -> tuple[bool, Mapping[str, Any]]:
        if type(trace_id) is not plain_int or type(operation) is not plain_str:
            return odd(trace_id, operation)
        result = should_sample(root, trace_id, operation)
        return result.decision is sampled, result.attributes

    def odd(trace_id: object, operation: object) -> tuple[bool, Mapping[str, Any]]:
        value = int_value(trace_id)
        if value is None:
            return False, EMPTY
        name = name_of(operation)
        return decide(value, _UNTRACKED if name is None else name)

    return decide


def guarded(sampler: Sampler) -> Decision:
    """``sampler.is_sampled`` that never raises (an application's own init sampler may)."""
    is_sampled = sampler.is_sampled

    def decide(trace_id: int, operation: str = "") -> tuple[bool, Mapping[str, Any]]:
        try:
            return is_sampled(trace_id, operation)
        except Exception:
            return False, EMPTY

    return decide
