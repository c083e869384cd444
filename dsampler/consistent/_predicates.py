"""Predicates of the rule-based composable sampler: what a rule matches.

The same predicates, names, call signature and descriptions as OpenTelemetry Python's
``_sampling_experimental`` (and the declarative configuration's ``rule_based`` rules):
attribute values, attribute patterns, span kinds, the kind of parent, all of several, and
always. A predicate is any callable taking ``parent_ctx, name, span_kind, attributes,
links, trace_state`` (by keyword); theirs work here and these work there. As OTEP 250
requires, none looks at the sampled flag or at the trace ID's randomness.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from typing import Final, Protocol

from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import check_text, show, typed
from dsampler.consistent._sdk import parent_span_context
from dsampler.errors import ConfigError

__all__ = [
    "AllPredicate",
    "AlwaysMatchPredicate",
    "AttributePatternsPredicate",
    "AttributeValuesPredicate",
    "ParentPredicate",
    "Predicate",
    "SpanKindPredicate",
]

PARENTS: Final = ("none", "local", "remote")


class Predicate(Protocol):
    """Whether a rule applies to a span (called with keyword arguments)."""

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool: ...


def _texts(values: object, field: str) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ConfigError(field, f"expected a list of strings, got {typed(values)}")
    return tuple(dict.fromkeys(check_text(v, f"{field}[{i}]") for i, v in enumerate(values)))


def _values_of(value: object) -> Sequence[object]:
    """An attribute's values: the items of an array attribute, else the value alone."""
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        return value
    return (value,)


class AlwaysMatchPredicate:
    """Matches every span."""

    __slots__ = ()

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return True

    def __str__(self) -> str:
        return "AlwaysMatch"


class AllPredicate:
    """Matches when every one of ``predicates`` matches (none: always)."""

    __slots__ = ("_predicates",)

    def __init__(self, predicates: Sequence[Predicate]) -> None:
        if isinstance(predicates, (str, bytes)) or not isinstance(predicates, Iterable):
            raise ConfigError("predicates", f"expected a list of predicates, got {typed(predicates)}")
        self._predicates = tuple(predicates)
        for i, predicate in enumerate(self._predicates):
            if not callable(predicate):
                raise ConfigError(
                    f"predicates[{i}]", f"expected a predicate (a callable), got {typed(predicate)}"
                )

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return all(
            predicate(
                parent_ctx=parent_ctx,
                name=name,
                span_kind=span_kind,
                attributes=attributes,
                links=links,
                trace_state=trace_state,
            )
            for predicate in self._predicates
        )

    def __str__(self) -> str:
        return " && ".join(str(predicate) for predicate in self._predicates)


class AttributeValuesPredicate:
    """Matches a span whose attribute ``key`` (or an item of it, for an array) reads,
    as a string, as one of ``values``: ``"404"`` matches the integer 404."""

    __slots__ = ("_key", "_values")

    def __init__(self, key: str, values: Sequence[str]) -> None:
        self._key = check_text(key, "key")
        self._values = frozenset(_texts(values, "values"))

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        if not attributes or self._key not in attributes:
            return False
        return any(str(value) in self._values for value in _values_of(attributes[self._key]))

    def __str__(self) -> str:
        return f"{self._key} in [{','.join(sorted(self._values))}]"


class AttributePatternsPredicate:
    """Matches a span whose attribute ``key`` (or an item of it) matches one of the
    ``included`` glob patterns (all, when none is given) and none of the ``excluded``
    ones; case-sensitive, ``*`` and ``?`` as in :func:`fnmatch.fnmatchcase`."""

    __slots__ = ("_excluded", "_included", "_key")

    def __init__(
        self, key: str, included: Sequence[str] | None = None, excluded: Sequence[str] | None = None
    ) -> None:
        self._key = check_text(key, "key")
        self._included = self._compile(included, "included")
        self._excluded = self._compile(excluded, "excluded")

    @staticmethod
    def _compile(patterns: Sequence[str] | None, field: str) -> re.Pattern[str] | None:
        texts = () if patterns is None else _texts(patterns, field)
        return re.compile("|".join(fnmatch.translate(p) for p in texts)) if texts else None

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        if not attributes or self._key not in attributes:
            return False
        return any(self._matches(str(value)) for value in _values_of(attributes[self._key]))

    def _matches(self, value: str) -> bool:
        if self._included is not None and self._included.match(value) is None:
            return False
        return self._excluded is None or self._excluded.match(value) is None

    def __str__(self) -> str:
        return f"{self._key} matches"


class SpanKindPredicate:
    """Matches spans of one of ``span_kinds``."""

    __slots__ = ("_kinds",)

    def __init__(self, span_kinds: Sequence[SpanKind]) -> None:
        if isinstance(span_kinds, (str, bytes)) or not isinstance(span_kinds, Iterable):
            raise ConfigError("span_kinds", f"expected a list of SpanKind, got {typed(span_kinds)}")
        kinds = tuple(dict.fromkeys(span_kinds))
        for i, kind in enumerate(kinds):
            if not isinstance(kind, SpanKind):
                raise ConfigError(f"span_kinds[{i}]", f"expected a SpanKind, got {typed(kind)}")
        self._kinds = kinds

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return span_kind in self._kinds

    def __str__(self) -> str:
        return f"span_kind in [{','.join(kind.name.lower() for kind in self._kinds)}]"


class ParentPredicate:
    """Matches by the kind of parent: ``"none"`` (a root), ``"local"`` or ``"remote"``."""

    __slots__ = ("_parents",)

    def __init__(self, parents: Sequence[str]) -> None:
        texts = _texts(parents, "parents")
        for i, parent in enumerate(texts):
            if parent not in PARENTS:
                raise ConfigError(
                    f"parents[{i}]", f"expected one of {', '.join(PARENTS)}, got {show(parent)}"
                )
        self._parents = texts

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return _parent_kind(parent_ctx) in self._parents

    def __str__(self) -> str:
        return f"parent in [{','.join(self._parents)}]"


def _parent_kind(parent_ctx: Context | None) -> str:
    parent = parent_span_context(parent_ctx)
    if parent is None:
        return "none"
    return "remote" if parent.is_remote else "local"
