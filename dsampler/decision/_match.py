"""The rule language compiled: a :class:`~dsampler.config.Match` becomes a plain Python
predicate, once; resource attributes are fixed for a process, so they are checked then."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from opentelemetry.trace import SpanKind
from opentelemetry.util.types import Attributes

from dsampler.config import AttributeMatch, Match, Pattern

#: (span name, span kind, span attributes) -> does the rule match?
Predicate = Callable[[str, "SpanKind | None", Attributes], bool]

_KINDS = {kind.name.lower(): kind for kind in SpanKind}
_SCALARS: Final = (str, bool, int, float, bytes, bytearray)  # no array: one value, one text


def match_anything(name: str, kind: SpanKind | None, attributes: Attributes) -> bool:
    """The predicate of a rule with an empty match."""
    return True


def _string_matcher(patterns: Sequence[Pattern]) -> Callable[[str], bool]:
    """One test for a set of exact / prefix / glob patterns."""
    exact = frozenset(p.value for p in patterns if p.kind == "exact")
    prefixes = tuple(p.value for p in patterns if p.kind == "prefix")
    globs = [p.value for p in patterns if p.kind == "glob"]
    regex = re.compile("|".join(f"(?:{fnmatch.translate(g)})" for g in globs)) if globs else None
    if not prefixes and regex is None:
        return exact.__contains__
    if not exact and regex is None:
        return lambda s: s.startswith(prefixes)

    def test(s: str) -> bool:
        return (
            s in exact
            or (bool(prefixes) and s.startswith(prefixes))
            or (regex is not None and bool(regex.match(s)))
        )

    return test


def _value_matcher(match: AttributeMatch) -> Callable[[object], bool]:
    """Any of the accepted values: patterns for str, same-type equality for bool, int and
    float (``True`` is not ``1``); with ``match.text``, patterns over the text of the value or an item."""
    strings = _string_matcher([v for v in match.values if isinstance(v, Pattern)])
    if match.text:
        excluded = _string_matcher(match.excluded) if match.excluded else None

        def text(value: object) -> bool:
            if isinstance(value, _SCALARS) or not isinstance(value, Sequence):  # concrete types first
                items: Sequence[object] = (value,)
            else:
                items = value
            for item in items:
                t = str(item)
                if strings(t) and (excluded is None or not excluded(t)):
                    return True
            return False

        return text
    scalars = frozenset((type(v), v) for v in match.values if not isinstance(v, Pattern))

    def test(value: object) -> bool:
        if isinstance(value, str):
            return strings(value)
        if isinstance(value, (bool, int, float)):
            return (type(value), value) in scalars
        return False  # sequences (valid OTel attribute values) match no scalar

    return test


def compile_match(match: Match, resource: Mapping[str, Any]) -> Predicate | None:
    """A predicate for ``match``, or None when this process's resource rules it out."""
    if all(m.key in resource and _value_matcher(m)(resource[m.key]) for m in match.resource):
        return compile_span(match)
    return None


def compile_span(match: Match) -> Predicate:
    """A predicate for the span parts of ``match`` (its resource part is not read)."""
    names = _string_matcher(match.span_name) if match.span_name else None
    wanted = frozenset(_KINDS[k] for k in match.span_kind)
    kinds = frozenset(id(k) for k in wanted) or None  # by id: an Enum member hashes in Python
    internal_ok = kinds is None or SpanKind.INTERNAL in wanted
    attrs = tuple((m.key, _value_matcher(m)) for m in match.attributes)
    if names is None and kinds is None and not attrs:
        return match_anything

    def predicate(name: str, kind: SpanKind | None, attributes: Attributes) -> bool:
        if names is not None and not names(name):
            return False
        if kinds is not None and (id(kind) not in kinds if kind is not None else not internal_ok):
            return False
        for key, test in attrs:
            if not attributes or key not in attributes or not test(attributes[key]):
                return False
        return True

    return predicate
