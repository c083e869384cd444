"""Predicates of the rule-based composable sampler, with OpenTelemetry Python's names and
descriptions; each but the parent's is a configuration :class:`~dsampler.config.Match`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Protocol

from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanKind
from opentelemetry.trace.span import TraceState
from opentelemetry.util.types import Attributes

from dsampler._validate import check_text, show, typed
from dsampler.config import ANY_TEXT, AttributeMatch, Match, Pattern
from dsampler.decision import compile_span, parent_span_context
from dsampler.errors import ConfigError

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


class MatchPredicate:
    """A :class:`~dsampler.config.Match` with OpenTelemetry's predicate signature."""

    __slots__ = ("_description", "_test", "match")

    def __init__(self, match: Match, description: str) -> None:
        self.match = match
        self._test = compile_span(match)
        self._description = description

    def __call__(
        self,
        parent_ctx: Context | None,
        name: str,
        span_kind: SpanKind | None,
        attributes: Attributes,
        links: Sequence[Link] | None,
        trace_state: TraceState | None,
    ) -> bool:
        return self._test(name, span_kind, attributes)

    def __str__(self) -> str:
        return self._description


class AlwaysMatchPredicate(MatchPredicate):
    """Matches every span."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(Match(), "AlwaysMatch")


class AttributeValuesPredicate(MatchPredicate):
    """Matches a span whose attribute ``key`` (or an item of it) reads, as a string, as one of
    ``values``: ``"404"`` matches the integer 404.
    """

    __slots__ = ()

    def __init__(self, key: str, values: Sequence[str]) -> None:
        key, texts = check_text(key, "key"), _texts(values, "values")
        exact = tuple(Pattern("exact", text) for text in texts)
        super().__init__(_attribute(key, exact), f"{key} in [{','.join(sorted(texts))}]")


class AttributePatternsPredicate(MatchPredicate):
    """Matches a span whose attribute ``key`` (or an item of it) matches one of the ``included``
    globs (all, when none) and none of the ``excluded`` ones (:func:`fnmatch.fnmatchcase`).
    """

    __slots__ = ()

    def __init__(
        self, key: str, included: Sequence[str] | None = None, excluded: Sequence[str] | None = None
    ) -> None:
        key = check_text(key, "key")
        match = _attribute(key, _globs(included, "included") or ANY_TEXT, _globs(excluded, "excluded"))
        super().__init__(match, f"{key} matches")


def _globs(patterns: Sequence[str] | None, field: str) -> tuple[Pattern, ...]:
    return tuple(Pattern("glob", text) for text in _texts(patterns or (), field))


def _attribute(key: str, values: tuple[Pattern, ...], excluded: tuple[Pattern, ...] = ()) -> Match:
    return Match(attributes=(AttributeMatch(key, values, excluded, text=True),))


class SpanKindPredicate(MatchPredicate):
    """Matches spans of one of ``span_kinds``."""

    __slots__ = ()

    def __init__(self, span_kinds: Sequence[SpanKind]) -> None:
        if isinstance(span_kinds, (str, bytes)) or not isinstance(span_kinds, Iterable):
            raise ConfigError("span_kinds", f"expected a list of SpanKind, got {typed(span_kinds)}")
        kinds = tuple(dict.fromkeys(span_kinds))
        for i, kind in enumerate(kinds):
            if not isinstance(kind, SpanKind):
                raise ConfigError(f"span_kinds[{i}]", f"expected a SpanKind, got {typed(kind)}")
        names = tuple(kind.name.lower() for kind in kinds)
        super().__init__(Match(span_kind=names), f"span_kind in [{','.join(names)}]")
        if not kinds:  # no kind at all: a Match without kinds would match every one
            self._test = lambda name, kind, attributes: False


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
        parent = parent_span_context(parent_ctx)
        return ("none" if parent is None else "remote" if parent.is_remote else "local") in self._parents

    def __str__(self) -> str:
        return f"parent in [{','.join(self._parents)}]"
